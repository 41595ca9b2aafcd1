import SybilCore
import SybilHTTP

/// Dispatch by the ``RouteTable``: a path no route has is a 404, a method its routes lack a
/// 405 with `Allow`, both decided from the head (the body is never buffered); a route's body
/// limit and body consumer are its own; its handler's errors become the shared error body
/// (``APIError``), and any other failure a generic 500 whose cause goes to the ``ServerLog``.
/// Authentication is not here: ``AuthorizingHandler`` stands in front.
struct RoutingHandler: HTTPHandler {
    /// The routes served.
    let table: RouteTable
    /// What the handlers answer with.
    let surfaces: ServerSurfaces
    /// Where the causes of 500 answers go.
    let log: ServerLog

    func bodyLimit(for head: HTTPRequestHead) -> Int {
        guard case .route(let route, _) = table.match(method: head.method, path: head.path) else {
            return Route.BodyLimit.standard.limit(for: head)
        }
        return route.bodyLimit.limit(for: head)
    }

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        headResponse(for: head, matching: table.match(method: head.method, path: head.path))
    }

    /// ``headResponse(for:)`` for the table's `match` of `head` (``AuthorizingHandler`` has it).
    func headResponse(for head: HTTPRequestHead, matching match: RouteTable.Match) -> HTTPServerResponse? {
        Self.unmatched(match, method: head.method, path: head.path)
    }

    func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        bodyConsumer(for: head, matching: table.match(method: head.method, path: head.path))
    }

    /// ``bodyConsumer(for:)`` for the table's `match` of `head`.
    func bodyConsumer(for head: HTTPRequestHead, matching match: RouteTable.Match)
        -> (any HTTPRequestBodyConsumer)?
    {
        guard case .route(let route, _) = match else { return nil }
        return route.bodyConsumer?(surfaces, head)
    }

    func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        immediateResponse(to: request, matching: table.match(method: request.method, path: request.path))
    }

    /// ``immediateResponse(to:)`` for the table's `match` of `request`: the route's
    /// ``Route/immediate`` answer when it has one now; 404 and 405 are answered at once too.
    func immediateResponse(to request: HTTPServerRequest, matching match: RouteTable.Match) -> HTTPServerResponse? {
        guard case .route(let route, let parameters) = match else {
            return Self.unmatched(match, method: request.method, path: request.path)
        }
        return route.immediate?(surfaces, request, parameters)
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await handle(request, matching: table.match(method: request.method, path: request.path))
    }

    /// ``handle(_:)`` for the table's `match` of `request`.
    func handle(_ request: HTTPServerRequest, matching match: RouteTable.Match) async -> HTTPServerResponse {
        guard case .route(let route, let parameters) = match else {
            return Self.unmatched(match, method: request.method, path: request.path)
                ?? APIError.internalFailure.response
        }
        do {
            return try await route.handler(surfaces, request, parameters)
        } catch let error as APIError {
            var response = error.response
            // RFC 6455 §4.4: a 426 for the WebSocket version names the one spoken.
            if error.status == 426 { response.headers.set("Sec-WebSocket-Version", WebSocketUpgrade.version) }
            return response
        } catch let error as JSONError {
            return APIError.invalid(error.message, param: error.path.description).response
        } catch {
            // The cause (SQL, paths, SQLite's words) is for the operator, never the client.
            log("sybil serve: \(request.method) \(route.template) failed: \(error)")
            return APIError.internalFailure.response
        }
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        APIError(status: status, message: message).response
    }

    /// The 404 or 405 (with `Allow`) for a request no route answers, `nil` for a route.
    private static func unmatched(_ match: RouteTable.Match, method: String, path: String) -> HTTPServerResponse? {
        switch match {
        case .route: return nil
        case .notFound: return APIError.notFound("No route \(method) \(path).").response
        case .methodNotAllowed(let allowed):
            let methods = allowed.joined(separator: ", ")
            var response = APIError(status: 405, message: "\(path) takes \(methods), not \(method).").response
            response.headers.set("Allow", methods)
            return response
        }
    }
}
