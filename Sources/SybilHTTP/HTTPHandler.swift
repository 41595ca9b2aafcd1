/// What the server runs for each request. As soon as a request's head is read, the handler
/// resolves it once into its ``HTTPRoute`` (``route(for:)``); every later decision about the
/// request — its body limit, an answer from the head, a body consumer, an answer given at once
/// on the event-loop thread, the answer on a task of its own — is that route's. Responses on
/// one connection go out in request order.
public protocol HTTPHandler: Sendable {
    /// The route of the request with `head`: called once per request, on the event-loop
    /// thread, as soon as its head is read (before any of its body). It must not block, do I/O
    /// or call an actor; whatever it looks up, the returned route carries.
    func route(for head: HTTPRequestHead) -> any HTTPRoute

    /// The response to a request that could not be read (400, 408, 413, 431, 501, 503, 505).
    func refusal(status: Int, message: String) -> HTTPServerResponse
}

extension HTTPHandler where Self: HTTPRoute {
    /// A handler with nothing to look up answers every request itself.
    public func route(for head: HTTPRequestHead) -> any HTTPRoute { self }
}
