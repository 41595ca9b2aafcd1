import Foundation
import SybilCore
import SybilWire
import Synchronization

/// The workspace desktop surface (docs/api/workspaces.md): `POST /v1/workspaces/rpc` with
/// browsing, chat loads, older and thread pages, submission with receipts, chunked uploads by
/// call key, and `GET /v1/workspaces/events` streaming live overlay, run and session events
/// while the scripted agent runs a turn.
final class WorkspaceDesktopService: Sendable {
    /// One live event of a chat.
    struct Event: Sendable {
        var chat: WorkspaceStore.ChatKey
        var id: Int64
        var type: String
        var data: JSONValue
    }

    static let chunkSize: Int64 = 1 << 20
    static let maximumUploadBytes: Int64 = 1 << 30

    let store: WorkspaceStore
    let options: SybilServerOptions
    let time: ServerTime
    let agent: ScriptedAgent
    private let events = Broadcast<Event>()
    struct Counters {
        var event: Int64 = 0
        var run: Int64 = 0
        var upload: Int64 = 0
    }

    private let counters = Mutex(Counters())
    /// Calls with effects run one at a time, so a retry racing its first attempt finds the
    /// first one's answer instead of running it twice.
    private let effects = SerialAsyncChain()

    init(store: WorkspaceStore, options: SybilServerOptions, time: ServerTime) {
        self.store = store
        self.options = options
        self.time = time
        agent = ScriptedAgent(seed: options.seed)
    }

    // MARK: RPC

    /// `POST /v1/workspaces/rpc`.
    func call(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let envelope = try RequestBody.object(request.body)
        try envelope.rejectUnknownKeys(["method", "callKey", "params"])
        let method = try envelope.nonEmptyString("method")
        let callKey = try envelope.nullableString("callKey")
        let params = try JSONObjectReader(envelope.value("params"), at: JSONPath.root.appending(key: "params"))
        let result: JSONValue
        switch method {
        case "desktops.list":
            try params.rejectUnknownKeys([])
            result = [
                "desktops": .array(
                    WorkspaceWorld.desktops.map {
                        ["desktopId": .string($0.desktopId), "name": .string($0.name), "online": .bool($0.online)]
                    })
            ]
        case "projects.list":
            try params.rejectUnknownKeys(["desktopId"])
            let desktopId = try onlineDesktop(params)
            result = [
                "projects": .array(
                    WorkspaceWorld.projects.filter { $0.desktopId == desktopId }.map {
                        ["projectId": .string($0.projectId), "name": .string($0.name), "folder": .string($0.folder)]
                    })
            ]
        case "sessions.list":
            try params.rejectUnknownKeys(["desktopId", "projectId"])
            let desktopId = try onlineDesktop(params)
            let projectId = try params.nonEmptyString("projectId")
            guard WorkspaceWorld.projects.contains(where: { $0.desktopId == desktopId && $0.projectId == projectId })
            else { throw APIError.notFound("No project \(projectId) on \(desktopId).") }
            var sessions: [JSONValue] = []
            for session in try await store.sessions(desktopId: desktopId, projectId: projectId) {
                let chat = WorkspaceStore.ChatKey(
                    desktopId: desktopId, projectId: projectId, sessionId: session.sessionId)
                let running = await store.liveState(chat).runId != nil
                sessions.append([
                    "sessionId": .string(session.sessionId), "title": .string(session.title),
                    "updatedAt": .number(JSONNumber(session.updatedAt)), "running": .bool(running),
                ])
            }
            result = ["sessions": .array(sessions)]
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
            let paging = method.hasSuffix("PageBefore")
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
        case "run.codexChatSubmit":
            result = try await effects.run { try await self.submit(params, callKey: callKey) }
        case "files.chatAttachmentUpload":
            result = try await effects.run { try await self.upload(params, callKey: callKey) }
        default:
            throw APIError(status: 404, message: "Unknown method '\(method)'.", code: "unknown_method", param: "method")
        }
        return .json(["result": result])
    }

    // MARK: Events

    /// `GET /v1/workspaces/events?desktopId&projectId&sessionId`.
    func eventStream(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        var ids: [String] = []
        for name in ["desktopId", "projectId", "sessionId"] {
            guard let value = request.queryValue(name), !value.isEmpty else {
                throw APIError.invalid("Query parameter '\(name)' is required.", param: name)
            }
            ids.append(value)
        }
        let chat = WorkspaceStore.ChatKey(desktopId: ids[0], projectId: ids[1], sessionId: ids[2])
        guard try await store.exists(chat) else { throw APIError.notFound("No session \(chat.sessionId).") }
        let live = events.subscribe()
        let current = await store.liveState(chat)
        let eventID = nextEventID()
        let heartbeat = options.heartbeatInterval
        let time = time
        return .eventStream { stream in
            stream.writeComment("heartbeat")
            stream.writeEvent(
                data: JSONWriter().string(from: current.overlay.jsonValue), type: "overlay", id: String(eventID))
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in live where event.chat == chat {
                        guard
                            stream.writeEvent(
                                data: JSONWriter().string(from: event.data), type: event.type, id: String(event.id))
                        else { return }
                    }
                }
                group.addTask {
                    while stream.isOpen {
                        do { try await time.sleep(heartbeat) } catch { return }
                        guard stream.writeComment("heartbeat") else { return }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    // MARK: Loading

    /// The newest window as the contract's envelope, encoded by SybilWire's own type.
    private func load(_ chat: WorkspaceStore.ChatKey, limit: Int) async throws -> JSONValue {
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
    private static func page(_ rows: [WorkspaceStore.Row], hasOlder: Bool, prefix: String, threadId: String? = nil)
        -> JSONValue
    {
        WorkspaceChatPage(
            threadId: threadId, timeline: rows.map(\.block), hasOlderEntries: hasOlder,
            oldestCursor: hasOlder ? prefix + String(rows.first?.sequence ?? 0) : nil
        ).jsonValue
    }

    // MARK: Helpers

    private func onlineDesktop(_ params: JSONObjectReader) throws -> String {
        let desktopId = try params.nonEmptyString("desktopId")
        guard let desktop = WorkspaceWorld.desktops.first(where: { $0.desktopId == desktopId }) else {
            throw APIError.notFound("No desktop \(desktopId).")
        }
        guard desktop.online else {
            throw APIError(
                status: 503, message: "\(desktop.name) is offline; try again when it is back.", code: "desktop_offline",
                retryAfterSeconds: 30)
        }
        return desktopId
    }

    func chat(_ params: JSONObjectReader) async throws -> WorkspaceStore.ChatKey {
        let desktopId = try onlineDesktop(params)
        let chat = WorkspaceStore.ChatKey(
            desktopId: desktopId, projectId: try params.nonEmptyString("projectId"),
            sessionId: try params.nonEmptyString("sessionId"))
        guard try await store.exists(chat) else {
            throw APIError.notFound("No session \(chat.sessionId) in \(chat.projectId) on \(desktopId).")
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

    private func nextEventID() -> Int64 {
        nextNumber(\.event)
    }

    func publish(_ chat: WorkspaceStore.ChatKey, _ type: String, _ data: JSONValue) {
        events.publish(Event(chat: chat, id: nextEventID(), type: type, data: data))
    }
}
