/// The chat history's schema: named, additive migrations applied in order. A newer build only
/// appends to ``migrations``; an applied migration is never edited.
///
/// Every table keeps an `INTEGER PRIMARY KEY` (`seq`) beside the client's string id, so the
/// search index can point at a row by a number that `VACUUM` never renumbers.
extension SQLiteChatHistory {
    /// The migrations, oldest first.
    static let migrations: [SQLiteMigration] = [
        SQLiteMigration(
            name: "chat-history-1-conversations",
            sql: """
                CREATE TABLE chat_conversations (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    title TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX chat_conversations_by_update ON chat_conversations (updated_at DESC, seq DESC);
                """),
        SQLiteMigration(
            name: "chat-history-2-messages",
            sql: """
                CREATE TABLE chat_messages (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    conversation_seq INTEGER NOT NULL REFERENCES chat_conversations (seq) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    role TEXT NOT NULL,
                    text TEXT NOT NULL,
                    model TEXT,
                    state TEXT NOT NULL,
                    failure_reason TEXT,
                    created_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    UNIQUE (conversation_seq, position)
                );
                """),
        SQLiteMigration(
            name: "chat-history-3-web-searches",
            sql: """
                CREATE TABLE chat_web_searches (
                    seq INTEGER PRIMARY KEY,
                    id TEXT NOT NULL UNIQUE,
                    query TEXT NOT NULL,
                    answer TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """),
        SQLiteMigration(name: "chat-history-4-search-index", sql: searchIndexSQL),
        SQLiteMigration(
            name: "chat-history-5-search-terms",
            sql: """
                CREATE TABLE chat_search_terms (key TEXT NOT NULL, word TEXT NOT NULL, PRIMARY KEY (key, word))
                    WITHOUT ROWID;
                """),
        // A conversation's system prompt, kept so a continuation sends it again; NULL for none
        // (every conversation saved before this migration).
        SQLiteMigration(
            name: "chat-history-6-system-prompt",
            sql: "ALTER TABLE chat_conversations ADD COLUMN system_prompt TEXT;"),
        // A web search's sources as a JSON array of {title, url} (the Wire contract's shape);
        // searches saved before this migration have none.
        SQLiteMigration(
            name: "chat-history-7-web-search-sources",
            sql: "ALTER TABLE chat_web_searches ADD COLUMN sources TEXT NOT NULL DEFAULT '[]';"),
        // The model a conversation asks for, chosen per chat and asked again on a
        // continuation; NULL for conversations saved before this migration.
        SQLiteMigration(
            name: "chat-history-8-conversation-model",
            sql: "ALTER TABLE chat_conversations ADD COLUMN model TEXT;"),
        // The files attached inline to a person's message (seed 003) as a JSON array of
        // {name, type, kind, size, data (base64)}; NULL for none (every message saved before).
        SQLiteMigration(
            name: "chat-history-9-message-attachments",
            sql: "ALTER TABLE chat_messages ADD COLUMN attachments TEXT;"),
        // The tool calls a reply made (shown as cards, never run) as a JSON array of
        // {index, id, name, arguments, truncated} within ``ChatToolCall``'s bounds; NULL for
        // none (every message saved before).
        SQLiteMigration(
            name: "chat-history-10-message-tool-calls",
            sql: "ALTER TABLE chat_messages ADD COLUMN tool_calls TEXT;"),
    ]

    /// The full-text index (see `SQLiteChatHistory+Search.swift` for the choices): one row per
    /// conversation title, message and web search; `kind` and `ref` (the source row's `seq`)
    /// point back at it, and each source row keeps its index row's id in `search_rowid`. A
    /// change replaces the index row, so index rowids grow with the time of the last change.
    /// The index text is segmented in Swift (``ChatSearchQuery/indexText(_:)``), so rows are
    /// indexed by the store's writes, in the write's transaction, not by SQL triggers; the
    /// four migrations ship together, so there is no older data to index here.
    private static let searchIndexSQL = """
        CREATE VIRTUAL TABLE chat_search USING fts5 (
            title, body, kind UNINDEXED, ref UNINDEXED,
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
        );
        ALTER TABLE chat_conversations ADD COLUMN search_rowid INTEGER;
        ALTER TABLE chat_messages ADD COLUMN search_rowid INTEGER;
        ALTER TABLE chat_web_searches ADD COLUMN search_rowid INTEGER;
        """
}
