import Dispatch
import SybilCore

/// The chat history in an SQLite file (seed 003/004): conversations, messages with their model,
/// state and timing, and saved web searches, with a full-text index kept in step by every
/// write, in the write's transaction.
///
/// Durability: WAL with `synchronous=FULL`, so a write that returns has reached the disk. Every
/// write runs in `BEGIN IMMEDIATE`, so two processes writing the same file at once take turns
/// within the busy timeout instead of failing with `SQLITE_BUSY`, and no write is lost.
///
/// Confinement: the connection is used only on this store's own serial dispatch queue, so the
/// blocking SQLite work and its fsyncs never run on the cooperative thread pool.
public final class SQLiteChatHistory: ChatHistoryStore, @unchecked Sendable {
    // @unchecked Sendable: `database` is the only mutable state (a C handle and its statement
    // cache); after `init` it is touched only inside blocks run on `queue`, which is serial.
    private let database: SQLiteDatabase
    private let queue: DispatchQueue
    /// The database file.
    public let path: String

    /// Opens (creating when missing, with an owner-only directory) the history at `path` and
    /// applies the migrations not yet applied. Another process's lock is waited for up to
    /// `busyTimeoutMilliseconds`.
    public init(path: String, busyTimeoutMilliseconds: Int = 5_000) throws {
        self.path = path
        database = try SQLiteDatabase.open(
            path: path, migrations: Self.migrations, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try database.execute("PRAGMA synchronous = FULL")
        queue = DispatchQueue(label: "sybil.chat-history")
    }

    /// Runs `work` with the connection on the store's queue and returns its result.
    func run<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try work(self.database) })
            }
        }
    }

    /// Runs `work` in one `BEGIN IMMEDIATE` transaction on the store's queue.
    func write<T: Sendable>(_ work: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        try await run { database in try database.transaction { try work(database) } }
    }

    // MARK: Conversations

    /// Saves a new conversation; an id that exists is an error.
    public func createConversation(_ conversation: ChatConversationRecord) async throws {
        try await write { database in try Self.insert(conversation, database) }
    }

    /// Saves a new conversation with its first messages in one transaction: all or nothing.
    public func createConversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord])
        async throws
    {
        let path = path
        try await write { database in
            try Self.insert(conversation, database)
            for message in messages { try Self.insert(message, database, path: path) }
        }
    }

    private static func insert(_ conversation: ChatConversationRecord, _ database: SQLiteDatabase) throws {
        try database.query(
            """
            INSERT INTO chat_conversations (id, title, created_at, updated_at, system_prompt, model)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .text(conversation.id), .text(conversation.title), .integer(conversation.createdAt),
                .integer(conversation.updatedAt), conversation.systemPrompt.map(SQLiteValue.text) ?? .null,
                conversation.model.map(SQLiteValue.text) ?? .null,
            ])
        let seq = try lastInsertRowid(database)
        try indexConversation(seq: seq, title: conversation.title, replacing: nil, database)
    }

    /// Changes a conversation's title and sets its `updatedAt` to `time`; an unknown id is an error.
    public func renameConversation(id: String, title: String, at time: Int64) async throws {
        let path = path
        try await write { database in
            let row = try database.query(
                "SELECT seq, search_rowid FROM chat_conversations WHERE id = ?", [.text(id)]
            ).first
            guard let row else { throw Self.missing("conversation", id: id, path: path) }
            let seq = try Self.integer(row, 0, "chat_conversations.seq", path: path)
            let old = try Self.optionalInteger(row, 1, "chat_conversations.search_rowid", path: path)
            try database.query(
                "UPDATE chat_conversations SET title = ?, updated_at = ? WHERE seq = ?",
                [.text(title), .integer(time), .integer(seq)])
            try Self.indexConversation(seq: seq, title: title, replacing: old, database)
        }
    }

    /// Sets the model conversation `id` asks for, leaving its `updatedAt`; an unknown id is an
    /// error.
    public func setConversationModel(id: String, model: String) async throws {
        let path = path
        try await write { database in
            guard try database.query("SELECT seq FROM chat_conversations WHERE id = ?", [.text(id)]).first != nil
            else { throw Self.missing("conversation", id: id, path: path) }
            try database.query("UPDATE chat_conversations SET model = ? WHERE id = ?", [.text(model), .text(id)])
        }
    }

    /// Removes a conversation, its messages and their index rows; an unknown id does nothing.
    public func deleteConversation(id: String) async throws {
        try await write { database in
            try database.query(
                """
                DELETE FROM chat_search WHERE rowid IN (
                    SELECT m.search_rowid FROM chat_messages m JOIN chat_conversations c ON m.conversation_seq = c.seq
                    WHERE c.id = ?
                    UNION ALL SELECT search_rowid FROM chat_conversations WHERE id = ?)
                """, [.text(id), .text(id)])
            try database.query(
                "DELETE FROM chat_messages WHERE conversation_seq IN (SELECT seq FROM chat_conversations WHERE id = ?)",
                [.text(id)])
            try database.query("DELETE FROM chat_conversations WHERE id = ?", [.text(id)])
        }
    }

    /// The conversation with `id`, if saved.
    public func conversation(id: String) async throws -> ChatConversationRecord? {
        let path = path
        return try await run { database in
            try database.query(
                "SELECT id, title, created_at, updated_at, system_prompt, model FROM chat_conversations WHERE id = ?",
                [.text(id)]
            ).first.map { try Self.conversation($0, path: path) }
        }
    }

    /// The most recently updated conversations, newest first (ties: the later created first).
    public func recentConversations(limit: Int) async throws -> [ChatConversationRecord] {
        let path = path
        return try await run { database in
            try database.query(
                """
                SELECT id, title, created_at, updated_at, system_prompt, model FROM chat_conversations
                ORDER BY updated_at DESC, seq DESC LIMIT ?
                """, [.integer(Int64(max(0, limit)))]
            ).map { try Self.conversation($0, path: path) }
        }
    }

    // MARK: Web searches

    /// Saves a web search's query, answer and sources; an id that exists is an error.
    public func saveWebSearch(_ search: SavedWebSearch) async throws {
        let sources = JSONWriter().string(from: .array(search.sources.map(\.jsonValue)))
        try await write { database in
            try database.query(
                "INSERT INTO chat_web_searches (id, query, answer, created_at, sources) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(search.id), .text(search.query), .text(search.answer), .integer(search.createdAt),
                    .text(sources),
                ])
            let seq = try Self.lastInsertRowid(database)
            try Self.recordTerms(of: search.query, database)
            try Self.recordTerms(of: search.answer, database)
            try database.query(
                "INSERT INTO chat_search (title, body, kind, ref) VALUES (?, ?, ?, ?)",
                [
                    .text(ChatSearchQuery.indexText(search.query)), .text(ChatSearchQuery.indexText(search.answer)),
                    .integer(SearchKind.webSearch.rawValue), .integer(seq),
                ])
            try database.query(
                "UPDATE chat_web_searches SET search_rowid = ? WHERE seq = ?",
                [.integer(try Self.lastInsertRowid(database)), .integer(seq)])
        }
    }

    // MARK: Shared helpers

    /// What an index row points at (the `kind` column of `chat_search`).
    enum SearchKind: Int64 {
        case title = 0
        case message = 1
        case webSearch = 2
    }

    static func lastInsertRowid(_ database: SQLiteDatabase) throws -> Int64 {
        guard let value = try database.query("SELECT last_insert_rowid()").first?.first?.integerValue else {
            throw SQLiteError(code: 1, message: "last_insert_rowid() returned no integer")
        }
        return value
    }

    /// Replaces a conversation title's index row (`replacing` is the old one's rowid).
    private static func indexConversation(seq: Int64, title: String, replacing old: Int64?, _ database: SQLiteDatabase)
        throws
    {
        if let old { try database.query("DELETE FROM chat_search WHERE rowid = ?", [.integer(old)]) }
        try recordTerms(of: title, database)
        try database.query(
            "INSERT INTO chat_search (title, body, kind, ref) VALUES (?, '', ?, ?)",
            [.text(ChatSearchQuery.indexText(title)), .integer(SearchKind.title.rawValue), .integer(seq)])
        try database.query(
            "UPDATE chat_conversations SET search_rowid = ? WHERE seq = ?",
            [.integer(try lastInsertRowid(database)), .integer(seq)])
    }

    private static func conversation(_ row: [SQLiteValue], path: String) throws -> ChatConversationRecord {
        ChatConversationRecord(
            id: try text(row, 0, "chat_conversations.id", path: path),
            title: try text(row, 1, "chat_conversations.title", path: path),
            createdAt: try integer(row, 2, "chat_conversations.created_at", path: path),
            updatedAt: try integer(row, 3, "chat_conversations.updated_at", path: path),
            systemPrompt: try optionalText(row, 4, "chat_conversations.system_prompt", path: path),
            model: try optionalText(row, 5, "chat_conversations.model", path: path))
    }

    /// The error for a write naming a record that is not saved (ids are the client's UUIDs,
    /// never user text).
    static func missing(_ what: String, id: String, path: String) -> StorageError {
        StorageError(operation: "update", path: path, reason: "no such \(what) '\(id)'")
    }
}
