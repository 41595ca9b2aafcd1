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
        let sequence = UInt64((try? await store.nextSequence()) ?? 1)
        let state = await store.updateLive(chat) { live in
            if mode == "send" {
                live.runId = runId
                live.runStartedAt = now
            }
            // A steer follows everything the turn has shown so far.
            let position = mode == "send" ? 0 : 100 + UInt64(live.blocks.count)
            live.blocks.append(
                TimelineBlock(
                    type: .user, id: "l-\(operationId)", origin: .live, sourceOrder: [sequence, position],
                    timestamp: now, text: text, runId: runId, operationId: operationId))
        }
        publish(chat, "overlay", state.overlay.jsonValue)
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
        await settle(runId, in: chat, threadId: threadId, subagent: reply.subagent ?? [], failed: failed)
    }

    private func addBlock(_ chat: WorkspaceStore.ChatKey, _ block: TimelineBlock) async throws {
        let state = await store.updateLive(chat) { $0.blocks.append(block) }
        publish(chat, "overlay", state.overlay.jsonValue)
    }

    private func settle(
        _ runId: String, in chat: WorkspaceStore.ChatKey, threadId: String?, subagent: [String], failed: Bool
    ) async {
        let live = await store.liveState(chat)
        // History keeps the turn in the order the overlay showed it.
        var rows = live.blocks.sorted { $0.sourceOrder.lexicographicallyPrecedes($1.sourceOrder) }.map(
            WorkspaceStore.NewRow.init(settling:))
        if let threadId {
            rows += subagent.enumerated().map { index, step in
                WorkspaceStore.NewRow(
                    threadId: threadId, type: index % 2 == 0 ? .activity : .agentReply, text: step,
                    timestamp: time.epochMilliseconds())
            }
        }
        let now = time.epochMilliseconds()
        let settled = try? await store.settle(chat, rows: rows, updatedAt: now)
        // History that cannot be written still ends the run, as failed, so the chat is not stuck.
        let state: WorkspaceStore.Live
        if let settled { state = settled } else { state = await store.startNextEpoch(chat) }
        publish(chat, "overlay", state.overlay.jsonValue)
        publish(chat, "run", ["runId": .string(runId), "state": failed || settled == nil ? "failed" : "finished"])
        publish(chat, "session", ["sessionId": .string(chat.sessionId), "updatedAt": .number(JSONNumber(now))])
    }

}
