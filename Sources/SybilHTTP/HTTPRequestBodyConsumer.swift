/// Takes a request's body piece by piece as it arrives, instead of the server collecting it
/// whole: a handler offers one for a request head (``HTTPRoute/bodyConsumer(for:)``), the
/// event loop feeds it every piece the request parser reads, and the handler finds it again,
/// finished, in ``HTTPServerRequest/consumedBody``.
///
/// It runs on the event-loop thread, so each call must be quick and must not block. A value
/// type: the loop owns it until the request is complete, then hands it to the handler task.
public protocol HTTPRequestBodyConsumer: Sendable {
    /// Takes the next piece of the body; throwing answers the request at once with the
    /// refusal's response, reads no more of it, and closes the connection after the answer.
    mutating func consume(_ bytes: [UInt8]) throws(HTTPBodyRefusal)

    /// The body is complete; throwing answers the request with the refusal's response.
    mutating func finish() throws(HTTPBodyRefusal)
}
