import SybilStore

/// Opens the server's SQLite database and brings its schema up to date. Migrations are named
/// and applied once each, in order, inside one transaction per migration; the names applied
/// are kept in `schema_migrations`.
enum ServerDatabase {
    /// One schema change.
    struct Migration: Sendable {
        var name: String
        var sql: String
    }

    /// Where the data lives.
    enum Location: Sendable, Hashable {
        case inMemory
        case directory(String)
    }

    /// Opens `file` under `location` (a private database for `.inMemory`) and applies
    /// `migrations` that are not yet applied.
    static func open(_ location: Location, file: String, migrations: [Migration]) throws -> SQLiteDatabase {
        let database: SQLiteDatabase
        switch location {
        case .inMemory: database = try SQLiteDatabase(.inMemory)
        case .directory(let path): database = try SQLiteDatabase(.file(path: path + "/" + file))
        }
        try database.execute("PRAGMA busy_timeout = 5000")
        try database.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER)")
        let applied = Set(try database.query("SELECT name FROM schema_migrations").compactMap { $0[0].textValue })
        for migration in migrations where !applied.contains(migration.name) {
            try database.transaction {
                try database.execute(migration.sql)
                try database.query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, strftime('%s','now'))",
                    [.text(migration.name)])
            }
        }
        return database
    }
}
