import SybilCore
import SybilHTTP

/// One route of the reference server, declared once in the ``RouteTable``: its name, method,
/// path template, whether it needs the bearer token, its body limit and what answers it (at once
/// when it can, else on a task). The
/// server dispatches by it, the auth middleware (``AuthorizingHandler``) and the body limit
/// read it from the head, and the OpenAPI test compares docs/api/openapi.yaml with it. A class
/// (immutable): every request's route decisions pass it around, one reference instead of its
/// eleven fields.
final class Route: Sendable {
    /// Who may call the route.
    enum Access: Sendable, Hashable {
        /// Only a request with the server's bearer token (``BearerAuthorization``).
        case bearerToken
        /// Anyone (`/healthz`, the opt-in debug echo).
        case open
    }

    /// Whether the route answers REST requests (described by OpenAPI) or opens a WebSocket.
    enum Kind: Sendable, Hashable {
        case rest
        case webSocket
    }

    /// The largest body a request may declare or send, decided from its head.
    enum BodyLimit: Sendable {
        /// The same for every request.
        case bytes(Int)
        /// By the head (an upload's limit depends on its Content-Type).
        case byHead(@Sendable (HTTPRequestHead) -> Int)

        /// 1 MiB: the limit of a route that declares none.
        static let standard = BodyLimit.bytes(1 << 20)

        /// The limit for a request with `head`.
        func limit(for head: HTTPRequestHead) -> Int {
            switch self {
            case .bytes(let bytes): bytes
            case .byHead(let rule): rule(head)
            }
        }
    }

    /// What answers a matched, authorized request: the app's surfaces, the request and its
    /// path parameters. Errors it throws become the shared error body (``RoutingHandler``).
    typealias Handler = @Sendable (ServerSurfaces, HTTPServerRequest, PathParameters) async throws -> HTTPServerResponse

    /// What answers a matched, authorized request at once, on the server's event-loop thread,
    /// when it can without suspending (see ``HTTPRoute/immediateResponse(to:)``), or `nil` to
    /// leave it to ``Handler``. It must not block, wait for a lock held for long or call an
    /// actor; a bounded read of a store's connection that never waits for the store (see
    /// ``LockedDatabase``) is the most it may do.
    typealias ImmediateHandler = @Sendable (ServerSurfaces, HTTPServerRequest, PathParameters) -> HTTPServerResponse?

    /// A consumer taking the body of a request with the head as it arrives (see
    /// ``HTTPRoute/bodyConsumer(for:)``), or `nil` to have it collected whole.
    typealias BodyConsumer = @Sendable (ServerSurfaces, HTTPRequestHead) -> (any HTTPRequestBodyConsumer)?

    /// One piece of a path template.
    enum Segment: Sendable, Hashable {
        /// Must be exactly this text.
        case literal(String)
        /// Any non-empty segment, kept under this name (``PathParameters``).
        case parameter(String)
    }

    /// The route's name (tests and logs).
    let name: ServerRoute
    /// The HTTP method (`HEAD` is served by a `GET` route).
    let method: String
    /// The path with `{name}` for a parameter segment, e.g. `/agent/uploads/{uploadId}/original`.
    let template: String
    /// The template split at `/`.
    let segments: [Segment]
    /// Who may call it.
    let access: Access
    /// Its body limit.
    let bodyLimit: BodyLimit
    /// REST or WebSocket.
    let kind: Kind
    /// Whether it is served under ``RouteTable/basePath`` too.
    let underBasePath: Bool
    /// Takes the body as it arrives, when the route wants that.
    let bodyConsumer: BodyConsumer?
    /// What answers it.
    let handler: Handler
    /// What answers it without suspending when it can, before ``handler`` is asked.
    let immediate: ImmediateHandler?

    /// Declares a route; by default it needs the token, takes 1 MiB, is REST and is served
    /// under ``RouteTable/basePath`` too.
    init(
        _ name: ServerRoute, _ method: String, _ template: String, access: Access = .bearerToken,
        bodyLimit: BodyLimit = .standard, kind: Kind = .rest, underBasePath: Bool = true,
        bodyConsumer: BodyConsumer? = nil, immediate: ImmediateHandler? = nil, handler: @escaping Handler
    ) {
        self.name = name
        self.method = method
        self.template = template
        segments = template.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        self.access = access
        self.bodyLimit = bodyLimit
        self.kind = kind
        self.underBasePath = underBasePath
        self.bodyConsumer = bodyConsumer
        self.immediate = immediate
        self.handler = handler
    }

    /// Whether the template has a parameter segment.
    var hasParameters: Bool {
        segments.contains { if case .parameter = $0 { true } else { false } }
    }

    /// Whether the route answers `method` (`HEAD` as `GET`).
    func answers(_ method: String) -> Bool {
        self.method == method || (method == "HEAD" && self.method == "GET")
    }

    /// The parameters of `path` when it fits the template (each parameter segment non-empty),
    /// else `nil`.
    func parameters(in path: Substring) -> PathParameters? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)[...]
        guard parts.count == segments.count else { return nil }
        var found: [String: String] = [:]
        for segment in segments {
            let part = parts.removeFirst()
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                found[name] = String(part)
            }
        }
        return PathParameters(found)
    }
}
