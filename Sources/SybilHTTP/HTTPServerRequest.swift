/// A complete request as a handler sees it: the head, the whole body (or the consumer that
/// took it as it arrived) and the parsed query.
public struct HTTPServerRequest: Sendable {
    /// Start line and header fields.
    public var head: HTTPRequestHead
    /// The body (empty when there was none, or when ``consumedBody`` took it).
    public var body: [UInt8]
    /// The handler's body consumer, finished, when the body was streamed into one.
    public var consumedBody: (any HTTPRequestBodyConsumer)?
    /// The end of the client's input on the request's connection: a handler that waits for
    /// news stops waiting when it ends and answers with what it has (see ``HTTPInputEnd``).
    /// A request built outside a server has an input that never ends.
    public var inputEnd = HTTPInputEnd.never

    /// Creates a request (tests build them directly).
    public init(head: HTTPRequestHead, body: [UInt8] = [], consumedBody: (any HTTPRequestBodyConsumer)? = nil) {
        self.head = head
        self.body = body
        self.consumedBody = consumedBody
    }

    /// Creates a request from its parts (tests).
    public init(method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.init(
            head: HTTPRequestHead(method: method, target: target, minorVersion: 1, headers: HTTPHeaders(headers)),
            body: body)
    }

    /// The method, e.g. `GET`.
    public var method: String { head.method }
    /// The path without the query, percent-decoding left to the routes.
    public var path: String { head.path }
    /// The header fields.
    public var headers: HTTPHeaders { head.headers }

    /// The query's name–value pairs in order, each decoded by
    /// ``PercentEscapes/queryComponent(_:)`` (`+` is a space there, and only there).
    public var query: [(name: String, value: String)] {
        guard let mark = head.target.firstIndex(of: "?") else { return [] }
        return head.target[head.target.index(after: mark)...].split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEscapes.queryComponent(parts[0])
            let value = parts.count > 1 ? PercentEscapes.queryComponent(parts[1]) : ""
            return (name, value)
        }
    }
}
