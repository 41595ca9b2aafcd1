/// The routes of a server, each declared once (``Route``), and the one lookup every decision
/// uses: dispatch, 404 / 405 with `Allow`, the auth decision and the body limit from the head.
///
/// Every route is served at the root and, unless it says otherwise, under ``basePath``
/// (`/api/agent/messages`), as the seed's clients configure their API base URL. `/api` alone
/// and paths that merely start with the letters (`/apix/…`) are not found.
struct RouteTable: Sendable {
    /// The path prefix under which routes are served too.
    static let basePath = "/api"
    /// ``basePath`` with the slash a path under it continues with.
    private static let basePathPrefix = basePath + "/"

    /// What ``match(method:path:)`` found.
    enum Match: Sendable {
        /// The route, with its path parameters as sent.
        case route(Route, PathParameters)
        /// The path exists, but not for this method: these are.
        case methodNotAllowed([String])
        /// No route has this path.
        case notFound
    }

    /// Every route, in declaration order.
    let routes: [Route]
    private let byName: [ServerRoute: Route]
    /// Routes without parameters by exact path: most requests match with one lookup.
    private let staticRoutes: [String: [Route]]
    private let parameterRoutes: [Route]

    /// The table of `routes`; a name or a method and template declared twice is a bug.
    init(_ routes: [Route]) {
        self.routes = routes
        byName = Dictionary(routes.map { ($0.name, $0) }) { first, _ in
            preconditionFailure("route \(first.name) is declared twice")
        }
        let operations = Set(routes.map { "\($0.method) \($0.template)" })
        precondition(operations.count == routes.count, "a method and path template are declared twice")
        staticRoutes = Dictionary(grouping: routes.filter { !$0.hasParameters }, by: \.template)
        parameterRoutes = routes.filter(\.hasParameters)
    }

    /// The route named `name` (every ``ServerRoute`` is in ``sybil``).
    subscript(name: ServerRoute) -> Route? { byName[name] }

    /// The table without the routes named in `names` (the debug echo unless asked for).
    func excluding(_ names: Set<ServerRoute>) -> RouteTable {
        RouteTable(routes.filter { !names.contains($0.name) })
    }

    /// The route for `method` and `path` (at the root or under ``basePath``) with its
    /// parameters, `.methodNotAllowed` with the allowed methods when only the path matches, or
    /// `.notFound`.
    func match(method: String, path: String) -> Match {
        if path.hasPrefix(Self.basePathPrefix) {
            let rest = path.dropFirst(Self.basePath.count)
            return match(method: method, path: rest, key: String(rest), underBasePath: true)
        }
        return match(method: method, path: Substring(path), key: path, underBasePath: false)
    }

    /// `key` is `path` as a `String`, for the static routes' dictionary.
    private func match(method: String, path: Substring, key: String, underBasePath: Bool) -> Match {
        var allowed: [String] = []
        for route in staticRoutes[key] ?? [] where !underBasePath || route.underBasePath {
            if route.answers(method) { return .route(route, PathParameters()) }
            allowed.append(route.method)
        }
        if !allowed.isEmpty { return .methodNotAllowed(allowed) }
        for route in parameterRoutes where !underBasePath || route.underBasePath {
            guard let parameters = route.parameters(in: path) else { continue }
            if route.answers(method) { return .route(route, parameters) }
            allowed.append(route.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
