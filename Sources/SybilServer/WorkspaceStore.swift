import SybilCore
import SybilStore
import SybilWire

/// The desktop's storage: sessions and their history rows (main timeline and subagent
/// threads) in SQLite, call keys already answered, runs with their users' messages, chunked
/// uploads, and — in memory — each chat's live overlay and run queue. Loads and settlements happen in one actor turn each, so a load never
/// sees a row both in history and in the overlay.
actor WorkspaceStore {
    /// SQLite work (and its fsync) runs on this queue, off the cooperative thread pool.
    private let executor = SerialQueueExecutor(label: "sybil.server.workspaces")
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A history row: its sequence (order, id and cursor) and the contract block.
    struct Row: Sendable, Hashable {
        var sequence: Int64
        var block: TimelineBlock
    }

    /// A row to append.
    struct NewRow: Sendable, Hashable {
        var threadId: String = ""
        var type: TimelineRowType
        var text: String
        var timestamp: Int64
        var subagentThreadId: String?
        /// A user row's submission: history carries it so clients confirm their outbox entry.
        var operationId: String?

        init(
            threadId: String = "", type: TimelineRowType, text: String, timestamp: Int64,
            subagentThreadId: String? = nil, operationId: String? = nil
        ) {
            self.threadId = threadId
            self.type = type
            self.text = text
            self.timestamp = timestamp
            self.subagentThreadId = subagentThreadId
            self.operationId = operationId
        }

        /// The history row a live block settles into (a user row keeps its operation id).
        init(settling block: TimelineBlock) {
            self.init(
                type: block.type, text: block.text, timestamp: block.timestamp,
                subagentThreadId: block.subagentThreadId, operationId: block.type == .user ? block.operationId : nil)
        }
    }

    /// A session as listed.
    struct Session: Sendable, Hashable {
        var sessionId: String
        var title: String
        var updatedAt: Int64
    }

    /// A chat's live state: the overlay and the run, if one is active.
    struct Live: Sendable, Hashable {
        /// The overlay's settlement epoch (see ``WorkspaceStore/fresh(_:)`` for a start's first).
        var epoch: Int64 = 1
        var revision: Int64 = 0
        var blocks: [TimelineBlock] = []
        var runId: String?
        var runStartedAt: Int64?
        /// Runs accepted while another was running, oldest first; each starts when the one
        /// before it ends.
        var queue: [QueuedRun] = []

        var overlay: LiveOverlay {
            LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
        }
    }

    /// A run waiting for the chat's running run to end.
    struct QueuedRun: Sendable, Hashable {
        var runId: String
        var prompt: String
    }

    let database: SQLiteDatabase
    var live: [WorkspaceChatKey: Live] = [:]
    /// The number of the newest run id handed out (`run-<n>`), across restarts.
    var runNumber: Int64
    /// Fixed for this server start and larger than every earlier one's: event ids are
    /// `<boot>.<n>`, so an id from another start is never mistaken for one of this start.
    nonisolated let boot: Int64

    static let migrations: [SQLiteMigration] = [
        .init(
            name: "workspace-1",
            sql: """
                CREATE TABLE ws_sessions (
                    desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
                    title TEXT NOT NULL, updated_at INTEGER NOT NULL,
                    PRIMARY KEY (desktop_id, project_id, session_id)
                );
                CREATE TABLE ws_rows (
                    sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                    desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
                    thread_id TEXT NOT NULL DEFAULT '',
                    type TEXT NOT NULL, text TEXT NOT NULL, timestamp INTEGER NOT NULL,
                    subagent_thread_id TEXT
                );
                CREATE INDEX ws_rows_by_chat ON ws_rows (desktop_id, project_id, session_id, thread_id, sequence);
                CREATE TABLE ws_calls (call_key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, result TEXT NOT NULL);
                CREATE TABLE ws_uploads (
                    upload_id TEXT PRIMARY KEY, upload_key TEXT NOT NULL UNIQUE,
                    desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
                    file_name TEXT NOT NULL, mime_type TEXT NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
                    chunk_size INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'open', sha256 TEXT
                );
                CREATE TABLE ws_upload_chunks (
                    upload_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, bytes BLOB NOT NULL,
                    PRIMARY KEY (upload_id, chunk_index)
                );
                """),
        .init(
            name: "workspace-2-runs",
            sql: """
                CREATE TABLE ws_runs (
                    run_id TEXT PRIMARY KEY, number INTEGER NOT NULL UNIQUE,
                    desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
                    state TEXT NOT NULL, created_at INTEGER NOT NULL
                );
                CREATE INDEX ws_runs_by_state ON ws_runs (state, number);
                CREATE TABLE ws_run_inputs (
                    run_id TEXT NOT NULL, position INTEGER NOT NULL,
                    operation_id TEXT NOT NULL, text TEXT NOT NULL, timestamp INTEGER NOT NULL,
                    PRIMARY KEY (run_id, position)
                );
                CREATE TABLE ws_boots (boot INTEGER PRIMARY KEY);
                """),
        .init(name: "workspace-3-row-operations", sql: "ALTER TABLE ws_rows ADD COLUMN operation_id TEXT;"),
        .init(
            name: "workspace-4-epochs",
            sql: """
                CREATE TABLE ws_epochs (
                    desktop_id TEXT NOT NULL, project_id TEXT NOT NULL, session_id TEXT NOT NULL,
                    epoch INTEGER NOT NULL, PRIMARY KEY (desktop_id, project_id, session_id)
                );
                """),
    ]

    /// Opens storage, seeds a new one, and ends runs an earlier start left queued or running
    /// (killed mid-run) as failed, settling their users' messages into history at `now`.
    init(_ storage: SybilServerOptions.Storage, agent: ScriptedAgent, now: Int64 = 0) throws {
        let database = try ServerDatabase.open(storage, file: "workspaces.sqlite", migrations: Self.migrations)
        if try database.query("SELECT 1 FROM ws_sessions LIMIT 1").isEmpty {
            try database.transaction { try Self.seed(database, agent: agent) }
        }
        let previousBoot = try database.query("SELECT COALESCE(MAX(boot), 0) FROM ws_boots")[0][0].integerValue ?? 0
        boot = max(now, previousBoot + 1)
        try database.query("INSERT INTO ws_boots (boot) VALUES (?)", [.integer(boot)])
        try database.transaction { try Self.recoverInterruptedRuns(database, now: now) }
        runNumber = try database.query("SELECT COALESCE(MAX(number), 0) FROM ws_runs")[0][0].integerValue ?? 0
        var settledEpochs: [WorkspaceChatKey: Int64] = [:]
        for row in try database.query("SELECT desktop_id, project_id, session_id, epoch FROM ws_epochs") {
            guard let desktopId = row[0].textValue, let projectId = row[1].textValue,
                let sessionId = row[2].textValue, let epoch = row[3].integerValue
            else { throw SQLiteError(code: 0, message: "ws_epochs holds a row that is not a chat's epoch") }
            settledEpochs[WorkspaceChatKey(desktopId: desktopId, projectId: projectId, sessionId: sessionId)] = epoch
        }
        self.settledEpochs = settledEpochs
        self.database = database
    }

    // MARK: Sessions and history

    /// Sessions of a project, newest first.
    func sessions(desktopId: String, projectId: String) throws -> [Session] {
        try database.query(
            "SELECT session_id, title, updated_at FROM ws_sessions WHERE desktop_id = ? AND project_id = ? ORDER BY updated_at DESC, session_id",
            [.text(desktopId), .text(projectId)]
        ).map {
            Session(sessionId: $0[0].textValue ?? "", title: $0[1].textValue ?? "", updatedAt: $0[2].integerValue ?? 0)
        }
    }

    /// Whether the chat exists.
    func exists(_ chat: WorkspaceChatKey) throws -> Bool {
        !(try database.query(
            "SELECT 1 FROM ws_sessions WHERE desktop_id = ? AND project_id = ? AND session_id = ?", Self.bind(chat)))
            .isEmpty
    }

    /// Whether the chat has a thread with `threadId`.
    func threadExists(_ chat: WorkspaceChatKey, threadId: String) throws -> Bool {
        !(try database.query(
            "SELECT 1 FROM ws_rows WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ? LIMIT 1",
            Self.bind(chat) + [.text(threadId)])).isEmpty
    }

    /// The newest `limit` rows before `before` (all when `nil`) of the main timeline (`threadId`
    /// empty) or a thread, oldest first, and whether older rows exist; with the live state
    /// read in the same turn.
    func page(_ chat: WorkspaceChatKey, threadId: String, before: Int64?, limit: Int) throws -> (
        rows: [Row], hasOlder: Bool, live: Live
    ) {
        let rows = try database.query(
            """
            SELECT sequence, thread_id, type, text, timestamp, subagent_thread_id, operation_id FROM ws_rows
            WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ? AND sequence < ?
            ORDER BY sequence DESC LIMIT ?
            """,
            Self.bind(chat) + [.text(threadId), .integer(before ?? Int64.max), .integer(Int64(limit))]
        ).reversed().map { columns in
            let sequence = columns[0].integerValue ?? 0
            let thread = columns[1].textValue ?? ""
            return Row(
                sequence: sequence,
                block: TimelineBlock(
                    type: TimelineRowType(rawValue: columns[2].textValue ?? "") ?? .system,
                    id: (thread.isEmpty ? "e-" : "t-") + String(sequence), origin: .canonical,
                    sourceOrder: [UInt64(sequence)], timestamp: columns[4].integerValue ?? 0,
                    text: columns[3].textValue ?? "", operationId: columns[6].textValue,
                    subagentThreadId: columns[5].textValue))
        }
        let oldest = rows.first?.sequence ?? (before ?? Int64.max)
        let older = try database.query(
            """
            SELECT 1 FROM ws_rows WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ?
            AND sequence < ? LIMIT 1
            """, Self.bind(chat) + [.text(threadId), .integer(oldest)])
        return (rows, !older.isEmpty, live[chat] ?? fresh(chat))
    }

    // MARK: Live state

    /// The newest epoch each chat's history settled under, across starts.
    private var settledEpochs: [WorkspaceChatKey: Int64]

    /// A chat's live state before anything happened in it since this start: the epoch after
    /// the last one its history settled under, so clients (which keep the newest epoch they
    /// saw) take this start's overlays.
    func fresh(_ chat: WorkspaceChatKey) -> Live {
        Live(epoch: (settledEpochs[chat] ?? 0) + 1)
    }

    /// Records in `database` (inside the caller's transaction) that `chat` settled under
    /// `epoch`.
    func recordSettledEpoch(_ epoch: Int64, of chat: WorkspaceChatKey) throws {
        try database.query(
            """
            INSERT INTO ws_epochs (desktop_id, project_id, session_id, epoch) VALUES (?, ?, ?, ?)
            ON CONFLICT (desktop_id, project_id, session_id) DO UPDATE SET epoch = MAX(epoch, excluded.epoch)
            """, Self.bind(chat) + [.integer(epoch)])
        settledEpochs[chat] = max(settledEpochs[chat] ?? 0, epoch)
    }

    /// The chat's live state.
    func liveState(_ chat: WorkspaceChatKey) -> Live {
        live[chat] ?? fresh(chat)
    }

    /// Changes the chat's live state with `change`, bumping the revision; returns the result.
    func updateLive(_ chat: WorkspaceChatKey, _ change: (inout Live) -> Void) -> Live {
        var state = live[chat] ?? fresh(chat)
        change(&state)
        state.revision += 1
        live[chat] = state
        return state
    }

    /// Moves the session's `updatedAt` forward (never backwards).
    static func touch(_ chat: WorkspaceChatKey, updatedAt: Int64, _ database: SQLiteDatabase) throws {
        try database.query(
            "UPDATE ws_sessions SET updated_at = MAX(updated_at, ?) WHERE desktop_id = ? AND project_id = ? AND session_id = ?",
            [.integer(updatedAt)] + Self.bind(chat))
    }

    /// The next row sequence history will use (for live rows' source order).
    func nextSequence() throws -> Int64 {
        (try database.query("SELECT COALESCE(MAX(sequence), 0) + 1 FROM ws_rows")[0][0].integerValue) ?? 1
    }

    // MARK: Calls

    /// The stored result of `callKey`, and whether `fingerprint` matches the first call's.
    func call(_ callKey: String) throws -> (fingerprint: String, result: String)? {
        try database.query("SELECT fingerprint, result FROM ws_calls WHERE call_key = ?", [.text(callKey)]).first.map {
            ($0[0].textValue ?? "", $0[1].textValue ?? "")
        }
    }

    /// Remembers the result of `callKey`.
    func recordCall(_ callKey: String, fingerprint: String, result: String) throws {
        try database.query(
            "INSERT OR IGNORE INTO ws_calls (call_key, fingerprint, result) VALUES (?, ?, ?)",
            [.text(callKey), .text(fingerprint), .text(result)])
    }

    // MARK: Uploads

    /// Where a chunked upload is.
    enum UploadState: String, Sendable, Hashable {
        /// Chunks may arrive.
        case open
        /// Every chunk arrived; its digest is known. Messages may list it.
        case finished
        /// Cancelled; its chunks are gone and its key may be used again.
        case cancelled
    }

    /// A chunked upload's record.
    struct Upload: Sendable, Hashable {
        var uploadId: String
        var uploadKey: String
        var chat: WorkspaceChatKey
        var fileName: String
        var mimeType: String
        var path: String
        var size: Int64
        var chunkSize: Int64
        var state: UploadState
        var sha256: String?

        var chunkCount: Int64 { size == 0 ? 0 : (size + chunkSize - 1) / chunkSize }
    }

    /// The upload with `uploadKey` (not cancelled), or `nil`.
    func upload(key uploadKey: String) throws -> Upload? {
        try uploads(where: "upload_key = ? AND state != 'cancelled'", [.text(uploadKey)]).first
    }

    /// The upload with `uploadId`, or `nil`.
    func upload(id uploadId: String) throws -> Upload? {
        try uploads(where: "upload_id = ?", [.text(uploadId)]).first
    }

    /// Creates an upload.
    func createUpload(_ upload: Upload) throws {
        try database.transaction {
            // A cancelled upload's key may be used again by a new one.
            try database.query(
                "UPDATE ws_uploads SET upload_key = upload_key || ':cancelled:' || upload_id WHERE upload_key = ? AND state = 'cancelled'",
                [.text(upload.uploadKey)])
            try database.query(
                """
                INSERT INTO ws_uploads (upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type,
                path, size, chunk_size) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(upload.uploadId), .text(upload.uploadKey)] + Self.bind(upload.chat) + [
                    .text(upload.fileName), .text(upload.mimeType), .text(upload.path), .integer(upload.size),
                    .integer(upload.chunkSize),
                ])
        }
    }

    /// The stored bytes of chunk `index`, if any.
    func chunk(_ uploadId: String, index: Int64) throws -> [UInt8]? {
        try database.query(
            "SELECT bytes FROM ws_upload_chunks WHERE upload_id = ? AND chunk_index = ?",
            [.text(uploadId), .integer(index)]
        ).first?[0].blobValue
    }

    /// Stores chunk `index`.
    func storeChunk(_ uploadId: String, index: Int64, bytes: [UInt8]) throws {
        try database.query(
            "INSERT OR IGNORE INTO ws_upload_chunks (upload_id, chunk_index, bytes) VALUES (?, ?, ?)",
            [.text(uploadId), .integer(index), .blob(bytes)])
    }

    /// Indices of stored chunks, ascending, and their total size.
    func receivedChunks(_ uploadId: String) throws -> (indices: [Int64], bytes: Int64) {
        let rows = try database.query(
            "SELECT chunk_index, length(bytes) FROM ws_upload_chunks WHERE upload_id = ? ORDER BY chunk_index",
            [.text(uploadId)])
        return (rows.compactMap { $0[0].integerValue }, rows.reduce(0) { $0 + ($1[1].integerValue ?? 0) })
    }

    /// All chunk bytes in order.
    func assembledBytes(_ uploadId: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for row in try database.query(
            "SELECT bytes FROM ws_upload_chunks WHERE upload_id = ? ORDER BY chunk_index", [.text(uploadId)])
        {
            bytes.append(contentsOf: row[0].blobValue ?? [])
        }
        return bytes
    }

    /// Marks an upload finished (with its digest) or cancelled (dropping its chunks).
    func setUploadState(_ uploadId: String, state: UploadState, sha256: String? = nil) throws {
        try database.transaction {
            try database.query(
                "UPDATE ws_uploads SET state = ?, sha256 = COALESCE(?, sha256) WHERE upload_id = ?",
                [.text(state.rawValue), .optionalText(sha256), .text(uploadId)])
            if state == .cancelled {
                try database.query("DELETE FROM ws_upload_chunks WHERE upload_id = ?", [.text(uploadId)])
            }
        }
    }

    // MARK: Private

    private func uploads(where condition: String, _ parameters: [SQLiteValue]) throws -> [Upload] {
        try database.query(
            """
            SELECT upload_id, upload_key, desktop_id, project_id, session_id, file_name, mime_type, path, size,
            chunk_size, state, sha256 FROM ws_uploads WHERE \(condition)
            """, parameters
        ).map {
            guard let state = UploadState(rawValue: $0[10].textValue ?? "") else {
                throw SQLiteError(code: 0, message: "ws_uploads.state is \($0[10]) for \($0[0]), not a known state")
            }
            return Upload(
                uploadId: $0[0].textValue ?? "", uploadKey: $0[1].textValue ?? "",
                chat: WorkspaceChatKey(
                    desktopId: $0[2].textValue ?? "", projectId: $0[3].textValue ?? "", sessionId: $0[4].textValue ?? ""
                ),
                fileName: $0[5].textValue ?? "", mimeType: $0[6].textValue ?? "", path: $0[7].textValue ?? "",
                size: $0[8].integerValue ?? 0, chunkSize: $0[9].integerValue ?? 1, state: state,
                sha256: $0[11].textValue)
        }
    }

    static func insert(_ row: NewRow, into chat: WorkspaceChatKey, _ database: SQLiteDatabase) throws {
        try database.query(
            """
            INSERT INTO ws_rows (desktop_id, project_id, session_id, thread_id, type, text, timestamp,
            subagent_thread_id, operation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            Self.bind(chat) + [
                .text(row.threadId), .text(row.type.rawValue), .text(row.text), .integer(row.timestamp),
                .optionalText(row.subagentThreadId), .optionalText(row.operationId),
            ])
    }

    static func bind(_ chat: WorkspaceChatKey) -> [SQLiteValue] {
        [.text(chat.desktopId), .text(chat.projectId), .text(chat.sessionId)]
    }

    /// Seeds the sessions' history: per turn a user question, thinking, tool activity and
    /// the agent's reply; sess-42's first reply carries a subagent thread.
    private static func seed(_ database: SQLiteDatabase, agent: ScriptedAgent) throws {
        var timestamp = WorkspaceWorld.seedEpoch
        for session in WorkspaceWorld.sessions {
            let chat = WorkspaceChatKey(
                desktopId: session.desktopId, projectId: session.projectId, sessionId: session.sessionId)
            timestamp += 3_600_000
            try database.query(
                "INSERT INTO ws_sessions (desktop_id, project_id, session_id, title, updated_at) VALUES (?, ?, ?, ?, ?)",
                bind(chat) + [.text(session.title), .integer(timestamp)])
            var rows: [NewRow] = []
            for turn in 0..<session.turns {
                let question = "\(session.title): question \(turn + 1)"
                let reply = agent.reply(to: question)
                let thread = session.sessionId == "sess-42" && turn == 0 ? WorkspaceWorld.seededThreadId : nil
                for (type, text) in [
                    (TimelineRowType.user, question), (.thinking, reply.thinking), (.activity, reply.activity),
                    (.agentReply, reply.text),
                ] {
                    timestamp += 1_000
                    rows.append(
                        NewRow(
                            type: type, text: text, timestamp: timestamp,
                            subagentThreadId: type == .agentReply ? thread : nil))
                }
                if let thread {
                    for step in 0..<60 {
                        timestamp += 100
                        rows.append(
                            NewRow(
                                threadId: thread, type: step % 2 == 0 ? .activity : .agentReply,
                                text: "Subagent step \(step + 1)", timestamp: timestamp))
                    }
                }
            }
            for row in rows { try insert(row, into: chat, database) }
            try touch(chat, updatedAt: timestamp, database)
        }
    }
}
