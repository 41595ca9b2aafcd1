import SybilCore
import SybilStore
import SybilWire

/// The desktop's chats: their history (``WorkspaceHistory``), live state
/// (``WorkspaceLiveState``), call ledger (``WorkspaceCallLedger``) and runs, on one SQLite
/// connection confined to this actor. A run's acceptance writes the run, its user's text and
/// the call's answer in one transaction; loads and settlements happen in one actor turn each,
/// so a load never sees a row both in history and in the overlay. Uploads live in
/// ``WorkspaceUploadStore``.
actor WorkspaceStore {
    /// SQLite work (and its fsync) runs on this queue, off the cooperative thread pool.
    private let executor = SerialQueueExecutor(label: "sybil.server.workspaces")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    let database: SQLiteDatabase
    let history: WorkspaceHistory
    let calls: WorkspaceCallLedger
    var live: WorkspaceLiveState
    /// The number of the newest run id handed out (`run-<n>`), across restarts.
    var runNumber: Int64
    /// Fixed for this server start and larger than every earlier one's: event ids are
    /// `<boot>.<n>`, so an id from another start is never mistaken for one of this start.
    nonisolated let boot: Int64

    /// Opens storage, seeds a new one, and ends runs an earlier start left queued or running
    /// (killed mid-run) as failed, settling their users' messages into history at `now`.
    init(_ storage: SybilServerOptions.Storage, agent: ScriptedAgent, now: Int64 = 0) throws {
        let database = try WorkspaceSchema.open(storage)
        let history = WorkspaceHistory(database: database)
        if try history.isEmpty() {
            try database.transaction { try history.seed(agent: agent) }
        }
        let previousBoot = try database.row("SELECT COALESCE(MAX(boot), 0) AS boot FROM ws_boots").integer("boot")
        boot = max(now, previousBoot + 1)
        try database.query("INSERT INTO ws_boots (boot) VALUES (?)", [.integer(boot)])
        try database.transaction { try Self.recoverInterruptedRuns(history, now: now) }
        runNumber = try database.row("SELECT COALESCE(MAX(number), 0) AS number FROM ws_runs").integer("number")
        live = WorkspaceLiveState(settledEpochs: try history.settledEpochs())
        calls = WorkspaceCallLedger(database: database)
        self.history = history
        self.database = database
    }

    // MARK: History

    /// Sessions of a project, newest first.
    func sessions(desktopId: String, projectId: String) throws -> [WorkspaceHistory.Session] {
        try history.sessions(desktopId: desktopId, projectId: projectId)
    }

    /// Whether the chat exists.
    func exists(_ chat: WorkspaceChatKey) throws -> Bool {
        try history.exists(chat)
    }

    /// Whether the chat has a thread with `threadId`.
    func threadExists(_ chat: WorkspaceChatKey, threadId: String) throws -> Bool {
        try history.threadExists(chat, threadId: threadId)
    }

    /// The newest `limit` rows before `before` (all when `nil`) of the main timeline (`threadId`
    /// empty) or a thread, oldest first, and whether older rows exist; with the live state
    /// read in the same turn.
    func page(_ chat: WorkspaceChatKey, threadId: String, before: Int64?, limit: Int) throws -> (
        rows: [WorkspaceHistory.Row], hasOlder: Bool, live: WorkspaceLiveState.Live
    ) {
        let page = try history.page(chat, threadId: threadId, before: before, limit: limit)
        return (page.rows, page.hasOlder, live.state(of: chat))
    }

    // MARK: Live state

    /// The chat's live state.
    func liveState(_ chat: WorkspaceChatKey) -> WorkspaceLiveState.Live {
        live.state(of: chat)
    }

    /// Changes the chat's live state with `change`, bumping the revision; returns the result.
    func updateLive(_ chat: WorkspaceChatKey, _ change: (inout WorkspaceLiveState.Live) -> Void)
        -> WorkspaceLiveState.Live
    {
        live.update(chat, change)
    }

    // MARK: Calls

    /// The stored result of `callKey`, and whether `fingerprint` matches the first call's.
    func call(_ callKey: String) throws -> (fingerprint: String, result: String)? {
        try calls.answer(callKey)
    }

    /// Remembers the result of `callKey`.
    func recordCall(_ callKey: String, fingerprint: String, result: String) throws {
        try calls.record(callKey, fingerprint: fingerprint, result: result)
    }
}
