import Foundation
import SybilCore
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

    private let store: WorkspaceStore
    private let options: SybilServerOptions
    private let time: ServerTime
    private let agent: ScriptedAgent
    private let events = Broadcast<Event>()
    private struct Counters {
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
        let value: JSONValue
        do {
            value = try JSONReader().parse(request.body)
        } catch {
            throw APIError.invalid("The body is not valid JSON: \(error).", param: "body", code: "invalid_json")
        }
        let envelope = try JSONObjectReader(value, at: .root)
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
            var object = Self.page(page.rows, hasOlder: page.hasOlder, prefix: "\(threadId):cur-")
            if case .object(var members) = object {
                members.members.insert(JSONMember("threadId", .string(threadId)), at: 0)
                object = .object(members)
            }
            result = object
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
            stream.writeEvent(data: JSONWriter().string(from: current.overlay), type: "overlay", id: String(eventID))
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

    private func load(_ chat: WorkspaceStore.ChatKey, limit: Int) async throws -> JSONValue {
        let page = try await store.page(chat, threadId: "", before: nil, limit: limit)
        var activeRun: JSONValue = .null
        if let runId = page.live.runId {
            activeRun = ["runId": .string(runId), "startedAt": .number(JSONNumber(page.live.runStartedAt ?? 0))]
        }
        return [
            "boundaryToken": "bt-000001",
            "codexSessionId": .string("codex-\(chat.sessionId)"),
            "loadState": ["state": "ready"],
            "storageFormat": "indexed",
            "loadedEntries": .number(JSONNumber(Int64(page.rows.count))),
            "hasOlderEntries": .bool(page.hasOlder),
            "oldestCursor": page.hasOlder ? .string("cur-\(page.rows.first?.sequence ?? 0)") : .null,
            "timeline": .array(page.rows.map(\.json)),
            "liveOverlay": page.live.overlay,
            "runtime": ["model": .string(ChatCompletionsService.model), "sandbox": "workspace-write"],
            "activeRun": activeRun,
        ]
    }

    private static func page(_ rows: [WorkspaceStore.Row], hasOlder: Bool, prefix: String) -> JSONValue {
        [
            "timeline": .array(rows.map(\.json)), "hasOlderEntries": .bool(hasOlder),
            "oldestCursor": hasOlder ? .string(prefix + String(rows.first?.sequence ?? 0)) : .null,
        ]
    }

    // MARK: Submitting and running

    private func submit(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        try params.rejectUnknownKeys([
            "desktopId", "projectId", "sessionId", "operationId", "mutationId", "mode", "activeRunId", "text",
            "attachments",
        ])
        let chat = try await chat(params)
        let operationId = try params.nonEmptyString("operationId")
        let mutationId = try params.nonEmptyString("mutationId")
        let expectedKey = "run.codexChatSubmit:\(operationId):\(mutationId)"
        guard callKey == expectedKey else {
            throw APIError.invalid("'callKey' must be \(expectedKey) for this submission.", param: "callKey")
        }
        let mode = try params.string("mode")
        guard mode == "send" || mode == "steer" else {
            throw APIError.invalid("'mode' must be send or steer, got '\(mode)'.", param: "params.mode")
        }
        let activeRunId = try params.optionalNonEmptyString("activeRunId")
        if mode == "steer" && activeRunId == nil {
            throw APIError.invalid("A steer needs 'activeRunId'.", param: "params.activeRunId")
        }
        let text = try params.string("text")
        var attachments: [String] = []
        if let value = params.optionalValue("attachments") {
            guard case .array(let items) = value else {
                throw APIError.invalid("'attachments' must be an array of upload ids.", param: "params.attachments")
            }
            for (index, item) in items.enumerated() {
                guard case .string(let id) = item, let upload = try await store.upload(id: id), upload.chat == chat,
                    upload.state == "finished"
                else {
                    throw APIError.invalid(
                        "attachments[\(index)] must be a finished upload of this session.",
                        param: "params.attachments[\(index)]")
                }
                attachments.append(id)
            }
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && attachments.isEmpty {
            throw APIError.invalid("'text' must not be blank when there are no attachments.", param: "params.text")
        }
        let fingerprint = JSONWriter().string(from: .object(params.object))
        if let previous = try await store.call(expectedKey) {
            guard previous.fingerprint == fingerprint else {
                throw APIError(
                    status: 409, message: "Call key \(expectedKey) was already used with different params.",
                    code: "call_key_conflict", param: "callKey")
            }
            return try JSONReader().parse(previous.result)
        }
        let receipt = await accept(
            chat: chat, operationId: operationId, mutationId: mutationId, mode: mode, activeRunId: activeRunId,
            text: text)
        try await store.recordCall(expectedKey, fingerprint: fingerprint, result: JSONWriter().string(from: receipt))
        return receipt
    }

    /// Decides the receipt and starts or steers the run.
    private func accept(
        chat: WorkspaceStore.ChatKey, operationId: String, mutationId: String, mode: String, activeRunId: String?,
        text: String
    ) async -> JSONValue {
        func rejected(_ reason: String) -> JSONValue {
            [
                "receipt": [
                    "operationId": .string(operationId), "mutationId": .string(mutationId), "status": "rejected",
                    "reason": .string(reason),
                ]
            ]
        }
        let current = await store.liveState(chat)
        let runId: String
        if mode == "steer" {
            guard let running = current.runId, running == activeRunId else {
                return rejected("The run finished before the steer arrived; send it as a new message.")
            }
            runId = running
        } else {
            guard current.runId == nil else {
                return rejected("A run is still working in this chat; steer into it or wait until it finishes.")
            }
            runId = "run-\(nextNumber(\.run))"
        }
        let now = time.epochMilliseconds()
        let sequence = (try? await store.nextSequence()) ?? 1
        let userRow = Self.liveRow(
            type: "user", id: "l-\(operationId)", order: [sequence, 0], timestamp: now, text: text, runId: runId,
            operationId: operationId)
        let state = await store.updateLive(chat) { live in
            if mode == "send" {
                live.runId = runId
                live.runStartedAt = now
            }
            live.blocks.append(userRow)
        }
        publish(chat, "overlay", state.overlay)
        if mode == "send" {
            publish(chat, "run", ["runId": .string(runId), "state": "started"])
            Task { [self] in await run(runId, in: chat, prompt: text, base: sequence) }
        }
        return [
            "receipt": [
                "operationId": .string(operationId), "mutationId": .string(mutationId), "status": "accepted",
                "runId": .string(runId),
            ]
        ]
    }

    /// The scripted turn: thinking, activity, the reply token by token, then settlement into
    /// history with a new overlay epoch.
    private func run(_ runId: String, in chat: WorkspaceStore.ChatKey, prompt: String, base: Int64) async {
        let reply = agent.reply(to: prompt)
        let threadId = reply.subagent == nil ? nil : "thr-\(runId)"
        var failed = false
        do {
            for (step, (type, text)) in [("thinking", reply.thinking), ("activity", reply.activity)].enumerated() {
                try await time.sleep(options.pace)
                try await addBlock(
                    chat,
                    Self.liveRow(
                        type: type, id: "l-\(runId)-\(type)", order: [base, Int64(step + 1)],
                        timestamp: time.epochMilliseconds(), text: text, runId: runId))
            }
            var text = ""
            for (index, token) in reply.tokens.enumerated() {
                if case .error(let after) = reply.ending, index == after {
                    failed = true
                    break
                }
                try await time.sleep(options.pace)
                text += token
                let row = Self.liveRow(
                    type: "agent-reply", id: "l-\(runId)-r", order: [base, 3], timestamp: time.epochMilliseconds(),
                    text: text, runId: runId, subagentThreadId: threadId)
                let state = await store.updateLive(chat) { live in
                    live.blocks.removeAll { Self.blockID($0) == "l-\(runId)-r" }
                    live.blocks.append(row)
                }
                publish(chat, "overlay", state.overlay)
            }
        } catch {
            failed = true
        }
        await settle(runId, in: chat, threadId: threadId, subagent: reply.subagent ?? [], failed: failed)
    }

    private func addBlock(_ chat: WorkspaceStore.ChatKey, _ block: JSONValue) async throws {
        let state = await store.updateLive(chat) { $0.blocks.append(block) }
        publish(chat, "overlay", state.overlay)
    }

    private func settle(
        _ runId: String, in chat: WorkspaceStore.ChatKey, threadId: String?, subagent: [String], failed: Bool
    ) async {
        let live = await store.liveState(chat)
        var rows: [WorkspaceStore.NewRow] = live.blocks.compactMap { block in
            guard case .object(let object) = block, case .string(let type)? = object["type"],
                case .string(let text)? = object["text"], case .number(let stamp)? = object["timestamp"]
            else { return nil }
            var subagentThreadId: String?
            if case .string(let thread)? = object["subagentThreadId"] { subagentThreadId = thread }
            return WorkspaceStore.NewRow(
                type: type, text: text, timestamp: stamp.int64Value ?? 0, subagentThreadId: subagentThreadId)
        }
        if let threadId {
            rows += subagent.enumerated().map { index, step in
                WorkspaceStore.NewRow(
                    threadId: threadId, type: index % 2 == 0 ? "activity" : "agent-reply", text: step,
                    timestamp: time.epochMilliseconds())
            }
        }
        let now = time.epochMilliseconds()
        guard let state = try? await store.settle(chat, rows: rows, updatedAt: now) else { return }
        publish(chat, "overlay", state.overlay)
        publish(chat, "run", ["runId": .string(runId), "state": failed ? "failed" : "finished"])
        publish(chat, "session", ["sessionId": .string(chat.sessionId), "updatedAt": .number(JSONNumber(now))])
    }

    // MARK: Uploads

    private func upload(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        guard let callKey else {
            throw APIError.invalid("Uploads need a callKey.", param: "callKey")
        }
        let parts = callKey.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "files.chatAttachmentUpload", parts[2].count == 16,
            parts[2].allSatisfy({ $0.isHexDigit && !$0.isUppercase })
        else {
            throw APIError.invalid(
                "'callKey' must be files.chatAttachmentUpload:<sessionId>:<16 hex digits>:<step>.", param: "callKey")
        }
        let uploadKey = parts[0...2].joined(separator: ":")
        let step = Array(parts[3...])
        switch step.first {
        case "begin" where step.count == 1:
            return try await beginUpload(params, uploadKey: uploadKey, sessionInKey: parts[1])
        case "chunk" where step.count == 2:
            guard let index = Int64(step[1]), index >= 0 else {
                throw APIError.invalid("The chunk number in 'callKey' must be a whole number.", param: "callKey")
            }
            return try await uploadChunk(params, uploadKey: uploadKey, index: index)
        case "finish" where step.count == 1:
            return try await finishUpload(params, uploadKey: uploadKey)
        case "cancel" where step.count == 1:
            try params.rejectUnknownKeys(["uploadId"])
            let upload = try await existingUpload(params, uploadKey: uploadKey)
            if upload.state != "finished" { try await store.setUploadState(upload.uploadId, state: "cancelled") }
            return ["uploadId": .string(upload.uploadId), "cancelled": .bool(upload.state != "finished")]
        default:
            throw APIError.invalid("'callKey' must end in :begin, :chunk:<n>, :finish or :cancel.", param: "callKey")
        }
    }

    private func beginUpload(_ params: JSONObjectReader, uploadKey: String, sessionInKey: String) async throws
        -> JSONValue
    {
        try params.rejectUnknownKeys(["desktopId", "projectId", "sessionId", "fileName", "mimeType", "path", "size"])
        let chat = try await chat(params)
        guard chat.sessionId == sessionInKey else {
            throw APIError.invalid("The session in 'callKey' is not params.sessionId.", param: "callKey")
        }
        let fileName = try params.nonBlankString("fileName")
        let mimeType = try params.nonBlankString("mimeType")
        let path = try params.string("path")
        let size = try params.integer("size", in: 1...Self.maximumUploadBytes)
        if let existing = try await store.upload(key: uploadKey) {
            guard existing.size == size, existing.fileName == fileName, existing.chat == chat else {
                throw APIError(
                    status: 409, message: "Upload key \(uploadKey) belongs to a different file.",
                    code: "call_key_conflict", param: "callKey")
            }
            return try await beginAnswer(existing)
        }
        let uploadId = "upl-\(nextNumber(\.upload))-\(uploadKey.suffix(16))"
        let upload = WorkspaceStore.Upload(
            uploadId: uploadId, uploadKey: uploadKey, chat: chat, fileName: fileName, mimeType: mimeType, path: path,
            size: size, chunkSize: Self.chunkSize, state: "open", sha256: nil)
        try await store.createUpload(upload)
        return try await beginAnswer(upload)
    }

    private func beginAnswer(_ upload: WorkspaceStore.Upload) async throws -> JSONValue {
        let received = try await store.receivedChunks(upload.uploadId).indices
        var contiguous: Int64 = 0
        for index in received where index == contiguous { contiguous += 1 }
        return [
            "uploadId": .string(upload.uploadId), "chunkSize": .number(JSONNumber(upload.chunkSize)),
            "receivedChunks": .number(JSONNumber(contiguous)),
        ]
    }

    private func uploadChunk(_ params: JSONObjectReader, uploadKey: String, index: Int64) async throws -> JSONValue {
        try params.rejectUnknownKeys(["uploadId", "index", "data"])
        let upload = try await existingUpload(params, uploadKey: uploadKey)
        let paramIndex = try params.integer("index", in: 0...Int64.max)
        guard paramIndex == index else {
            throw APIError.invalid(
                "params.index must equal the chunk number in 'callKey' (\(index)).", param: "params.index")
        }
        guard upload.state == "open" else {
            throw APIError(status: 409, message: "Upload \(upload.uploadId) is \(upload.state).", code: "upload_closed")
        }
        guard index < upload.chunkCount else {
            throw APIError.invalid(
                "params.index must be below \(upload.chunkCount) for a \(upload.size)-byte file.", param: "params.index"
            )
        }
        guard let bytes = Data(base64Encoded: try params.string("data")).map(Array.init) else {
            throw APIError.invalid("params.data must be base64.", param: "params.data")
        }
        let expected = index == upload.chunkCount - 1 ? upload.size - index * upload.chunkSize : upload.chunkSize
        guard Int64(bytes.count) == expected else {
            throw APIError.invalid(
                "Chunk \(index) must hold \(expected) bytes, got \(bytes.count).", param: "params.data")
        }
        if let stored = try await store.chunk(upload.uploadId, index: index) {
            guard stored == bytes else {
                throw APIError(
                    status: 409, message: "Chunk \(index) of \(upload.uploadId) was already received with other bytes.",
                    code: "upload_conflict", param: "params.data")
            }
        } else {
            try await store.storeChunk(upload.uploadId, index: index, bytes: bytes)
        }
        let received = try await store.receivedChunks(upload.uploadId)
        return [
            "uploadId": .string(upload.uploadId), "index": .number(JSONNumber(index)),
            "receivedBytes": .number(JSONNumber(received.bytes)),
        ]
    }

    private func finishUpload(_ params: JSONObjectReader, uploadKey: String) async throws -> JSONValue {
        try params.rejectUnknownKeys(["uploadId", "chunkCount"])
        let upload = try await existingUpload(params, uploadKey: uploadKey)
        let chunkCount = try params.integer("chunkCount", in: 0...Int64.max)
        guard chunkCount == upload.chunkCount else {
            throw APIError.invalid(
                "params.chunkCount must be \(upload.chunkCount) for a \(upload.size)-byte file.",
                param: "params.chunkCount")
        }
        var sha256 = upload.sha256
        if upload.state != "finished" {
            guard upload.state == "open" else {
                throw APIError(
                    status: 409, message: "Upload \(upload.uploadId) is \(upload.state).", code: "upload_closed")
            }
            let received = try await store.receivedChunks(upload.uploadId)
            guard Int64(received.indices.count) == chunkCount, received.bytes == upload.size else {
                throw APIError(
                    status: 409,
                    message: "Upload \(upload.uploadId) has \(received.indices.count) of \(chunkCount) chunks.",
                    code: "upload_incomplete")
            }
            let digest = SHA256Digest.hex(try await store.assembledBytes(upload.uploadId))
            try await store.setUploadState(upload.uploadId, state: "finished", sha256: digest)
            sha256 = digest
        }
        return [
            "uploadId": .string(upload.uploadId), "size": .number(JSONNumber(upload.size)),
            "sha256": .string(sha256 ?? ""),
        ]
    }

    private func existingUpload(_ params: JSONObjectReader, uploadKey: String) async throws -> WorkspaceStore.Upload {
        let uploadId = try params.nonEmptyString("uploadId")
        guard let upload = try await store.upload(id: uploadId), upload.uploadKey.hasPrefix(uploadKey) else {
            throw APIError.notFound("No upload \(uploadId) under \(uploadKey).")
        }
        return upload
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

    private func chat(_ params: JSONObjectReader) async throws -> WorkspaceStore.ChatKey {
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

    private static func liveRow(
        type: String, id: String, order: [Int64], timestamp: Int64, text: String, runId: String,
        operationId: String? = nil, subagentThreadId: String? = nil
    ) -> JSONValue {
        var members = [
            JSONMember("type", .string(type)), JSONMember("id", .string(id)), JSONMember("origin", "live"),
            JSONMember("sourceOrder", .array(order.map { .number(JSONNumber($0)) })),
            JSONMember("timestamp", .number(JSONNumber(timestamp))), JSONMember("text", .string(text)),
            JSONMember("runId", .string(runId)),
        ]
        if let operationId { members.append(JSONMember("operationId", .string(operationId))) }
        if let subagentThreadId { members.append(JSONMember("subagentThreadId", .string(subagentThreadId))) }
        return .object(JSONObject(members))
    }

    private static func blockID(_ block: JSONValue) -> String? {
        guard case .object(let object) = block, case .string(let id)? = object["id"] else { return nil }
        return id
    }

    private func nextNumber(_ counter: WritableKeyPath<Counters, Int64> & Sendable) -> Int64 {
        counters.withLock {
            $0[keyPath: counter] += 1
            return $0[keyPath: counter]
        }
    }

    private func nextEventID() -> Int64 {
        nextNumber(\.event)
    }

    private func publish(_ chat: WorkspaceStore.ChatKey, _ type: String, _ data: JSONValue) {
        events.publish(Event(chat: chat, id: nextEventID(), type: type, data: data))
    }
}
