import Foundation

/// An HTTP request.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The full URL.
    public var url: URL
    /// Header fields.
    public var headers: HTTPHeaders
    /// The body, if any.
    public var body: [UInt8]?
    /// How long to wait for the response head (the transport's own timeouts apply after).
    public var timeout: Duration

    /// Creates a request.
    public init(
        method: String = "GET", url: URL, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The status line and headers of a response.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: HTTPHeaders

    /// Creates a head.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.headers = headers
    }
}

/// A response whose body arrives in chunks as the server sends them.
public struct HTTPStreamingResponse: Sendable {
    /// Status and headers.
    public var head: HTTPResponseHead
    /// The body, chunk by chunk; it ends when the server finishes and throws when the
    /// connection fails. Cancelling the consuming task cancels the request.
    public var body: AsyncThrowingStream<[UInt8], any Error>

    /// Creates a response.
    public init(head: HTTPResponseHead, body: AsyncThrowingStream<[UInt8], any Error>) {
        self.head = head
        self.body = body
    }

    /// Reads the whole body, at most `limit` bytes (the rest is dropped).
    public func collect(limit: Int = 1 << 20) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body {
            bytes.append(contentsOf: chunk.prefix(max(0, limit - bytes.count)))
            if bytes.count >= limit { break }
        }
        return bytes
    }
}

/// A request that could not be sent, or a response that could not be read, with what was
/// wrong.
public struct HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the field.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// A request none of which was written: the connection to the server could not be made (the
/// name did not resolve, the connection was refused, TLS failed, or no connection was made
/// within the connect timeout — a TCP connect that never completed sent nothing). Only a
/// failure after the request's bytes began to go out may have reached the server. Its description is the
/// reason, as the underlying socket error said it. (A `GET` or `HEAD` sent once more after an
/// idle kept-alive connection dropped may have reached the server the first time; a `POST` is
/// only sent once more when none of it was written.)
public struct HTTPRequestNotSent: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why no connection was made.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

/// The HTTP seam: everything the network layer sends goes through one of these. Tests use a
/// stub; apps use ``DefaultHTTPClient/make(redirects:)``.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns once the response head arrived; the body streams.
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse
}

/// Joins API base URLs and endpoint paths without losing the base's path.
public enum APIEndpoint {
    /// `https://h/api` + `agent/messages` → `https://h/api/agent/messages` (a leading `/` on the
    /// path, or a trailing `/` on the base, changes nothing). Query items are appended encoded.
    public static func url(base: URL, path: String, query: [(String, String)] = []) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        let endpoint = path.hasPrefix("/") ? String(path.dropFirst()) : path
        components.path = basePath + "/" + endpoint
        if !query.isEmpty {
            components.queryItems = (components.queryItems ?? []) + query.map { URLQueryItem(name: $0.0, value: $0.1) }
        }
        guard let url = components.url else { preconditionFailure("cannot build a URL from \(base) and \(path)") }
        return url
    }
}
