import Foundation
import SybilCore
import SybilWire

/// Submissions with receipts, and the scripted turn they start: live overlays while it runs,
/// then settlement into history with a new epoch.
extension WorkspaceDesktopService {
    /// `run.codexChatSubmit`: a send starts a run or queues behind the running one; a steer
    /// joins the running run or is rejected for good (clients restore the composer then).
    func submit(_ submission: WorkspaceSubmission, params: JSONObjectReader, callKey: String?) async throws
        -> JSONValue
    {
        let chat = try await chat(params)
        guard callKey == submission.callKey else {
            throw APIError.invalid("'callKey' must be \(submission.callKey) for this submission.", param: "callKey")
        }
        for (index, id) in submission.attachments.enumerated() {
            guard let upload = try await uploads.upload(id: id), upload.chat == chat, upload.state == .finished else {
                throw APIError.invalid(
                    "attachments[\(index)] must be a finished upload of this session.",
                    param: "params.attachments[\(index)]")
            }
        }
        let fingerprint = JSONWriter().string(from: .object(params.object))
        if let previous = try await previousAnswer(submission.callKey, fingerprint: fingerprint) { return previous }
        // The receipt is stored with the run and the user's text, in one transaction, before
        // it is answered: an accepted message is never lost.
        let call = WorkspaceCallLedger.CallRecord(key: submission.callKey, fingerprint: fingerprint) { runId in
            JSONWriter().string(from: Self.receipt(submission, .accepted(runId: runId)))
        }
        let now = time.epochMilliseconds()
        if case .steer(let activeRunId) = submission.mode {
            return try await steer(submission, into: chat, runId: activeRunId, call: call, now: now)
        }
        let accepted = try await store.acceptSend(
            chat, operationId: submission.operationId, text: submission.text, now: now, call: call)
        if let started = accepted.started {
            await launch(started, in: chat)
        } else {
            publish(chat, .overlay(accepted.live.overlay))
            publish(chat, .run(runId: accepted.runId, state: .queued))
        }
        return Self.receipt(submission, .accepted(runId: accepted.runId))
    }

    /// A steer joins the running run `runId`, or is rejected (and the rejection stored under
    /// its call key) when that run has ended. Not optimised: Swift 6.3.1's release build
    /// crashes (signal 11) splitting this coroutine when LLVM's inliner has run over it.
    @_optimize(none)
    private func steer(
        _ submission: WorkspaceSubmission, into chat: WorkspaceChatKey, runId: String,
        call: WorkspaceCallLedger.CallRecord, now: Int64
    ) async throws -> JSONValue {
        let joined = try await store.acceptSteer(
            chat, runId: runId, operationId: submission.operationId, text: submission.text, now: now, call: call)
        if let overlay = joined?.overlay {
            publish(chat, .overlay(overlay))
            return Self.receipt(submission, .accepted(runId: runId))
        }
        // Clients restore the composer on this rejection.
        let rejected = Self.receipt(
            submission, .rejected(reason: "The run finished before the steer arrived; send it as a new message."))
        let stored = JSONWriter().string(from: rejected)
        try await store.recordCall(call.key, fingerprint: call.fingerprint, result: stored)
        return rejected
    }

    /// The receipt answering `submission` with `outcome`.
    private static func receipt(
        _ submission: WorkspaceSubmission, _ outcome: WorkspaceSubmitReceipt.Outcome
    ) -> JSONValue {
        WorkspaceSubmitReceipt(operationId: submission.operationId, mutationId: submission.mutationId, outcome: outcome)
            .jsonValue
    }

    /// The stored answer of `callKey`, or `nil` for a new call; a key reused with other params
    /// is a 409.
    private func previousAnswer(_ callKey: String, fingerprint: String) async throws -> JSONValue? {
        guard let previous = try await store.call(callKey) else { return nil }
        guard previous.fingerprint == fingerprint else {
            throw APIError(
                status: 409, message: "Call key \(callKey) was already used with different params.",
                code: "call_key_conflict", param: "callKey")
        }
        return try JSONReader().parse(previous.result)
    }

    /// `run.codexChatStop`: stops the running run (`stopped`; what it showed settles) or
    /// cancels a queued one (`cancelled`; its user's row settles); answers the run's ending.
    func stop(_ stop: WorkspaceRunStop, params: JSONObjectReader, callKey: String?) async throws -> JSONValue {
        let chat = try await chat(params)
        let runId = stop.runId
        guard callKey == stop.callKey else {
            throw APIError.invalid("'callKey' must be \(stop.callKey) for this stop.", param: "callKey")
        }
        let fingerprint = JSONWriter().string(from: .object(params.object))
        if let previous = try await previousAnswer(stop.callKey, fingerprint: fingerprint) { return previous }
        guard let record = try await store.run(runId), record.chat == chat else {
            throw APIError.notFound("No run \(runId) in \(chat.sessionId).")
        }
        var ending = record.state
        if ending == .queued {
            let now = time.epochMilliseconds()
            if let state = try await store.cancelQueuedRun(chat, runId: runId, now: now) {
                publish(chat, .overlay(state.overlay))
                publish(chat, .run(runId: runId, state: .cancelled))
                publish(chat, .session(sessionId: chat.sessionId, updatedAt: now))
            }
            // Otherwise it started meanwhile and is stopped below.
            ending = try await store.run(runId)?.state ?? .failed
        }
        if ending == .running, let task = runTasks.task(named: Self.taskName(runId)) {
            _ = stopping.withLock { $0.insert(runId) }
            task.cancel()
            await task.value
            ending = try await store.run(runId)?.state ?? .failed
        }
        guard ending.wire.isEnding else {
            // A queued run is between being marked running and its task starting: nothing is
            // recorded, so the same call key may simply be sent again.
            throw APIError(
                status: 409, message: "Run \(runId) is starting; send the stop again.", code: "run_starting",
                retryAfterSeconds: 1)
        }
        let result = WorkspaceRunStop.Result(runId: runId, state: ending.wire).jsonValue
        try await store.recordCall(stop.callKey, fingerprint: fingerprint, result: JSONWriter().string(from: result))
        return result
    }

    /// The name a run's task is tracked under.
    static func taskName(_ runId: String) -> String { "run \(runId)" }

    /// Starts the scripted turn of `started` on a task the service tracks until it ends. The
    /// next queued turn is started from that task before it ends, so the service is never
    /// quiescent between two runs of a chat. While the service stops nothing starts: the run
    /// is settled as failed at once, and queued runs stay queued.
    func launch(_ started: WorkspaceStore.StartedRun, in chat: WorkspaceChatKey) async {
        publish(chat, .overlay(started.live.overlay))
        publish(chat, .run(runId: started.runId, state: .started))
        let task = runTasks.start(Self.taskName(started.runId)) { [self] in
            await run(started.runId, in: chat, prompt: started.prompt, base: started.base)
            _ = stopping.withLock { $0.remove(started.runId) }
            // The next queued turn starts when this one has ended (not while stopping).
            guard !runTasks.isClosed else { return }
            if let next = try? await store.startNextRun(chat, now: time.epochMilliseconds()) {
                await launch(next, in: chat)
            }
        }
        if task == nil {
            // The service is stopping: the run never began, so it fails instead of staying
            // "running" in the store.
            await settle(started.runId, in: chat, threadId: nil, subagent: [], ending: .failed)
        }
    }

    /// Stops every run within `deadline` on the service's clock: each is cancelled and settles
    /// as failed (what it showed stays in history). Returns the names of the runs that did not
    /// end in time.
    func shutdown(within deadline: Duration) async -> [String] {
        await runTasks.shutdown(within: deadline, sleep: time.sleep)
    }

    /// The runs in progress right now.
    var runningTasks: Int { runTasks.count }

    /// Returns once no run is in progress and none is about to start: nothing more is
    /// published or stored until a new call.
    func quiescent() async {
        await runTasks.quiescent()
    }

    /// The scripted turn: thinking, activity, the reply token by token, then settlement into
    /// history with a new overlay epoch.
    private func run(_ runId: String, in chat: WorkspaceChatKey, prompt: String, base: UInt64) async {
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
                publish(chat, .overlay(state.overlay))
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

    private func addBlock(_ chat: WorkspaceChatKey, _ block: TimelineBlock) async throws {
        let state = await store.updateLive(chat) { $0.blocks.append(block) }
        publish(chat, .overlay(state.overlay))
    }

    private func settle(
        _ runId: String, in chat: WorkspaceChatKey, threadId: String?, subagent: [String],
        ending: WorkspaceStore.RunState
    ) async {
        var rows: [WorkspaceHistory.NewRow] = []
        if let threadId {
            rows = subagent.enumerated().map { index, step in
                WorkspaceHistory.NewRow(
                    threadId: threadId, type: index % 2 == 0 ? .activity : .agentReply, text: step,
                    timestamp: time.epochMilliseconds())
            }
        }
        let now = time.epochMilliseconds()
        let settled = try? await store.settleRun(chat, runId: runId, ending: ending, extraRows: rows, now: now)
        // History that cannot be written still ends the run, as failed, so the chat is not stuck.
        let state: WorkspaceLiveState.Live
        if let settled { state = settled } else { state = await store.dropRun(chat, runId: runId) }
        publish(chat, .overlay(state.overlay))
        publish(chat, .run(runId: runId, state: settled == nil ? .failed : ending.wire))
        publish(chat, .session(sessionId: chat.sessionId, updatedAt: now))
    }
}
