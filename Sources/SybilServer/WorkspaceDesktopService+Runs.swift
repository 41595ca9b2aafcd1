import Foundation
import SybilCore
import SybilWire

/// Submissions with receipts, and the scripted turn they start: live overlays while it runs,
/// then settlement into history with a new epoch.
extension WorkspaceDesktopService {
    func submit(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
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
        @Sendable func receipt(_ runId: String) -> JSONValue {
            [
                "receipt": [
                    "operationId": .string(operationId), "mutationId": .string(mutationId), "status": "accepted",
                    "runId": .string(runId),
                ]
            ]
        }
        // The receipt is stored with the run and the user's text, in one transaction, before
        // it is answered: an accepted message is never lost.
        let call = WorkspaceStore.CallRecord(key: expectedKey, fingerprint: fingerprint) { runId in
            JSONWriter().string(from: receipt(runId))
        }
        let now = time.epochMilliseconds()
        if mode == "steer", let activeRunId {
            guard
                let state = try await store.acceptSteer(
                    chat, runId: activeRunId, operationId: operationId, text: text, now: now, call: call)
            else {
                // Clients restore the composer on this rejection.
                return try await reject(
                    "The run finished before the steer arrived; send it as a new message.", call: call)
            }
            publish(chat, "overlay", state.overlay.jsonValue)
            return receipt(activeRunId)
        }
        let accepted = try await store.acceptSend(chat, operationId: operationId, text: text, now: now, call: call)
        if let started = accepted.started {
            launch(started, in: chat)
        } else {
            publish(chat, "overlay", accepted.live.overlay.jsonValue)
            publish(chat, "run", ["runId": .string(accepted.runId), "state": "queued"])
        }
        return receipt(accepted.runId)

        func reject(_ reason: String, call: WorkspaceStore.CallRecord) async throws -> JSONValue {
            let result: JSONValue = [
                "receipt": [
                    "operationId": .string(operationId), "mutationId": .string(mutationId), "status": "rejected",
                    "reason": .string(reason),
                ]
            ]
            try await store.recordCall(
                call.key, fingerprint: call.fingerprint, result: JSONWriter().string(from: result))
            return result
        }
    }

    /// `run.codexChatStop`: stops the running run (`stopped`; what it showed settles) or
    /// cancels a queued one (`cancelled`; its user's row settles); answers the run's ending.
    func stop(_ params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        try params.rejectUnknownKeys(["desktopId", "projectId", "sessionId", "runId"])
        let chat = try await chat(params)
        let runId = try params.nonEmptyString("runId")
        let expectedKey = "run.codexChatStop:\(runId)"
        guard callKey == expectedKey else {
            throw APIError.invalid("'callKey' must be \(expectedKey) for this stop.", param: "callKey")
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
        guard let record = try await store.run(runId), record.chat == chat else {
            throw APIError.notFound("No run \(runId) in \(chat.sessionId).")
        }
        var ending = record.state
        if ending == .queued {
            let now = time.epochMilliseconds()
            if let state = try await store.cancelQueuedRun(chat, runId: runId, now: now) {
                publish(chat, "overlay", state.overlay.jsonValue)
                publish(chat, "run", ["runId": .string(runId), "state": "cancelled"])
                publish(chat, "session", ["sessionId": .string(chat.sessionId), "updatedAt": .number(JSONNumber(now))])
            }
            // Otherwise it started meanwhile and is stopped below.
            ending = try await store.run(runId)?.state ?? .failed
        }
        if ending == .running, let task = runTasks.withLock({ $0[runId] }) {
            _ = stopping.withLock { $0.insert(runId) }
            task.cancel()
            await task.value
            ending = try await store.run(runId)?.state ?? .failed
        }
        let result: JSONValue = ["runId": .string(runId), "state": .string(ending.rawValue)]
        try await store.recordCall(expectedKey, fingerprint: fingerprint, result: JSONWriter().string(from: result))
        return result
    }

    /// Starts the scripted turn of `started` on a task the service holds until it ends.
    func launch(_ started: WorkspaceStore.StartedRun, in chat: WorkspaceStore.ChatKey) {
        publish(chat, "overlay", started.live.overlay.jsonValue)
        publish(chat, "run", ["runId": .string(started.runId), "state": "started"])
        runTasks.withLock { tasks in
            tasks[started.runId] = Task { [self] in
                await run(started.runId, in: chat, prompt: started.prompt, base: started.base)
                runTasks.withLock { _ = $0.removeValue(forKey: started.runId) }
                _ = stopping.withLock { $0.remove(started.runId) }
                // The next queued turn starts when this one has ended.
                if let next = try? await store.startNextRun(chat, now: time.epochMilliseconds()) {
                    launch(next, in: chat)
                }
            }
        }
    }

    /// The scripted turn: thinking, activity, the reply token by token, then settlement into
    /// history with a new overlay epoch.
    private func run(_ runId: String, in chat: WorkspaceStore.ChatKey, prompt: String, base: UInt64) async {
        let reply = agent.reply(to: prompt)
        let threadId = reply.subagent == nil ? nil : "thr-\(runId)"
        var failed = false
        do {
            let steps: [(TimelineRowType, String)] = [(.thinking, reply.thinking), (.activity, reply.activity)]
            for (step, (type, text)) in steps.enumerated() {
                try await time.sleep(options.pace)
                try await addBlock(
                    chat,
                    TimelineBlock(
                        type: type, id: "l-\(runId)-\(type.rawValue)", origin: .live,
                        sourceOrder: [base, UInt64(step + 1)],
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
                let row = TimelineBlock(
                    type: .agentReply, id: "l-\(runId)-r", origin: .live, sourceOrder: [base, 3],
                    timestamp: time.epochMilliseconds(), text: text, runId: runId, subagentThreadId: threadId)
                let state = await store.updateLive(chat) { live in
                    live.blocks.removeAll { $0.id == row.id }
                    live.blocks.append(row)
                }
                publish(chat, "overlay", state.overlay.jsonValue)
            }
        } catch {
            failed = true
        }
        let stopped = stopping.withLock { $0.contains(runId) }
        let ending: WorkspaceStore.RunState = stopped ? .stopped : failed ? .failed : .finished
        // A stopped turn settles what it showed; its subagent never reported.
        let subagent = stopped ? [] : reply.subagent ?? []
        await settle(runId, in: chat, threadId: threadId, subagent: subagent, ending: ending)
    }

    private func addBlock(_ chat: WorkspaceStore.ChatKey, _ block: TimelineBlock) async throws {
        let state = await store.updateLive(chat) { $0.blocks.append(block) }
        publish(chat, "overlay", state.overlay.jsonValue)
    }

    private func settle(
        _ runId: String, in chat: WorkspaceStore.ChatKey, threadId: String?, subagent: [String],
        ending: WorkspaceStore.RunState
    ) async {
        var rows: [WorkspaceStore.NewRow] = []
        if let threadId {
            rows = subagent.enumerated().map { index, step in
                WorkspaceStore.NewRow(
                    threadId: threadId, type: index % 2 == 0 ? .activity : .agentReply, text: step,
                    timestamp: time.epochMilliseconds())
            }
        }
        let now = time.epochMilliseconds()
        let settled = try? await store.settleRun(chat, runId: runId, ending: ending, extraRows: rows, now: now)
        // History that cannot be written still ends the run, as failed, so the chat is not stuck.
        let state: WorkspaceStore.Live
        if let settled { state = settled } else { state = await store.dropRun(chat, runId: runId) }
        publish(chat, "overlay", state.overlay.jsonValue)
        publish(chat, "run", ["runId": .string(runId), "state": .string(settled == nil ? "failed" : ending.rawValue)])
        publish(chat, "session", ["sessionId": .string(chat.sessionId), "updatedAt": .number(JSONNumber(now))])
    }
}
