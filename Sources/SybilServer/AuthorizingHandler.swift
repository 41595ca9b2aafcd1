/// A handler behind the bearer-token check made from each request's head: a request to a
/// route that needs the token and lacks it is answered (401, or 400 for two `Authorization`
/// fields) before any of its body is read (``HTTPHandler/headResponse(for:)``), so a
/// token-less upload costs the server nothing but its head. Everything else is the wrapped
/// handler's; `GET /healthz` stays open.
struct AuthorizingHandler<Wrapped: HTTPHandler>: HTTPHandler {
    /// The handler that answers authorized requests.
    let wrapped: Wrapped
    /// The token rule.
    let authorization: BearerAuthorization

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        if case .route(let route, _) = ServerRoute.match(method: head.method, path: head.path),
            route.requiresAuthorization, let refusal = authorization.refusal(for: head.headers)
        {
            return refusal
        }
        return wrapped.headResponse(for: head)
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int { wrapped.bodyLimit(for: head) }

    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        wrapped.bodyConsumer(for: head)
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse { await wrapped.handle(request) }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        wrapped.refusal(status: status, message: message)
    }
}
