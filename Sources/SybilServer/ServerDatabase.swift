import Foundation
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

    /// Opens `file` under `storage` (a private database for `.inMemory`; the directory is
    /// created, owner-only, when missing) and applies `migrations` that are not yet applied.
    static func open(_ storage: SybilServerOptions.Storage, file: String, migrations: [Migration]) throws
        -> SQLiteDatabase
    {
        let database: SQLiteDatabase
        switch storage {
        case .inMemory: database = try SQLiteDatabase(.inMemory)
        case .directory(let path):
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            database = try SQLiteDatabase(.file(path: path + "/" + file))
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
