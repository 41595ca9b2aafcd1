/// What a handler resolved from one request's head, once (``HTTPHandler/route(for:)``): its
/// route and path parameters, its access decision, its body limit. The transport asks it every
/// later question about that request — the body limit, an answer from the head, a body
/// consumer, an answer given at once, the answer on a task — so whatever a handler looks up
/// for a request is looked up once, from its head.
public protocol HTTPRoute: Sendable {
    /// The largest body accepted for the request with `head` (larger ones are answered 413
    /// before they are read).
    func bodyLimit(for head: HTTPRequestHead) -> Int

    /// The answer to the request that its head alone decides (a 401 for a missing token, say),
    /// or `nil` to read its body. Called on the event-loop thread once the head is read, before
    /// any of the body is buffered; when it answers, no `100 Continue` is sent, the body is
    /// never buffered (a short declared one is read and dropped, else the connection closes
    /// after the answer) and neither ``immediateResponse(to:)`` nor ``handle(_:)`` is called.
    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse?

    /// A consumer that takes the body of the request with `head` as it arrives, or `nil` to
    /// have it collected whole into ``HTTPServerRequest/body``. Called on the event-loop thread
    /// once the head is read.
    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)?

    /// The answer to `request` when it can be given at once without suspending, or `nil` to
    /// have ``handle(_:)`` answer it on a task of its own. Called on the event-loop thread when
    /// the request's turn on its connection comes; an answer here spares the request its task
    /// and the switches to an executor thread and back. Every connection waits while it runs:
    /// it must not block, do I/O, wait for a lock held for long or call an actor, and it reads
    /// only state that is safe to read from any thread.
    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse?

    /// The response to `request`. Must not throw: failures are responses too.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse
}

extension HTTPRoute {
    /// Every request's body is read unless a route says otherwise.
    public func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? { nil }

    /// Bodies are collected whole unless a route says otherwise.
    public func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? { nil }

    /// Every request is handled on a task unless a route says otherwise.
    public func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? { nil }
}
