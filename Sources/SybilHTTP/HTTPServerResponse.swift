import SybilCore

/// What a handler answers: a status, header fields and one of three kinds of body.
public struct HTTPServerResponse: Sendable {
    /// The body kinds.
    public enum Body: Sendable {
        /// A whole body, sent with Content-Length.
        case bytes([UInt8])
        /// A chunked body written by `producer` as it goes (event streams). The connection
        /// stays usable after the producer returns; it is cancelled when the client leaves.
        case stream(@Sendable (HTTPResponseStream) async -> Void)
        /// A WebSocket: the server answers 101 with the accept value and hands the
        /// connection to `session`; `maximumMessage` bounds incoming messages.
        case webSocket(accept: String, maximumMessage: Int, session: @Sendable (ServerWebSocket) async -> Void)
    }

    /// The status code.
    public var status: Int
    /// Header fields; the server adds Content-Length, Transfer-Encoding and Connection.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body

    /// Creates a response.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response with `value` as its body.
    public static func json(_ value: JSONValue, status: Int = 200, headers: HTTPHeaders = HTTPHeaders())
        -> HTTPServerResponse
    {
        var fields = headers
        fields.set("Content-Type", "application/json")
        return HTTPServerResponse(status: status, headers: fields, body: .bytes(JSONWriter().bytes(from: value)))
    }

    /// An event stream (`text/event-stream`, not cached) written by `producer`.
    public static func eventStream(_ producer: @escaping @Sendable (HTTPResponseStream) async -> Void)
        -> HTTPServerResponse
    {
        HTTPServerResponse(
            status: 200,
            headers: HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]),
            body: .stream(producer))
    }

    /// The body bytes when the body is whole (tests).
    public var bodyBytes: [UInt8]? {
        if case .bytes(let bytes) = body { return bytes }
        return nil
    }
}
