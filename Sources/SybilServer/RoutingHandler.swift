import SybilCore
import SybilHTTP

/// Dispatch by the ``RouteTable``: the one lookup of a request's head (``resolve(_:)``), then
/// its ``ResolvedRoute`` answers — a path no route has is a 404, a method its routes lack a 405
/// with `Allow`, both decided from the head (the body is never buffered); a route's body limit
/// and body consumer are its own; its handler's errors become the shared error body
/// (``APIError``), and any other failure a generic 500 whose cause goes to the ``ServerLog``.
/// Authentication is not here: ``AuthorizingHandler`` stands in front.
struct RoutingHandler: Sendable {
    /// The routes served.
    let table: RouteTable
    /// What answers a request once its route is resolved (it holds no table: a resolved
    /// request cannot be looked up again).
    let answers: RouteAnswers

    /// Dispatch by `table` to `surfaces`, the causes of 500 answers to `log`.
    init(table: RouteTable, surfaces: ServerSurfaces, log: ServerLog) {
        self.table = table
        answers = RouteAnswers(surfaces: surfaces, log: log)
    }

    /// What the routes answer with.
    var surfaces: ServerSurfaces { answers.surfaces }

    /// The request with `head` resolved: the table's one lookup; `refusal` is the auth
    /// middleware's answer from the same head, when it refused.
    func resolve(_ head: HTTPRequestHead, refusal: HTTPServerResponse? = nil) -> ResolvedRoute {
        ResolvedRoute(match: table.match(method: head.method, path: head.path), refusal: refusal, answers: answers)
    }
}

/// What answers requests whose route was resolved: the app's surfaces, and the log for the
/// causes of 500 answers. One per server, shared by every ``ResolvedRoute``.
final class RouteAnswers: Sendable {
    /// What the handlers answer with.
    let surfaces: ServerSurfaces
    /// Where the causes of 500 answers go.
    let log: ServerLog

    init(surfaces: ServerSurfaces, log: ServerLog) {
        self.surfaces = surfaces
        self.log = log
    }

    /// The answer of `route`'s handler to `request`, its errors as the shared body.
    func answer(_ request: HTTPServerRequest, route: Route, parameters: PathParameters) async -> HTTPServerResponse {
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

    /// The 404 or 405 (with `Allow`) for a request no route answers, `nil` for a route.
    static func unmatched(_ match: RouteTable.Match, method: String, path: String) -> HTTPServerResponse? {
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
