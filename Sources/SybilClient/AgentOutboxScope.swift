import Foundation
import SybilCore

/// The API base URL an Agent room outbox belongs to, normalized so that spellings of one base
/// share a file and different bases never do: the scheme and host lowercased, a default port
/// dropped, trailing `/` removed (`http://h/api` and `http://h/api/` are one base), the
/// fragment and any password left out (the user name, if any, is kept). The file name is the
/// FNV-1a 64 of the normalized text; the file also records the text, so even a hash
/// collision cannot mix two bases (``AgentOutbox`` moves a file of another base aside).
public struct AgentOutboxScope: Sendable, Hashable, CustomStringConvertible {
    /// The normalized base URL, e.g. `http://127.0.0.1:8799/api`.
    public let baseURL: String

    /// The scope of `baseURL`; throws unless it is `http` or `https` with a host.
    public init(baseURL: URL) throws(AgentOutboxError) {
        guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.plainPercentEncodedHost?.lowercased(), !host.isEmpty
        else {
            throw .invalidBaseURL(baseURL.absoluteString)
        }
        var text = scheme + "://"
        if let user = components.percentEncodedUser, !user.isEmpty { text += user + "@" }
        text += host
        if let port = components.port, port != (scheme == "https" ? 443 : 80) { text += ":\(port)" }
        var path = Substring(components.percentEncodedPath)
        while path.hasSuffix("/") { path = path.dropLast() }
        text += path
        if let query = components.percentEncodedQuery, !query.isEmpty { text += "?" + query }
        self.baseURL = text
    }

    /// `agent-outbox-<16 hex digits of FNV-1a 64>.json`.
    public var fileName: String {
        "agent-outbox-" + Hex.padded(FNV1a64.hash(utf8: baseURL)) + ".json"
    }

    public var description: String { baseURL }
}
