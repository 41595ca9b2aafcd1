import Foundation

/// A request's start line and header fields.
public struct HTTPRequestHead: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request target, e.g. `/v1/chat/completions?x=1`; an absolute-form target
    /// (`http://host/v1/models`) is reduced to its origin form when parsed.
    public var target: String {
        didSet { path = Self.path(of: target) }
    }
    /// The path without the query: kept with the target, since every routing decision (auth,
    /// body limit, dispatch) reads it.
    public private(set) var path: String
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    public var minorVersion: Int
    /// Header fields in order.
    public var headers: HTTPHeaders

    /// Creates a head.
    public init(method: String, target: String, minorVersion: Int, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.path = Self.path(of: target)
        self.minorVersion = minorVersion
        self.headers = headers
    }

    /// Whether the connection stays open after this request (HTTP/1.1 unless `Connection:
    /// close`; HTTP/1.0 only with `Connection: keep-alive`).
    public var keepAlive: Bool {
        minorVersion == 1
            ? !headers.listContains("Connection", token: "close")
            : headers.listContains("Connection", token: "keep-alive")
    }

    /// `target` up to its first `?`.
    private static func path(of target: String) -> String {
        guard let query = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<query])
    }
}

/// Why a request could not be read; each maps to the status the server answers with.
public enum HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400: malformed start line, header or chunk framing.
    case badRequest(String)
    /// 431: the head is larger than the limit.
    case headersTooLarge(limit: Int)
    /// 431: the head has more header fields than the limit.
    case tooManyHeaderFields(limit: Int)
    /// 413: the body is larger than the route's limit.
    case bodyTooLarge(limit: Int)
    /// 501: a transfer coding other than chunked.
    case unsupportedTransferEncoding(String)
    /// 505: not HTTP/1.0 or HTTP/1.1.
    case versionNotSupported(String)

    /// The status to answer with.
    public var status: Int {
        switch self {
        case .badRequest: 400
        case .headersTooLarge, .tooManyHeaderFields: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .versionNotSupported: 505
        }
    }

    /// One sentence for the error body.
    public var description: String {
        switch self {
        case .badRequest(let reason): "Malformed request: \(reason)."
        case .headersTooLarge(let limit): "The request head is larger than \(limit) bytes."
        case .tooManyHeaderFields(let limit): "The request has more than \(limit) header fields."
        case .bodyTooLarge(let limit): "The request body is larger than \(limit) bytes."
        case .unsupportedTransferEncoding(let coding): "Transfer-Encoding \"\(coding)\" is not supported; use chunked."
        case .versionNotSupported(let version): "\(version) is not supported; use HTTP/1.1."
        }
    }
}

/// An incremental HTTP/1.1 request parser (RFC 9112): bytes in, heads and body pieces out,
/// one request after another on a kept-alive connection. The head is read by the shared
/// ``HTTPHeadDecoder`` (field-line syntax, bounds: `maximumHeadBytes` and
/// ``maximumFieldCount``, 431), the body's framing by ``HTTPBodyFraming``, a chunked body by
/// ``HTTPChunkedDecoder``; what only a request has is here: the request line and its target
/// forms, exactly one `Host`, a body limit the caller gives for the head (413), and the framing
/// a server accepts — Content-Length or chunked alone (both, differing lengths, or chunked in
/// HTTP/1.0 is a 400, no request smuggling; another coding a 501).
public struct HTTPRequestParser: Sendable {
    /// What the parser found.
    public enum Event: Sendable, Hashable {
        /// A request began.
        case head(HTTPRequestHead)
        /// A piece of its body.
        case body([UInt8])
        /// The request is complete.
        case end
    }

    private enum State: Sendable {
        case head
        case fixedBody(remaining: Int)
        case chunked(HTTPChunkedDecoder)
    }

    /// The most header fields a request may have (431 beyond), as Apache's `LimitRequestFields`.
    public static let maximumFieldCount = 100
    /// The most empty lines (CRLF) ignored before a request line (RFC 9112 §2.2: a server
    /// should ignore at least one, as a client may send one after a POST body); one more is a 400.
    public static let maximumEmptyLinesBeforeRequest = 4
    /// The largest request head (start line and fields, with the CRLF CRLF that ends it).
    public let maximumHeadBytes: Int
    private let bodyLimit: @Sendable (HTTPRequestHead) -> Int
    private var state = State.head
    private var buffer: [UInt8] = []
    private var headDecoder: HTTPHeadDecoder<RequestLine>
    /// The empty lines ignored since the last request ended.
    private var emptyLinesBeforeRequest = 0

    /// A parser; `bodyLimit` gives the largest body for a request once its head is known.
    public init(maximumHeadBytes: Int = 16 << 10, bodyLimit: @escaping @Sendable (HTTPRequestHead) -> Int) {
        self.maximumHeadBytes = maximumHeadBytes
        self.bodyLimit = bodyLimit
        self.headDecoder = HTTPHeadDecoder(
            maximumHeadBytes: maximumHeadBytes, maximumFieldCount: Self.maximumFieldCount)
    }

    /// Bytes received and not yet handed out as events (a partial head or line, or the part of
    /// one read beyond the current body piece): for the server's count of what it holds.
    public var bufferedByteCount: Int { buffer.count }

    /// Whether the parser is between requests (nothing of a next one received yet).
    public var isIdle: Bool {
        if case .head = state { return buffer.isEmpty }
        return false
    }

    /// Feeds received bytes; returns what they complete. When they also hold something
    /// malformed, the error is thrown and the events before it are lost: a server answering
    /// pipelined requests uses ``feed(_:into:)``.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(HTTPParseError) -> [Event] {
        var events: [Event] = []
        try feed(bytes, into: &events)
        return events
    }

    /// Feeds received bytes and appends what they complete to `events`; the events for the
    /// requests before a malformed one are appended before its error is thrown, so each
    /// request read is answered in order.
    public mutating func feed(_ bytes: some Collection<UInt8>, into events: inout [Event]) throws(HTTPParseError) {
        buffer.append(contentsOf: bytes)
        while try step(&events) {}
    }

    /// Advances once; returns whether it made progress.
    private mutating func step(_ events: inout [Event]) throws(HTTPParseError) -> Bool {
        switch state {
        case .head:
            guard try skipEmptyLines() else { return false }
            let head: HTTPRequestHead
            do throws(HTTPHeadError) {
                guard let decoded = try headDecoder.decode(&buffer) else { return false }
                head = HTTPRequestHead(
                    method: decoded.startLine.method, target: decoded.startLine.target,
                    minorVersion: decoded.startLine.minorVersion, headers: decoded.headers)
            } catch {
                throw Self.refusal(error)
            }
            // RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host field; none, or more
            // than one, is a 400.
            let hosts = head.headers.fields.count { HTTPHeaders.isNamed($0.name, "host") }
            if head.minorVersion == 1, hosts == 0 { throw .badRequest("HTTP/1.1 requests need a Host header") }
            if hosts > 1 { throw .badRequest("more than one Host header") }
            emptyLinesBeforeRequest = 0
            events.append(.head(head))
            try startBody(for: head, &events)
            return true
        case .fixedBody(let remaining):
            guard !buffer.isEmpty else { return false }
            let count = min(remaining, buffer.count)
            events.append(.body(Array(buffer[..<count])))
            buffer.removeSubrange(..<count)
            if count == remaining {
                finishRequest(&events)
            } else {
                state = .fixedBody(remaining: remaining - count)
            }
            return true
        case .chunked(var decoder):
            // The trailer section is bounded like a head; the body by the head's limit.
            let done: Bool
            do {
                done = try decoder.decode(&buffer) { events.append(.body($0)) }
            } catch {
                switch error {
                case .malformed(let reason): throw .badRequest(reason)
                case .trailersTooLarge(let limit): throw .headersTooLarge(limit: limit)
                case .bodyTooLarge(let limit): throw .bodyTooLarge(limit: limit)
                }
            }
            guard done else {
                state = .chunked(decoder)
                return false
            }
            finishRequest(&events)
            return true
        }
    }

    /// Removes the empty lines (CRLF) at the buffer's front before a request line, at most
    /// ``maximumEmptyLinesBeforeRequest`` of them per request; `false` while a lone CR at the
    /// front may still become one. A CR followed by another byte is left for the head decoder,
    /// which refuses it.
    private mutating func skipEmptyLines() throws(HTTPParseError) -> Bool {
        var count = 0
        while count + 1 < buffer.count, buffer[count] == 0x0D, buffer[count + 1] == 0x0A { count += 2 }
        if count > 0 {
            emptyLinesBeforeRequest += count / 2
            guard emptyLinesBeforeRequest <= Self.maximumEmptyLinesBeforeRequest else {
                throw .badRequest(
                    "more than \(Self.maximumEmptyLinesBeforeRequest) empty lines before the request line")
            }
            buffer.removeSubrange(..<count)
        }
        return !(buffer.count == 1 && buffer[0] == 0x0D)
    }

    /// The status a head fault is answered with.
    private static func refusal(_ error: HTTPHeadError) -> HTTPParseError {
        switch error {
        case .malformed(let reason): .badRequest(reason)
        case .tooLarge(let limit): .headersTooLarge(limit: limit)
        case .tooManyFields(let limit): .tooManyHeaderFields(limit: limit)
        case .versionNotSupported(let version): .versionNotSupported(version)
        }
    }

    private mutating func startBody(for head: HTTPRequestHead, _ events: inout [Event]) throws(HTTPParseError) {
        let framing: HTTPBodyFraming
        do {
            framing = try HTTPBodyFraming(head.headers, lengthLists: false)
        } catch {
            throw Self.refusal(error)
        }
        switch framing {
        case .none:
            finishRequest(&events)
        case .length(let length):
            let limit = bodyLimit(head)
            guard length <= limit else { throw .bodyTooLarge(limit: limit) }
            if length == 0 {
                finishRequest(&events)
            } else {
                state = .fixedBody(remaining: length)
            }
        case .codings(let codings, let withLength):
            // RFC 9112 §6.1: HTTP/1.0 has no transfer codings; such a message's framing is faulty.
            guard head.minorVersion == 1 else { throw .badRequest("Transfer-Encoding in an HTTP/1.0 request") }
            guard !withLength else { throw .badRequest("both Content-Length and Transfer-Encoding are present") }
            guard codings == ["chunked"] else { throw .unsupportedTransferEncoding(codings.joined(separator: ",")) }
            state = .chunked(HTTPChunkedDecoder(maximumTrailerBytes: maximumHeadBytes, bodyLimit: bodyLimit(head)))
        }
    }

    private mutating func finishRequest(_ events: inout [Event]) {
        events.append(.end)
        state = .head
    }
}

extension HTTPRequestParser {
    /// `method SP request-target SP HTTP-version` (RFC 9112 §3): the method a token, the target
    /// in origin form (`/path?query`), asterisk form (`*`) or absolute form (`http://host/path`,
    /// reduced to its origin form, §3.2.2); HTTP/1.0 or HTTP/1.1, another `HTTP/` version a 505.
    struct RequestLine: HTTPStartLine {
        var method: String
        var target: String
        var minorVersion: Int

        static let message = "request"

        /// A request starts with a method, a token; a TLS ClientHello (0x16) is named.
        static func refuseEarly(_ buffer: [UInt8]) throws(HTTPHeadError) {
            let first = buffer[0]
            if first == 0x16 {
                throw .malformed("this server speaks plain HTTP; a TLS handshake was received")
            }
            guard HTTPHeaders.isTokenByte(first) else {
                throw .malformed("a request line starts with byte 0x\(String(first, radix: 16))")
            }
        }

        static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(HTTPHeadError) -> RequestLine {
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            // Only built when it is thrown.
            func invalid() -> HTTPHeadError {
                .malformed("invalid request line \(text(0..<bytes.count).debugDescription)")
            }
            // Exactly two spaces, found without collecting them.
            var spaces = (first: -1, second: -1, count: 0)
            for index in 0..<bytes.count where bytes[index] == 0x20 {
                if spaces.count == 0 { spaces.first = index } else if spaces.count == 1 { spaces.second = index }
                spaces.count += 1
            }
            guard spaces.count == 2 else { throw invalid() }
            let methodRange = 0..<spaces.first
            let targetRange = (spaces.first + 1)..<spaces.second
            let versionRange = (spaces.second + 1)..<bytes.count
            guard !methodRange.isEmpty, methodRange.allSatisfy({ HTTPHeaders.isTokenByte(bytes[$0]) }),
                !targetRange.isEmpty, targetRange.allSatisfy({ bytes[$0] > 0x20 && bytes[$0] != 0x7F })
            else { throw invalid() }
            let target: String
            if bytes[targetRange.lowerBound] == UInt8(ascii: "/")
                || (targetRange.count == 1 && bytes[targetRange.lowerBound] == UInt8(ascii: "*"))
            {
                target = text(targetRange)
            } else if let origin = originForm(ofAbsolute: text(targetRange)) {
                target = origin
            } else {
                throw invalid()
            }
            // The version compared as bytes; a String only for the error.
            let minorVersion: Int
            let version = UnsafeBufferPointer(rebasing: bytes[versionRange])
            if version.elementsEqual("HTTP/1.1".utf8) {
                minorVersion = 1
            } else if version.elementsEqual("HTTP/1.0".utf8) {
                minorVersion = 0
            } else {
                let version = text(versionRange)
                if version.hasPrefix("HTTP/") { throw .versionNotSupported(version) }
                throw invalid()
            }
            return RequestLine(method: text(methodRange), target: target, minorVersion: minorVersion)
        }

        /// The origin form (`/path?query`) of an absolute-form target (`http://host/path?query`),
        /// which a server must accept (RFC 9112 §3.2.2); `nil` when `target` is not an `http` or
        /// `https` URI with an authority.
        static func originForm(ofAbsolute target: String) -> String? {
            let lowered = target.lowercased()
            guard let scheme = ["http://", "https://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
            let rest = target.dropFirst(scheme.count)
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            guard authorityEnd > rest.startIndex, !rest[..<authorityEnd].contains("@") else { return nil }
            let pathAndQuery = rest[authorityEnd...]
            guard !pathAndQuery.contains("#") else { return nil }
            return pathAndQuery.hasPrefix("/") ? String(pathAndQuery) : "/" + pathAndQuery
        }
    }
}
