import SybilHTTP

/// The one authentication middleware: in front of the ``RoutingHandler``, a request to a route
/// whose table entry needs the bearer token (``Route/Access/bearerToken``) and lacks it is
/// answered (401, or 400 for two `Authorization` fields) from its head, before any of its body
/// is read (``HTTPHandler/headResponse(for:)``), so a token-less upload costs the server
/// nothing but its head and gets no body consumer. ``immediateResponse(to:)`` and ``handle(_:)``
/// make the same check, so each is safe when called without the head step (tests call `handle`
/// directly). Open
/// routes (`/healthz`) and paths no route has pass through (a 404 is not a 401).
struct AuthorizingHandler: HTTPHandler {
    /// The routes and what answers authorized requests.
    let wrapped: RoutingHandler
    /// The token rule.
    let authorization: BearerAuthorization

    /// The answer refusing a request with `head`, or `nil` when it may pass.
    func authorizationRefusal(for head: HTTPRequestHead) -> HTTPServerResponse? {
        authorizationRefusal(for: head, matching: wrapped.table.match(method: head.method, path: head.path))
    }

    /// The same, for the table's `match` of `head`: each decision below looks the route up
    /// once and hands the match on.
    private func authorizationRefusal(for head: HTTPRequestHead, matching match: RouteTable.Match)
        -> HTTPServerResponse?
    {
        guard case .route(let route, _) = match, route.access == .bearerToken else { return nil }
        return authorization.refusal(for: head.headers)
    }

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        let match = wrapped.table.match(method: head.method, path: head.path)
        return authorizationRefusal(for: head, matching: match) ?? wrapped.headResponse(for: head, matching: match)
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int { wrapped.bodyLimit(for: head) }

    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        let match = wrapped.table.match(method: head.method, path: head.path)
        return authorizationRefusal(for: head, matching: match) == nil
            ? wrapped.bodyConsumer(for: head, matching: match) : nil
    }

    /// A refused request is answered at once; an authorized one as its route answers it at
    /// once, if it can.
    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        let match = wrapped.table.match(method: request.method, path: request.path)
        if let refusal = authorizationRefusal(for: request.head, matching: match) { return refusal }
        return wrapped.immediateResponse(to: request, matching: match)
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let match = wrapped.table.match(method: request.method, path: request.path)
        if let refusal = authorizationRefusal(for: request.head, matching: match) { return refusal }
        return await wrapped.handle(request, matching: match)
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        wrapped.refusal(status: status, message: message)
    }
}
