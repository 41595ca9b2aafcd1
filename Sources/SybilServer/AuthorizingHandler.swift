import SybilHTTP

/// The one authentication middleware: in front of the ``RoutingHandler``, it resolves each
/// request's head once (``route(for:)``) into a ``ResolvedRoute`` that carries the table's
/// match and the auth decision. A request to a route whose table entry needs the bearer token
/// (``Route/Access/bearerToken``) and lacks it is answered (401, or 400 for two
/// `Authorization` fields) from its head, before any of its body is read
/// (``HTTPRoute/headResponse(for:)``), so a token-less upload costs the server nothing but its
/// head and gets no body consumer; the resolved route refuses it at every later step too, so
/// callers without the head step (tests call ``handle(_:)``) are refused as well. Open routes
/// (`/healthz`) and paths no route has pass through (a 404 is not a 401).
struct AuthorizingHandler: HTTPHandler {
    /// The routes and what answers authorized requests.
    let wrapped: RoutingHandler
    /// The token rule.
    let authorization: BearerAuthorization

    /// The request with `head` resolved: the table's lookup and the token check, once each.
    func resolve(_ head: HTTPRequestHead) -> ResolvedRoute {
        let resolved = wrapped.resolve(head)
        guard case .route(let route, _) = resolved.match, route.access == .bearerToken,
            let refusal = authorization.refusal(for: head.headers)
        else { return resolved }
        return ResolvedRoute(match: resolved.match, refusal: refusal, answers: resolved.answers)
    }

    func route(for head: HTTPRequestHead) -> any HTTPRoute { resolve(head) }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        APIError(status: status, message: message).response
    }

    // Each request resolved on its own, for callers without the transport (tests, embedders).

    /// The body limit of a request with `head`.
    func bodyLimit(for head: HTTPRequestHead) -> Int { resolve(head).bodyLimit(for: head) }

    /// The answer from `head` alone: a refused token, 404 or 405; `nil` to read the body.
    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? { resolve(head).headResponse(for: head) }

    /// The body consumer of an authorized request with `head`.
    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        resolve(head).bodyConsumer(for: head)
    }

    /// The answer to `request` given at once, if it has one.
    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        resolve(request.head).immediateResponse(to: request)
    }

    /// The answer to `request`.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await resolve(request.head).handle(request)
    }
}
