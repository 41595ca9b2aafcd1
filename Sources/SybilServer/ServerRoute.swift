/// Every route the reference server has: method, path template, and whether it needs the
/// bearer token. `docs/api/openapi.yaml` must describe each REST route (a test compares).
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

    /// The HTTP method.
    public var method: String {
        switch self {
        case .recordsBatch: "POST"
        case .chatCompletions, .agentMessagesSubmit, .agentReadPost, .agentUpload, .workspacesRPC, .webSearch: "POST"
        default: "GET"
        }
    }

    /// The path, with `{name}` for a parameter segment.
    public var template: String {
        switch self {
        case .health: "/healthz"
        case .chatCompletions: "/v1/chat/completions"
        case .chatStreamEvents: "/v1/chat/completions/{streamId}/events"
        case .modelsList: "/v1/models"
        case .modelGet: "/v1/models/{modelId}"
        case .agentDescriptor: "/agent/descriptor"
        case .agentMessagesList, .agentMessagesSubmit: "/agent/messages"
        case .agentReadGet, .agentReadPost: "/agent/read"
        case .agentStream: "/agent/stream"
        case .agentUpload: "/agent/uploads"
        case .agentUploadOriginal: "/agent/uploads/{uploadId}/original"
        case .workspacesRPC: "/v1/workspaces/rpc"
        case .workspacesEvents: "/v1/workspaces/events"
        case .debugWebSocketEcho: "/debug/ws-echo"
        case .recordsBatch: "/records/batch"
        case .recordsList: "/records"
        case .webSearch: "/v1/web-search"
        }
    }

    /// Whether the route is a WebSocket (not described by OpenAPI as REST).
    public var isWebSocket: Bool { self == .agentStream || self == .debugWebSocketEcho }

    /// Whether the bearer token is required.
    public var requiresAuthorization: Bool { self != .health && self != .debugWebSocketEcho }

    /// The path prefix under which every Sybil API route is served too.
    public static let basePath = "/api"

    /// Whether the route is also served under ``basePath``.
    public var isUnderBasePath: Bool { self != .debugWebSocketEcho }

    /// The route for `method` and `path` (at the root or under ``basePath``) with its
    /// parameters, `.methodNotAllowed` with the allowed methods when only the path matches,
    /// or `.notFound`. `/api` alone and paths that merely start with the letters (`/apix/…`)
    /// are not found.
    public static func match(method: String, path: String) -> Match {
        if path.hasPrefix(basePath + "/") {
            return match(method: method, path: String(path.dropFirst(basePath.count)), underBasePath: true)
        }
        return match(method: method, path: path, underBasePath: false)
    }

    private static func match(method: String, path: String, underBasePath: Bool) -> Match {
        var allowed: [String] = []
        for route in staticRoutes[path] ?? [] where !underBasePath || route.isUnderBasePath {
            if route.method == method || (method == "HEAD" && route.method == "GET") { return .route(route, [:]) }
            allowed.append(route.method)
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed) }
        for route in parameterRoutes where !underBasePath || route.isUnderBasePath {
            guard let parameters = route.parameters(in: path) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .route(route, parameters)
            }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// What ``match(method:path:)`` found.
    public enum Match: Sendable, Equatable {
        case route(ServerRoute, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    /// Routes without parameters by exact path: most requests match with one lookup.
    private static let staticRoutes: [String: [ServerRoute]] = Dictionary(
        grouping: allCases.filter { !$0.template.contains("{") }, by: \.template)
    private static let parameterRoutes = allCases.filter { $0.template.contains("{") }

    private func parameters(in path: String) -> [String: String]? {
        let templateParts = template.split(separator: "/", omittingEmptySubsequences: false)
        let pathParts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard templateParts.count == pathParts.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(templateParts, pathParts) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                guard !actual.isEmpty else { return nil }
                parameters[String(expected.dropFirst().dropLast())] = PercentDecoding.pathSegment(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
