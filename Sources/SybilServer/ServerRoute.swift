/// The name of each route the reference server has. What a route is (method, path template,
/// auth, body limit, handler) is declared once, in ``RouteTable/sybil``; these properties read
/// it there. `docs/api/openapi.yaml` must describe each REST route (a test walks the table).
///
/// Every Sybil API route is served at the root (OpenAI SDKs and existing clients) and under
/// ``basePath`` (`/api/agent/messages`, `/api/v1/chat/completions`, `/api/healthz`), as the
/// seed's clients configure their API base URL; the debug echo only at the root.
public enum ServerRoute: String, Sendable, CaseIterable {
    case health
    case chatCompletions
    case chatStreamEvents
    case modelsList
    case modelGet
    case agentDescriptor
    case agentMessagesList
    case agentMessagesSubmit
    case agentReadGet
    case agentReadPost
    case agentStream
    case agentUpload
    case agentUploadOriginal
    case workspacesRPC
    case workspacesEvents
    case debugWebSocketEcho
    case recordsBatch
    case recordsList
    case webSearch

    /// The route's declaration in the table.
    var route: Route {
        guard let route = RouteTable.sybil[self] else { preconditionFailure("route \(self) is not declared") }
        return route
    }

    /// The HTTP method.
    public var method: String { route.method }

    /// The path, with `{name}` for a parameter segment.
    public var template: String { route.template }

    /// Whether the route is a WebSocket (not described by OpenAPI as REST).
    public var isWebSocket: Bool { route.kind == .webSocket }

    /// Whether the bearer token is required.
    public var requiresAuthorization: Bool { route.access == .bearerToken }

    /// The path prefix under which every Sybil API route is served too.
    public static let basePath = RouteTable.basePath

    /// Whether the route is also served under ``basePath``.
    public var isUnderBasePath: Bool { route.underBasePath }

    /// The route for `method` and `path` (at the root or under ``basePath``) with its path
    /// parameters as sent, `.methodNotAllowed` with the allowed methods when only the path
    /// matches, or `.notFound`: ``RouteTable/match(method:path:)`` on ``RouteTable/sybil``.
    public static func match(method: String, path: String) -> Match {
        switch RouteTable.sybil.match(method: method, path: path) {
        case .route(let route, let parameters): .route(route.name, parameters.raw)
        case .methodNotAllowed(let allowed): .methodNotAllowed(allowed)
        case .notFound: .notFound
        }
    }

    /// What ``match(method:path:)`` found.
    public enum Match: Sendable, Equatable {
        case route(ServerRoute, [String: String])
        case methodNotAllowed([String])
        case notFound
    }
}
