import SybilHTTP

/// One request's route, resolved once from its head (``AuthorizingHandler/route(for:)``): the
/// table's match (the ``Route`` with its path parameters, or why none answers) and the auth
/// middleware's decision. The transport carries it from the head to the handler, so the body
/// limit, the answer from the head, the body consumer, the answer given at once and the
/// handler all read this one match; it holds no table to look anything up again.
struct ResolvedRoute: HTTPRoute {
    /// What the table found for the head.
    let match: RouteTable.Match
    /// The auth middleware's answer refusing the request (401 / 400), `nil` when it may pass.
    let refusal: HTTPServerResponse?
    /// What answers it.
    let answers: RouteAnswers

    /// The route's limit; an unknown path's the standard one (its answer comes from the head).
    func bodyLimit(for head: HTTPRequestHead) -> Int {
        guard case .route(let route, _) = match else { return Route.BodyLimit.standard.limit(for: head) }
        return route.bodyLimit.limit(for: head)
    }

    /// A refused token, an unknown path (404) or method (405): decided from the head.
    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        refusal ?? RouteAnswers.unmatched(match, method: head.method, path: head.path)
    }

    /// The route's consumer, for an authorized request only.
    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        guard refusal == nil, case .route(let route, _) = match else { return nil }
        return route.bodyConsumer?(answers.surfaces, head)
    }

    /// A refusal or an unmatched request is answered at once; an authorized one as its route
    /// answers it at once (``Route/immediate``), if it can.
    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        if let refusal { return refusal }
        guard case .route(let route, let parameters) = match else {
            return RouteAnswers.unmatched(match, method: request.method, path: request.path)
        }
        return route.immediate?(answers.surfaces, request, parameters)
    }

    /// The route's handler's answer (a refusal or an unmatched request as from the head, for
    /// callers without the head step).
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let refusal { return refusal }
        guard case .route(let route, let parameters) = match else {
            return RouteAnswers.unmatched(match, method: request.method, path: request.path)
                ?? APIError.internalFailure.response
        }
        return await answers.answer(request, route: route, parameters: parameters)
    }
}
