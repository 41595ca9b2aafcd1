import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// The workspace desktop surface (docs/api/workspaces.md): `POST /v1/workspaces/rpc` with
/// browsing, chat loads, older and thread pages, submission with receipts, chunked uploads by
/// call key, and `GET /v1/workspaces/events` streaming live overlay, run and session events
/// while the scripted agent runs a turn.
final class WorkspaceDesktopService: Sendable {
    /// Events kept per chat for `Last-Event-ID` replay.
    static let eventRingCapacity = 256
    /// The longest `Last-Event-ID` read; a longer one is treated as unknown.
    static let maximumLastEventIDBytes = 128

    /// The events published so far: the newest `n`, and per chat its ring of recent events
    /// and the newest `n` it has dropped (ids above it are all still in the ring).
    struct EventLog {
        struct Ring {
            var events: [Event] = []
            var dropped: Int64 = 0
        }
        var newest: Int64 = 0
        var rings: [WorkspaceChatKey: Ring] = [:]
        /// Each chat's newest overlay streams have been told of: the base of the next delta.
        var overlays: [WorkspaceChatKey: LiveOverlay] = [:]
    }

    static let chunkSize = Int64(AttachmentUploadBegin.maximumChunkSize)

    let store: WorkspaceStore
    let uploads: WorkspaceUploadStore
    let options: SybilServerOptions
    let time: ServerTime
    let agent: ScriptedAgent
    /// Live subscribers by chat (chats are checked to exist before a stream subscribes), so a
    /// stream receives only its own chat's events, with what slow ones hold bounded.
    let fanOut: WorkspaceEventFanOut
    struct Counters {
        var upload: Int64 = 0
    }

    private let counters = Locked(Counters())
    let log = Locked(EventLog())
    /// Desktops' online state, from the world at start; `desktop.setOnline` changes it.
    private let online: Locked<[String: Bool]>
    /// The running runs' tasks (named `run <runId>`), tracked until they end.
    let runTasks: ServiceTasks
    /// Runs asked to stop: their cancellation ends them as `stopped`, not `failed`.
    let stopping = Locked<Set<String>>([])
    /// Calls with effects run one at a time, so a retry racing its first attempt finds the
    /// first one's answer instead of running it twice.
    private let effects = SerialAsyncChain()

    init(
        store: WorkspaceStore, uploads: WorkspaceUploadStore, options: SybilServerOptions, time: ServerTime,
        fanOut: WorkspaceEventFanOut = WorkspaceEventFanOut(), executor: (any TaskExecutor)? = nil
    ) {
        runTasks = ServiceTasks(executor: executor)
        self.store = store
        self.uploads = uploads
        self.fanOut = fanOut
        self.options = options
        self.time = time
        agent = ScriptedAgent(seed: options.seed)
        online = Locked(Dictionary(uniqueKeysWithValues: WorkspaceWorld.desktops.map { ($0.desktopId, $0.online) }))
    }

    // MARK: RPC

    /// `POST /v1/workspaces/rpc`: the request and every answer go through SybilWire's types.
    func call(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let rpc = try WorkspaceRPCRequest.decode(json: request.body)
        let params = rpc.paramsReader
        let callKey = rpc.callKey
        let result: JSONValue
        switch rpc.method {
        case "desktops.list":
            try params.rejectUnknownKeys([])
            result = WorkspaceDesktop.listJSON(
                WorkspaceWorld.desktops.map {
                    WorkspaceDesktop(desktopId: $0.desktopId, name: $0.name, online: isOnline($0.desktopId))
                })
        case "projects.list":
            try params.rejectUnknownKeys(["desktopId"])
            let desktopId = try onlineDesktop(params)
            result = WorkspaceProject.listJSON(
                WorkspaceWorld.projects.filter { $0.desktopId == desktopId }.map {
                    WorkspaceProject(projectId: $0.projectId, name: $0.name, folder: $0.folder)
                })
        case "sessions.list":
            try params.rejectUnknownKeys(["desktopId", "projectId"])
            let desktopId = try onlineDesktop(params)
            let projectId = try params.nonEmptyString("projectId")
            guard WorkspaceWorld.projects.contains(where: { $0.desktopId == desktopId && $0.projectId == projectId })
            else { throw APIError.notFound("No project \(projectId) on \(desktopId).") }
            var sessions: [WorkspaceSessionSummary] = []
            for session in try await store.sessions(desktopId: desktopId, projectId: projectId) {
                let chat = WorkspaceChatKey(desktopId: desktopId, projectId: projectId, sessionId: session.sessionId)
                sessions.append(
                    WorkspaceSessionSummary(
                        sessionId: session.sessionId, title: session.title, updatedAt: session.updatedAt,
                        running: await store.liveState(chat).runId != nil))
            }
            result = WorkspaceSessionSummary.listJSON(sessions)
        case "run.codexChatLoad":
            try params.rejectUnknownKeys(["desktopId", "projectId", "sessionId", "limit"])
            result = try await load(chat(params), limit: limit(params))
        case "run.codexChatLoadPageBefore":
            try params.rejectUnknownKeys(["desktopId", "projectId", "sessionId", "cursor", "limit"])
            let chat = try await chat(params)
            let before = try Self.sequence(ofCursor: params.nonEmptyString("cursor"), prefix: "cur-")
            let page = try await store.page(chat, threadId: "", before: before, limit: limit(params))
            result = Self.page(page.rows, hasOlder: page.hasOlder, prefix: "cur-")
        case "run.codexChatLoadThread", "run.codexChatLoadThreadPageBefore":
            let paging = rpc.method.hasSuffix("PageBefore")
            try params.rejectUnknownKeys(
                ["desktopId", "projectId", "sessionId", "threadId", "limit"] + (paging ? ["cursor"] : []))
            let chat = try await chat(params)
            let threadId = try params.nonEmptyString("threadId")
            guard try await store.threadExists(chat, threadId: threadId) else {
                throw APIError.notFound("No thread \(threadId) in \(chat.sessionId).")
            }
            let before =
                paging ? try Self.sequence(ofCursor: params.nonEmptyString("cursor"), prefix: "\(threadId):cur-") : nil
            let page = try await store.page(chat, threadId: threadId, before: before, limit: limit(params))
            result = Self.page(page.rows, hasOlder: page.hasOlder, prefix: "\(threadId):cur-", threadId: threadId)
        case WorkspaceSubmission.method:
            let submission = try WorkspaceSubmission.decode(params: params)
            result = try await effects.run { try await self.submit(submission, params: params, callKey: callKey) }
        case WorkspaceRunStop.method:
            let stop = try WorkspaceRunStop.decode(params: params)
            result = try await effects.run { try await self.stop(stop, params: params, callKey: callKey) }
        case "files.chatAttachmentUpload":
            result = try await effects.run { try await self.upload(params, callKey: callKey) }
        case "desktop.setOnline" where options.debugDesktops:
            result = try await setOnline(params, callKey: callKey)
        default:
            throw APIError(
                status: 404, message: "Unknown method '\(rpc.method)'.", code: "unknown_method", param: "method")
        }
        return .json(WorkspaceRPCResult.jsonValue(result))
    }

    // MARK: Desktops

    func isOnline(_ desktopId: String) -> Bool {
        online.withLock { $0[desktopId] ?? false }
    }

    /// `desktop.setOnline` (only with `debugDesktops`): takes a desktop offline or back and
    /// tells its chats' event streams.
    private func setOnline(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        try params.rejectUnknownKeys(["desktopId", "online"])
        guard callKey == nil else {
            throw APIError.invalid("desktop.setOnline takes no callKey; send null.", param: "callKey")
        }
        let desktopId = try params.nonEmptyString("desktopId")
        let value = try params.bool("online")
        guard WorkspaceWorld.desktops.contains(where: { $0.desktopId == desktopId }) else {
            throw APIError.notFound("No desktop \(desktopId).")
        }
        let changed = online.withLock { states in
            defer { states[desktopId] = value }
            return states[desktopId] != value
        }
        if changed {
            for project in WorkspaceWorld.projects where project.desktopId == desktopId {
                for session in try await store.sessions(desktopId: desktopId, projectId: project.projectId) {
                    publish(
                        WorkspaceChatKey(
                            desktopId: desktopId, projectId: project.projectId, sessionId: session.sessionId),
                        .desktop(desktopId: desktopId, online: value))
                }
            }
        }
        return WorkspaceEvent.desktop(desktopId: desktopId, online: value).dataJSON
    }

    // MARK: Loading

    /// The newest window as the contract's envelope, encoded by SybilWire's own type.
    private func load(_ chat: WorkspaceChatKey, limit: Int) async throws -> JSONValue {
        let page = try await store.page(chat, threadId: "", before: nil, limit: limit)
        let activeRun = page.live.runId.map { runId in
            WorkspaceActiveRun(
                runId: runId,
                otherMembers: [JSONMember("startedAt", .number(JSONNumber(page.live.runStartedAt ?? 0)))])
        }
        return WorkspaceChatLoadEnvelope(
            boundaryToken: "bt-000001", codexSessionId: "codex-\(chat.sessionId)", loadState: .ready,
            loadedEntries: Int64(page.rows.count), hasOlderEntries: page.hasOlder,
            oldestCursor: page.hasOlder ? "cur-\(page.rows.first?.sequence ?? 0)" : nil,
            timeline: page.rows.map(\.block), liveOverlay: page.live.overlay,
            runtime: JSONObject([
                JSONMember("model", .string(ChatCompletionsService.model)), JSONMember("sandbox", "workspace-write"),
            ]),
            activeRun: activeRun
        ).jsonValue
    }

    /// An older or thread page, encoded by SybilWire's own type.
    private static func page(_ rows: [WorkspaceHistory.Row], hasOlder: Bool, prefix: String, threadId: String? = nil)
        -> JSONValue
    {
        WorkspaceChatPage(
            threadId: threadId, timeline: rows.map(\.block), hasOlderEntries: hasOlder,
            oldestCursor: hasOlder ? prefix + String(rows.first?.sequence ?? 0) : nil
        ).jsonValue
    }

    // MARK: Helpers

    private func onlineDesktop(_ params: JSONObjectReader) throws -> String {
        try onlineDesktop(try params.nonEmptyString("desktopId"))
    }

    @discardableResult
    private func onlineDesktop(_ desktopId: String) throws -> String {
        guard let desktop = WorkspaceWorld.desktops.first(where: { $0.desktopId == desktopId }) else {
            throw APIError.notFound("No desktop \(desktopId).")
        }
        guard isOnline(desktopId) else {
            throw APIError(
                status: 503, message: "\(desktop.name) is offline; try again when it is back.", code: "desktop_offline",
                retryAfterSeconds: 30)
        }
        return desktopId
    }

    func chat(_ params: JSONObjectReader) async throws -> WorkspaceChatKey {
        try await chat(WorkspaceChatKey.decode(params: params))
    }

    /// `chat` when its desktop is online and the session exists.
    func chat(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatKey {
        try onlineDesktop(chat.desktopId)
        guard try await store.exists(chat) else {
            throw APIError.notFound("No session \(chat.sessionId) in \(chat.projectId) on \(chat.desktopId).")
        }
        return chat
    }

    private func limit(_ params: JSONObjectReader) throws -> Int {
        guard params.optionalValue("limit") != nil else { return 50 }
        return Int(try params.integer("limit", in: 1...200))
    }

    private static func sequence(ofCursor cursor: String, prefix: String) throws -> Int64 {
        guard cursor.hasPrefix(prefix), let value = Int64(cursor.dropFirst(prefix.count)), value > 0 else {
            throw APIError.invalid(
                "'cursor' must be an oldestCursor from an earlier page, got '\(cursor)'.", param: "params.cursor")
        }
        return value
    }

    func nextNumber(_ counter: WritableKeyPath<Counters, Int64> & Sendable) -> Int64 {
        counters.withLock {
            $0[keyPath: counter] += 1
            return $0[keyPath: counter]
        }
    }
}
