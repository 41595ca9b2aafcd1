import SybilStore
import SybilWire

/// The workspace database (`workspaces.sqlite`): one file and one list of named migrations
/// for every job that keeps rows in it (history, runs, the call ledger, uploads). The list
/// only grows: databases written by any earlier build open with it.
enum WorkspaceSchema {
    /// The database's file name under the server's storage directory.
    static let file = "workspaces.sqlite"

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
        // An upload's chunks on disk are a file in the uploads folder, named in `file` (their
        // rows keep size and digest, `bytes` empty); without a name (uploads begun before this,
        // in-memory storage) the chunks' bytes are their rows'.
        .init(
            name: "workspace-5-upload-files",
            sql: """
                ALTER TABLE ws_uploads ADD COLUMN file TEXT;
                ALTER TABLE ws_upload_chunks ADD COLUMN size INTEGER;
                ALTER TABLE ws_upload_chunks ADD COLUMN sha256 TEXT;
                """),
    ]

    /// Opens the workspace database under `storage` with its schema up to date.
    static func open(_ storage: SybilServerOptions.Storage) throws -> SQLiteDatabase {
        try ServerDatabase.open(storage, file: file, migrations: migrations)
    }

    /// A chat's key columns as bound parameters, in the tables' order.
    static func bind(_ chat: WorkspaceChatKey) -> [SQLiteValue] {
        [.text(chat.desktopId), .text(chat.projectId), .text(chat.sessionId)]
    }

    /// The chat a row's `desktop_id`, `project_id` and `session_id` name.
    static func chat(in row: SQLiteRow) throws -> WorkspaceChatKey {
        WorkspaceChatKey(
            desktopId: try row.text("desktop_id"), projectId: try row.text("project_id"),
            sessionId: try row.text("session_id"))
    }
}
