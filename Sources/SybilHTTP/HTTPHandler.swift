/// What the server runs for each request. Every complete request is first offered to
/// ``immediateResponse(to:)`` on the event-loop thread; when that gives no answer, `handle` is
/// called on a task of its own. Responses on one connection go out in request order.
public protocol HTTPHandler: Sendable {
    /// The largest body accepted for a request with `head` (larger ones are answered 413
    /// before they are read).
    func bodyLimit(for head: HTTPRequestHead) -> Int

    /// The answer to a request that its head alone decides (a 401 for a missing token, say),
    /// or `nil` to read its body and call ``handle(_:)``. Called on the event-loop thread once
    /// the head is read, before any of the body is buffered; when it answers, no `100
    /// Continue` is sent, the body is never buffered (a short declared one is read and
    /// dropped, else the connection closes after the answer) and ``handle(_:)`` is not called.
    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse?

    /// A consumer that takes the body of a request with `head` as it arrives, or `nil` to
    /// have it collected whole into ``HTTPServerRequest/body``. Called on the event-loop
    /// thread once the head is read.
    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)?

    /// The answer to `request` when it can be given at once without suspending, or `nil` to
    /// have ``handle(_:)`` answer it on a task of its own. Called on the event-loop thread for
    /// every complete request, when its turn on the connection comes; an answer here spares the
    /// request its task and the switches to an executor thread and back. Every connection
    /// waits while it runs: it must not block, do I/O, wait for a lock held for long or call
    /// an actor, and it reads only state that is safe to read from any thread.
    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse?

    /// The response to `request`. Must not throw: failures are responses too.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse

    /// The response to a request that could not be read (400, 408, 413, 431, 501, 503, 505).
    func refusal(status: Int, message: String) -> HTTPServerResponse
}

extension HTTPHandler {
    /// Every request's body is read unless a handler says otherwise.
    public func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? { nil }

    /// Every request is handled on a task unless a handler says otherwise.
    public func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? { nil }

    /// Bodies are collected whole unless a handler says otherwise.
    public func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? { nil }
}
