import SybilCore
import SybilStore
import SybilWire

/// The workspace's chat history in SQLite: sessions, their rows (main timeline and subagent
/// threads) in sequence order, and the newest overlay epoch each chat's history settled
/// under. A value over the owner's connection: its owner (``WorkspaceStore``) confines it to
/// one actor, so history writes join the owner's transactions.
struct WorkspaceHistory {
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

    let database: SQLiteDatabase

    /// Whether no session is stored yet (a new database, to be seeded).
    func isEmpty() throws -> Bool {
        try database.rows("SELECT 1 FROM ws_sessions LIMIT 1").isEmpty
    }

    /// Sessions of a project, newest first.
    func sessions(desktopId: String, projectId: String) throws -> [Session] {
        try database.rows(
            """
            SELECT session_id, title, updated_at FROM ws_sessions WHERE desktop_id = ? AND project_id = ?
            ORDER BY updated_at DESC, session_id
            """,
            [.text(desktopId), .text(projectId)]
        ).map {
            Session(
                sessionId: try $0.text("session_id"), title: try $0.text("title"),
                updatedAt: try $0.integer("updated_at"))
        }
    }

    /// Whether the chat exists.
    func exists(_ chat: WorkspaceChatKey) throws -> Bool {
        !(try database.rows(
            "SELECT 1 FROM ws_sessions WHERE desktop_id = ? AND project_id = ? AND session_id = ?",
            WorkspaceSchema.bind(chat))).isEmpty
    }

    /// Whether the chat has a thread with `threadId`.
    func threadExists(_ chat: WorkspaceChatKey, threadId: String) throws -> Bool {
        !(try database.rows(
            "SELECT 1 FROM ws_rows WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ? LIMIT 1",
            WorkspaceSchema.bind(chat) + [.text(threadId)])).isEmpty
    }

    /// The newest `limit` rows before `before` (all when `nil`) of the main timeline (`threadId`
    /// empty) or a thread, oldest first, and whether older rows exist.
    func page(_ chat: WorkspaceChatKey, threadId: String, before: Int64?, limit: Int) throws -> (
        rows: [Row], hasOlder: Bool
    ) {
        let rows = try database.rows(
            """
            SELECT sequence, thread_id, type, text, timestamp, subagent_thread_id, operation_id FROM ws_rows
            WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ? AND sequence < ?
            ORDER BY sequence DESC LIMIT ?
            """,
            WorkspaceSchema.bind(chat) + [.text(threadId), .integer(before ?? Int64.max), .integer(Int64(limit))]
        ).reversed().map(Self.row(from:))
        let oldest = rows.first?.sequence ?? (before ?? Int64.max)
        let older = try database.rows(
            """
            SELECT 1 FROM ws_rows WHERE desktop_id = ? AND project_id = ? AND session_id = ? AND thread_id = ?
            AND sequence < ? LIMIT 1
            """, WorkspaceSchema.bind(chat) + [.text(threadId), .integer(oldest)])
        return (rows, !older.isEmpty)
    }

    /// The next row sequence history will use (for live rows' source order).
    func nextSequence() throws -> Int64 {
        try database.row("SELECT COALESCE(MAX(sequence), 0) + 1 AS next FROM ws_rows").integer("next")
    }

    /// Appends `row` to the chat's history.
    func insert(_ row: NewRow, into chat: WorkspaceChatKey) throws {
        try database.query(
            """
            INSERT INTO ws_rows (desktop_id, project_id, session_id, thread_id, type, text, timestamp,
            subagent_thread_id, operation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            WorkspaceSchema.bind(chat) + [
                .text(row.threadId), .text(row.type.rawValue), .text(row.text), .integer(row.timestamp),
                .optionalText(row.subagentThreadId), .optionalText(row.operationId),
            ])
    }

    /// Moves the session's `updatedAt` forward (never backwards).
    func touch(_ chat: WorkspaceChatKey, updatedAt: Int64) throws {
        try database.query(
            "UPDATE ws_sessions SET updated_at = MAX(updated_at, ?) WHERE desktop_id = ? AND project_id = ? AND session_id = ?",
            [.integer(updatedAt)] + WorkspaceSchema.bind(chat))
    }

    // MARK: Epochs

    /// The newest epoch each chat's history settled under, across starts.
    func settledEpochs() throws -> [WorkspaceChatKey: Int64] {
        var epochs: [WorkspaceChatKey: Int64] = [:]
        for row in try database.rows("SELECT desktop_id, project_id, session_id, epoch FROM ws_epochs") {
            epochs[try WorkspaceSchema.chat(in: row)] = try row.integer("epoch")
        }
        return epochs
    }

    /// Records (inside the caller's transaction) that `chat` settled under `epoch`.
    func recordSettledEpoch(_ epoch: Int64, of chat: WorkspaceChatKey) throws {
        try database.query(
            """
            INSERT INTO ws_epochs (desktop_id, project_id, session_id, epoch) VALUES (?, ?, ?, ?)
            ON CONFLICT (desktop_id, project_id, session_id) DO UPDATE SET epoch = MAX(epoch, excluded.epoch)
            """, WorkspaceSchema.bind(chat) + [.integer(epoch)])
    }

    // MARK: Private

    private static func row(from row: SQLiteRow) throws -> Row {
        let sequence = try row.integer("sequence")
        let thread = try row.text("thread_id")
        return Row(
            sequence: sequence,
            block: TimelineBlock(
                type: try row.decode(TimelineRowType.self, "type"),
                id: (thread.isEmpty ? "e-" : "t-") + String(sequence), origin: .canonical,
                sourceOrder: [UInt64(sequence)], timestamp: try row.integer("timestamp"),
                text: try row.text("text"), operationId: try row.optionalText("operation_id"),
                subagentThreadId: try row.optionalText("subagent_thread_id")))
    }
}
