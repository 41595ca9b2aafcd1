import Foundation

/// The configured Sybil API base URL of the Agent room (docs/api/agent-room.md), e.g.
/// `https://host/api`, `https://host/api/` or `https://host`: every route is joined to the
/// base's path with exactly one `/` (never dropped, never doubled), each route segment
/// percent-encoded, and the stream's `ws:`/`wss:` URL is derived from it.
///
/// Only `http:` and `https:` bases with a host are accepted; a base with a query, a fragment
/// or credentials is refused, since joining routes to it could not keep them.
public struct AgentAPIBase: Sendable, Hashable, CustomStringConvertible {
    /// Why a base URL was refused; one sentence that quotes it and says what to do.
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// Not a URL at all.
        case notAURL(String)
        /// The scheme is not `http` or `https`.
        case unsupportedScheme(String)
        /// No host.
        case missingHost(String)
        /// The base carries a query (`?…`).
        case hasQuery(String)
        /// The base carries a fragment (`#…`).
        case hasFragment(String)
        /// The base carries a user name or password (not quoted: it may hold a secret).
        case hasCredentials

        public var description: String {
            switch self {
            case .notAURL(let text):
                "\(Self.quoted(text)) is not a URL; give the API base such as https://host/api."
            case .unsupportedScheme(let text):
                "\(Self.quoted(text)) is not an http or https URL; give the API base such as https://host/api."
            case .missingHost(let text):
                "\(Self.quoted(text)) has no host; give the API base such as https://host/api."
            case .hasQuery(let text):
                "\(Self.quoted(text)) has a query (?…); give the API base without one, such as https://host/api."
            case .hasFragment(let text):
                "\(Self.quoted(text)) has a fragment (#…); give the API base without one, such as https://host/api."
            case .hasCredentials:
                "The API base has a user name or password in it; remove them (the token is configured separately)."
            }
        }

        private static func quoted(_ text: String) -> String { "\"\(text)\"" }
    }

    /// The base as configured.
    public let url: URL
    /// The base as text, its path percent-encoded and without trailing slashes (`https://h/api`):
    /// a route's URL is this text and its percent-encoded route, parsed once, not the base taken
    /// apart and put together again for every request.
    private let prefix: String

    /// Checks `url` and keeps it as the base.
    public init(_ url: URL) throws(Problem) {
        let text = url.absoluteString
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw .notAURL(text)
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unsupportedScheme(text)
        }
        guard let host = components.plainPercentEncodedHost, !host.isEmpty else { throw .missingHost(text) }
        guard components.user == nil, components.password == nil else { throw .hasCredentials }
        guard components.percentEncodedQuery == nil else { throw .hasQuery(text) }
        guard components.percentEncodedFragment == nil else { throw .hasFragment(text) }
        var path = Substring(components.percentEncodedPath)
        while path.hasSuffix("/") { path = path.dropLast() }
        var base = components
        base.percentEncodedPath = String(path)
        guard let prefix = base.string else { throw .notAURL(text) }
        self.url = url
        self.prefix = prefix
    }

    /// Checks `text` and keeps it as the base.
    public init(string text: String) throws(Problem) {
        guard let url = URL(string: text) else { throw .notAURL(text) }
        try self.init(url)
    }

    public var description: String { url.absoluteString }

    /// The URL of the route made of `segments` (each percent-encoded as one path segment), with
    /// `query` items percent-encoded in order: `["agent", "messages"]` on `https://h/api/` is
    /// `https://h/api/agent/messages`.
    public func url(_ segments: [String], query: [(String, String)] = []) -> URL {
        route(segments, query: query, webSocket: false)
    }

    /// The `ws:` (for `http:`) or `wss:` (for `https:`) URL of the route.
    public func webSocketURL(_ segments: [String], query: [(String, String)] = []) -> URL {
        route(segments, query: query, webSocket: true)
    }

    private func route(_ segments: [String], query: [(String, String)], webSocket: Bool) -> URL {
        precondition(!segments.isEmpty, "a route has at least one segment")
        // Every segment and query item is percent-encoded to unreserved characters: the text is
        // what `URLComponents` would make of the base with this path and query.
        var text = prefix + "/" + segments.map(Self.encoded).joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { "\(Self.encoded($0.0))=\(Self.encoded($0.1))" }.joined(separator: "&")
        }
        if webSocket, let colon = text.firstIndex(of: ":") {
            // The scheme is swapped in the text: setting `URLComponents.scheme` reads the host
            // back through IDNA, which loads ICU's IDNA data for a base as plain as 127.0.0.1.
            text = (text[..<colon].lowercased() == "https" ? "wss" : "ws") + text[colon...]
        }
        guard let result = URL(string: text) else {
            preconditionFailure("cannot build a URL from \(url) and \(segments)")
        }
        return result
    }

    /// `text` with every byte outside RFC 3986's unreserved set percent-encoded (UTF-8), so a
    /// segment never carries a `/`, `?`, `#`, `%` or `+` of its own.
    static func encoded(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0x0F)]))
            }
        }
        return result
    }
}
