import Foundation
import SybilCore
import SybilHTTP
import SybilNet

/// The reference server's request handler: the routes of ``RouteTable/sybil`` behind the one
/// auth middleware (``AuthorizingHandler``: the bearer token, checked in constant time from
/// the head, on every route the table says needs it), every failure the shared error body.
/// Nothing a client sends makes it throw or crash.
public final class SybilServerApp: HTTPHandler {
    private let options: SybilServerOptions
    private let time: ServerTime
    private let chats: ChatCompletionsService
    let agentRoom: AgentRoomService
    let desktop: WorkspaceDesktopService
    let records: RecordsService
    let webSearch: WebSearchService
    /// The routes behind the auth middleware: every request goes through it.
    let handler: AuthorizingHandler

    /// Opens storage, builds the surfaces and starts their work (the Agent room's turns);
    /// `upstream` carries forwarded chats (URLSession when `options.upstream` is set and none is
    /// given); `random` draws chat stream ids; `log` receives the causes of 500 answers and the
    /// Agent room's failed store steps. The surfaces' background work (the Agent's turns,
    /// workspace runs, chat streams' producers and forwarders) prefers `executor`; without one
    /// it runs on the global concurrent executor. An executor given stays the caller's: stop it
    /// only after ``shutdown(within:)`` returned (``ReferenceServer`` does). A store that cannot
    /// start throws ``ServerError/database(path:reason:remedy:)`` naming its file.
    public convenience init(
        options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)? = nil,
        random: any RandomSource = SystemRandomSource(), log: ServerLog = .standardError,
        executor: (any TaskExecutor)? = nil
    ) throws {
        try self.init(
            options: options, time: time, upstream: upstream, random: random, starting: true, log: log,
            executor: executor)
    }

    /// The app; with `starting` false no work starts until ``start()`` (a server that fails to
    /// bind then has nothing to stop).
    init(
        options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)?, random: any RandomSource,
        starting: Bool, log: ServerLog = .standardError, executor: (any TaskExecutor)? = nil
    ) throws {
        self.time = time
        self.options = options
        let storage = options.storage
        // Upstream redirects are never followed: the API key must not travel to another host.
        let forwarding = options.upstream == nil ? nil : (upstream ?? DefaultHTTPClient.make(redirects: .deliver))
        chats = ChatCompletionsService(
            options: options, time: time, upstream: forwarding, random: random, executor: executor)
        // In memory, both surfaces' uploads share one bound.
        let uploadBudget = UploadMemoryBudget(capacity: options.memoryUploadBytes)
        let agentStore = try ServerDatabase.starting(storage, file: AgentRoomStore.file) {
            try AgentRoomStore(storage, failing: nil, budget: uploadBudget)
        }
        agentRoom = AgentRoomService(
            store: agentStore, options: options, time: time, upstream: forwarding, executor: executor, log: log)
        let workspaceStore = try ServerDatabase.starting(storage, file: WorkspaceSchema.file) {
            try WorkspaceStore(storage, agent: ScriptedAgent(seed: options.seed), now: time.epochMilliseconds())
        }
        let uploadStore = try ServerDatabase.starting(storage, file: WorkspaceSchema.file) {
            try WorkspaceUploadStore(storage, budget: uploadBudget)
        }
        desktop = WorkspaceDesktopService(
            store: workspaceStore, uploads: uploadStore, options: options, time: time, executor: executor)
        let recordStore = try ServerDatabase.starting(storage, file: ServerRecordStore.file) {
            try ServerRecordStore(storage)
        }
        records = RecordsService(store: recordStore, time: time)
        webSearch = WebSearchService(options: options, upstream: forwarding)
        let surfaces = ServerSurfaces(
            options: options, chats: chats, agentRoom: agentRoom, desktop: desktop, records: records,
            webSearch: webSearch)
        // The debug echo exists only when asked for: otherwise its path is not found.
        let table = RouteTable.sybil.excluding(options.debugEndpoints ? [] : [.debugWebSocketEcho])
        handler = AuthorizingHandler(
            wrapped: RoutingHandler(table: table, surfaces: surfaces, log: log),
            authorization: BearerAuthorization(token: options.token))
        if starting { start() }
    }

    /// Starts the surfaces' own work (the Agent room's turns); later calls do nothing.
    func start() {
        agentRoom.start()
    }

    /// The request with `head` resolved once: its route in ``RouteTable/sybil`` (the same under
    /// `/api`) with its path parameters, and the token checked by the auth middleware. The
    /// transport asks it for the body limit, a refusal from the head (401 / 400, 404, 405), the
    /// body consumer (a multipart Agent upload from an authorized client is parsed as it
    /// arrives) and the answer.
    public func route(for head: HTTPRequestHead) -> any HTTPRoute {
        handler.route(for: head)
    }

    /// The route's body limit for `head` (its own lookup; the transport asks the route).
    public func bodyLimit(for head: HTTPRequestHead) -> Int {
        handler.bodyLimit(for: head)
    }

    /// A refused token (401 / 400), an unknown path (404) or method (405), decided from the
    /// head alone; `nil` to read the body (its own lookup; the transport asks the route).
    public func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        handler.headResponse(for: head)
    }

    /// The route's body consumer for `head`, `nil` to collect the body (its own lookup).
    public func bodyConsumer(for head: HTTPRequestHead) -> (any HTTPRequestBodyConsumer)? {
        handler.bodyConsumer(for: head)
    }

    /// Stops the work the surfaces own: the Agent room's turns, workspace runs, and chat
    /// streams' producers and forwarders. New work is refused, what runs is cancelled and
    /// awaited until `deadline` passes on the injected clock. Returns the names of the tasks
    /// that had not ended by then (empty when all did). Call after the transport stopped.
    @discardableResult
    public func shutdown(within deadline: Duration = .seconds(5)) async -> [String] {
        async let agent = agentRoom.shutdown(within: deadline)
        async let runs = desktop.shutdown(within: deadline)
        async let streams = chats.shutdown(within: deadline)
        return await agent + runs + streams
    }

    /// The surfaces' background tasks running now: the Agent's turn loop, workspace runs, and
    /// chat streams being produced or forwarded (0 once ``shutdown(within:)`` ended them).
    public var runningTasks: Int {
        agentRoom.runningTasks + desktop.runningTasks + chats.runningTasks
    }

    /// Returns once no surface has work in flight: the Agent room's agent waits for a new
    /// turn, no workspace run is in progress or about to start, and no chat stream is being
    /// produced or forwarded. Tests wait on it for "nothing more will happen".
    public func quiescent() async {
        await agentRoom.quiescent()
        await desktop.quiescent()
        await chats.quiescent()
    }

    /// The error body for a request the transport refused.
    public func refusal(status: Int, message: String) -> HTTPServerResponse {
        handler.refusal(status: status, message: message)
    }

    /// The answer to a request its route gives without suspending (`/healthz`), authorized by
    /// the middleware first; `nil` to have ``handle(_:)`` answer it (its own lookup).
    public func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
        handler.immediateResponse(to: request)
    }

    /// Answers one request: resolved (authorized by the middleware, matched by the table),
    /// then answered by its route; for callers without the transport.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await handler.handle(request)
    }
}
