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

    /// A call's key, its params' fingerprint, and the answer given its run id.
    struct CallRecord: Sendable {
        var key: String
        var fingerprint: String
        var result: @Sendable (_ runId: String) -> String
    }

    /// A run that starts now: its prompt and the history sequence its rows order under.
    struct StartedRun: Sendable {
        var runId: String
        var prompt: String
        var base: UInt64
        var live: Live
    }

    /// Accepts a new turn: stores the run (running when the chat is idle, else queued), the
    /// user's text and the receipt in one transaction, then shows the live user row.
    func acceptSend(_ chat: WorkspaceChatKey, operationId: String, text: String, now: Int64, call: CallRecord) throws
        -> (runId: String, started: StartedRun?, live: Live)
    {
        let runId = "run-\(runNumber + 1)"
        var state = live[chat] ?? fresh(chat)
        let startsNow = state.runId == nil
        let base = UInt64(try nextSequence())
        try database.transaction {
            try database.query(
                """
                INSERT INTO ws_runs (run_id, number, desktop_id, project_id, session_id, state, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(runId), .integer(runNumber + 1)] + Self.bind(chat) + [
                    .text((startsNow ? RunState.running : .queued).rawValue), .integer(now),
                ])
            try Self.insertInput(runId: runId, position: 0, operationId: operationId, text: text, now: now, database)
            try Self.insertCall(call, runId: runId, database)
        }
        runNumber += 1
        if startsNow {
            state.runId = runId
            state.runStartedAt = now
        } else {
            state.queue.append(QueuedRun(runId: runId, prompt: text))
        }
        // A queued turn's row follows the running turn's until it starts.
        let position: UInt64 = startsNow ? 0 : 10_000 + UInt64(state.queue.count)
        state.blocks.append(
            TimelineBlock(
                type: .user, id: "l-\(operationId)", origin: .live, sourceOrder: [base, position], timestamp: now,
                text: text, runId: runId, operationId: operationId))
        state.revision += 1
        live[chat] = state
        let started = startsNow ? StartedRun(runId: runId, prompt: text, base: base, live: state) : nil
        return (runId, started, state)
    }

    /// Accepts a steer into the running run `runId` (stored with its receipt in one
    /// transaction); `nil` when `runId` is not the chat's running run.
    func acceptSteer(
        _ chat: WorkspaceChatKey, runId: String, operationId: String, text: String, now: Int64, call: CallRecord
    )
        throws -> Live?
    {
        guard var state = live[chat], state.runId == runId else { return nil }
        let position =
            try database.query(
                "SELECT COALESCE(MAX(position), -1) + 1 FROM ws_run_inputs WHERE run_id = ?", [.text(runId)]
            )[0][0].integerValue ?? 0
        let sequence = UInt64(try nextSequence())
        try database.transaction {
            try Self.insertInput(
                runId: runId, position: position, operationId: operationId, text: text, now: now, database)
            try Self.insertCall(call, runId: runId, database)
        }
        // A steer follows everything the turn has shown so far.
        state.blocks.append(
            TimelineBlock(
                type: .user, id: "l-\(operationId)", origin: .live,
                sourceOrder: [sequence, 100 + UInt64(state.blocks.count)], timestamp: now, text: text, runId: runId,
                operationId: operationId))
        state.revision += 1
        live[chat] = state
        return state
    }

    /// Starts the chat's oldest queued run when none is running.
    func startNextRun(_ chat: WorkspaceChatKey, now: Int64) throws -> StartedRun? {
        guard var state = live[chat], state.runId == nil, let next = state.queue.first else { return nil }
        try database.query(
            "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(RunState.running.rawValue), .text(next.runId)])
        state.queue.removeFirst()
        let base = UInt64(try nextSequence())
        state.runId = next.runId
        state.runStartedAt = now
        for index in state.blocks.indices where state.blocks[index].runId == next.runId {
            state.blocks[index].sourceOrder = [base, 0]
        }
        state.revision += 1
        live[chat] = state
        return StartedRun(runId: next.runId, prompt: next.prompt, base: base, live: state)
    }

    /// Ends run `runId` as `ending`: writes its live blocks (in the order they were shown) and
    /// `extraRows` to history, records the ending and moves `updatedAt`, all in one
    /// transaction; in the same turn the overlay starts a new epoch with the other runs' rows.
    func settleRun(_ chat: WorkspaceChatKey, runId: String, ending: RunState, extraRows: [NewRow] = [], now: Int64)
        throws
        -> Live
    {
        let state = live[chat] ?? fresh(chat)
        let rows =
            state.blocks.filter { $0.runId == runId }
            .sorted { $0.sourceOrder.lexicographicallyPrecedes($1.sourceOrder) }.map(NewRow.init(settling:))
            + extraRows
        try database.transaction {
            for row in rows { try Self.insert(row, into: chat, database) }
            try database.query(
                "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(ending.rawValue), .text(runId)])
            try Self.touch(chat, updatedAt: now, database)
            // The overlay moves to the next epoch below; it is never reused after a restart.
            try recordSettledEpoch(state.epoch + 1, of: chat)
        }
        return dropRun(chat, runId: runId)
    }

    /// Ends a queued run as cancelled (its user's row settles into history); `nil` when the
    /// run is no longer queued.
    func cancelQueuedRun(_ chat: WorkspaceChatKey, runId: String, now: Int64) throws -> Live? {
        guard live[chat]?.queue.contains(where: { $0.runId == runId }) == true else { return nil }
        return try settleRun(chat, runId: runId, ending: .cancelled, now: now)
    }

    /// Removes run `runId` from the overlay without writing history and starts the next
    /// epoch: a run whose history could not be written ends this way, so the overlay never
    /// shows a run that will not settle (its stored messages settle at the next start).
    func dropRun(_ chat: WorkspaceChatKey, runId: String) -> Live {
        let old = live[chat] ?? fresh(chat)
        let rest = old.blocks.filter { $0.runId != runId }
        let running = old.runId == runId ? nil : old.runId
        let state = Live(
            epoch: old.epoch + 1, revision: rest.isEmpty ? 0 : 1, blocks: rest, runId: running,
            runStartedAt: running == nil ? nil : old.runStartedAt, queue: old.queue.filter { $0.runId != runId })
        live[chat] = state
        return state
    }

    /// The stored run `runId`, or `nil`.
    func run(_ runId: String) throws -> RunRecord? {
        try database.query(
            "SELECT desktop_id, project_id, session_id, state FROM ws_runs WHERE run_id = ?", [.text(runId)]
        ).first.map {
            RunRecord(
                runId: runId,
                chat: WorkspaceChatKey(
                    desktopId: $0[0].textValue ?? "", projectId: $0[1].textValue ?? "", sessionId: $0[2].textValue ?? ""
                ),
                state: RunState(rawValue: $0[3].textValue ?? "") ?? .failed)
        }
    }

    // MARK: Private

    /// Ends runs left queued or running by an earlier start as failed: their users' messages
    /// become canonical rows, in order, and the sessions' `updatedAt` moves to `now`.
    static func recoverInterruptedRuns(_ database: SQLiteDatabase, now: Int64) throws {
        let open = try database.query(
            """
            SELECT run_id, desktop_id, project_id, session_id FROM ws_runs
            WHERE state IN ('queued', 'running') ORDER BY number
            """)
        for columns in open {
            let runId = columns[0].textValue ?? ""
            let chat = WorkspaceChatKey(
                desktopId: columns[1].textValue ?? "", projectId: columns[2].textValue ?? "",
                sessionId: columns[3].textValue ?? "")
            let inputs = try database.query(
                "SELECT text, timestamp, operation_id FROM ws_run_inputs WHERE run_id = ? ORDER BY position",
                [.text(runId)])
            for input in inputs {
                try insert(
                    NewRow(
                        type: .user, text: input[0].textValue ?? "", timestamp: input[1].integerValue ?? now,
                        operationId: input[2].textValue),
                    into: chat, database)
            }
            try database.query(
                "UPDATE ws_runs SET state = ? WHERE run_id = ?", [.text(RunState.failed.rawValue), .text(runId)])
            try touch(chat, updatedAt: now, database)
        }
    }

    private static func insertInput(
        runId: String, position: Int64, operationId: String, text: String, now: Int64, _ database: SQLiteDatabase
    ) throws {
        try database.query(
            "INSERT INTO ws_run_inputs (run_id, position, operation_id, text, timestamp) VALUES (?, ?, ?, ?, ?)",
            [.text(runId), .integer(position), .text(operationId), .text(text), .integer(now)])
    }

    private static func insertCall(_ call: CallRecord, runId: String, _ database: SQLiteDatabase) throws {
        try database.query(
            "INSERT OR IGNORE INTO ws_calls (call_key, fingerprint, result) VALUES (?, ?, ?)",
            [.text(call.key), .text(call.fingerprint), .text(call.result(runId))])
    }
}
