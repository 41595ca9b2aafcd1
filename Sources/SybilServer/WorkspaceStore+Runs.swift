import SybilCore
import SybilStore
import SybilWire

/// Runs: each accepted submission is written (run, the user's text, the call's receipt) in
/// one transaction before its receipt is answered, so an accepted message survives a kill at
/// any point; a run's blocks settle into history in the same turn that removes them from the
/// overlay.
extension WorkspaceStore {
    /// How a run ended (or `queued` / `running` while it has not).
    enum RunState: String, Sendable {
        case queued, running, finished, failed, stopped, cancelled

        /// The state as the contract names it.
        var wire: WorkspaceRunState {
            switch self {
            case .queued: .queued
            case .running: .started
            case .finished: .finished
            case .failed: .failed
            case .stopped: .stopped
            case .cancelled: .cancelled
            }
        }
    }

    /// A stored run.
    struct RunRecord: Sendable, Hashable {
        var runId: String
        var chat: WorkspaceChatKey
        var state: RunState
    }

    /// A run that starts now: its prompt and the history sequence its rows order under.
    struct StartedRun: Sendable {
        var runId: String
        var prompt: String
        var base: UInt64
        var live: WorkspaceLiveState.Live
    }

    /// Accepts a new turn: stores the run (running when the chat is idle with nothing queued,
    /// else queued behind the turns already waiting), the user's text and the receipt in one
    /// transaction, then shows the live user row.
    func acceptSend(
        _ chat: WorkspaceChatKey, operationId: String, text: String, now: Int64, call: WorkspaceCallLedger.CallRecord
    ) throws -> (runId: String, started: StartedRun?, live: WorkspaceLiveState.Live) {
        let runId = "run-\(runNumber + 1)"
        var state = live.state(of: chat)
        // Between one run ending and the next queued one starting the chat has no run, but
        // the waiting turns still come first.
        let startsNow = state.runId == nil && state.queue.isEmpty
        let base = UInt64(try history.nextSequence())
        try database.transaction {
            try database.query(
                """
                INSERT INTO ws_runs (run_id, number, desktop_id, project_id, session_id, state, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(runId), .integer(runNumber + 1)] + WorkspaceSchema.bind(chat) + [
                    .text((startsNow ? RunState.running : .queued).rawValue), .integer(now),
                ])
            try insertInput(runId: runId, position: 0, operationId: operationId, text: text, now: now)
            try calls.record(call, runId: runId)
        }
        runNumber += 1
        if startsNow {
            state.runId = runId
            state.runStartedAt = now
        } else {
            state.queue.append(WorkspaceLiveState.QueuedRun(runId: runId, prompt: text))
        }
        // A queued turn's row follows the running turn's until it starts.
        let position: UInt64 = startsNow ? 0 : 10_000 + UInt64(state.queue.count)
        state.blocks.append(
            TimelineBlock(
                type: .user, id: "l-\(operationId)", origin: .live, sourceOrder: [base, position], timestamp: now,
                text: text, runId: runId, operationId: operationId))
        state.revision += 1
        live.set(state, of: chat)
        let started = startsNow ? StartedRun(runId: runId, prompt: text, base: base, live: state) : nil
        return (runId, started, state)
    }

    /// Accepts a steer into the running run `runId` (stored with its receipt in one
    /// transaction); `nil` when `runId` is not the chat's running run.
    func acceptSteer(
        _ chat: WorkspaceChatKey, runId: String, operationId: String, text: String, now: Int64,
        call: WorkspaceCallLedger.CallRecord
    ) throws -> WorkspaceLiveState.Live? {
        var state = live.state(of: chat)
        guard state.runId == runId else { return nil }
        let position = try database.row(
            "SELECT COALESCE(MAX(position), -1) + 1 AS position FROM ws_run_inputs WHERE run_id = ?", [.text(runId)]
        ).integer("position")
        let sequence = UInt64(try history.nextSequence())
        try database.transaction {
            try insertInput(runId: runId, position: position, operationId: operationId, text: text, now: now)
            try calls.record(call, runId: runId)
        }
        // A steer follows everything the turn has shown so far.
        state.blocks.append(
            TimelineBlock(
                type: .user, id: "l-\(operationId)", origin: .live,
                sourceOrder: [sequence, 100 + UInt64(state.blocks.count)], timestamp: now, text: text, runId: runId,
                operationId: operationId))
        state.revision += 1
        live.set(state, of: chat)
        return state
    }

    /// Starts the chat's oldest queued run when none is running.
    func startNextRun(_ chat: WorkspaceChatKey, now: Int64) throws -> StartedRun? {
        var state = live.state(of: chat)
        guard state.runId == nil, let next = state.queue.first else { return nil }
        try database.query(
            "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(RunState.running.rawValue), .text(next.runId)])
        state.queue.removeFirst()
        let base = UInt64(try history.nextSequence())
        state.runId = next.runId
        state.runStartedAt = now
        for index in state.blocks.indices where state.blocks[index].runId == next.runId {
            state.blocks[index].sourceOrder = [base, 0]
        }
        state.revision += 1
        live.set(state, of: chat)
        return StartedRun(runId: next.runId, prompt: next.prompt, base: base, live: state)
    }

    /// Ends run `runId` as `ending`: writes its live blocks (in the order they were shown) and
    /// `extraRows` to history, records the ending and moves `updatedAt`, all in one
    /// transaction; in the same turn the overlay starts a new epoch with the other runs' rows.
    func settleRun(
        _ chat: WorkspaceChatKey, runId: String, ending: RunState, extraRows: [WorkspaceHistory.NewRow] = [],
        now: Int64
    ) throws -> WorkspaceLiveState.Live {
        let state = live.state(of: chat)
        let rows =
            state.blocks.filter { $0.runId == runId }
            .sorted { $0.sourceOrder.lexicographicallyPrecedes($1.sourceOrder) }.map(
                WorkspaceHistory.NewRow.init(settling:))
            + extraRows
        try database.transaction {
            for row in rows { try history.insert(row, into: chat) }
            try database.query(
                "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(ending.rawValue), .text(runId)])
            try history.touch(chat, updatedAt: now)
            // The overlay moves to the next epoch below; it is never reused after a restart.
            try history.recordSettledEpoch(state.epoch + 1, of: chat)
        }
        live.settled(state.epoch + 1, of: chat)
        return live.drop(run: runId, of: chat)
    }

    /// Ends a queued run as cancelled (its user's row settles into history); `nil` when the
    /// run is no longer queued.
    func cancelQueuedRun(_ chat: WorkspaceChatKey, runId: String, now: Int64) throws -> WorkspaceLiveState.Live? {
        guard live.state(of: chat).queue.contains(where: { $0.runId == runId }) else { return nil }
        return try settleRun(chat, runId: runId, ending: .cancelled, now: now)
    }

    /// Removes run `runId` from the overlay without writing history and starts the next
    /// epoch: a run whose history could not be written ends this way, so the overlay never
    /// shows a run that will not settle (its stored messages settle at the next start). The
    /// new epoch is recorded when storage allows, so that a later start's overlays are newer.
    func dropRun(_ chat: WorkspaceChatKey, runId: String) -> WorkspaceLiveState.Live {
        let state = live.drop(run: runId, of: chat)
        try? history.recordSettledEpoch(state.epoch, of: chat)
        return state
    }

    /// The stored run `runId`, or `nil`.
    func run(_ runId: String) throws -> RunRecord? {
        try database.rows(
            "SELECT desktop_id, project_id, session_id, state FROM ws_runs WHERE run_id = ?", [.text(runId)]
        ).first.map {
            RunRecord(
                runId: runId, chat: try WorkspaceSchema.chat(in: $0), state: try $0.decode(RunState.self, "state"))
        }
    }

    // MARK: Private

    /// Ends runs left queued or running by an earlier start as failed: their users' messages
    /// become canonical rows, in order, and the sessions' `updatedAt` moves to `now`. Each
    /// such chat's overlay was live under the epoch after its last settled one (clients may
    /// hold it at any revision), so that epoch counts as settled: this start's overlays take a
    /// newer one, which clients apply instead of keeping the dead run's rows.
    static func recoverInterruptedRuns(_ history: WorkspaceHistory, now: Int64) throws {
        let database = history.database
        let open = try database.rows(
            """
            SELECT run_id, desktop_id, project_id, session_id FROM ws_runs
            WHERE state IN ('queued', 'running') ORDER BY number
            """)
        let settled = try history.settledEpochs()
        var interrupted = Set<WorkspaceChatKey>()
        for run in open {
            let runId = try run.text("run_id")
            let chat = try WorkspaceSchema.chat(in: run)
            let inputs = try database.rows(
                "SELECT text, timestamp, operation_id FROM ws_run_inputs WHERE run_id = ? ORDER BY position",
                [.text(runId)])
            for input in inputs {
                try history.insert(
                    WorkspaceHistory.NewRow(
                        type: .user, text: try input.text("text"), timestamp: try input.integer("timestamp"),
                        operationId: try input.text("operation_id")),
                    into: chat)
            }
            try database.query(
                "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(RunState.failed.rawValue), .text(runId)])
            try history.touch(chat, updatedAt: now)
            interrupted.insert(chat)
        }
        for chat in interrupted {
            try history.recordSettledEpoch((settled[chat] ?? 0) + 1, of: chat)
        }
    }

    private func insertInput(runId: String, position: Int64, operationId: String, text: String, now: Int64) throws {
        try database.query(
            "INSERT INTO ws_run_inputs (run_id, position, operation_id, text, timestamp) VALUES (?, ?, ?, ?, ?)",
            [.text(runId), .integer(position), .text(operationId), .text(text), .integer(now)])
    }
}
