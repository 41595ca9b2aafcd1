import Foundation

/// One named, additive schema change. Migrations are applied once each, in the order given,
/// each inside its own transaction; the names applied are kept in `schema_migrations`, so a
/// newer build adds its migrations to the end of the list and never edits an applied one.
public struct SQLiteMigration: Sendable, Hashable {
    /// The name recorded once the change is applied (never reused for different SQL).
    public var name: String
    /// The statements of the change.
    public var sql: String

    /// A migration called `name` running `sql`.
    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }
}

extension SQLiteDatabase {
    /// Opens the database file at `path` (creating its directory, owner-only, when missing),
    /// waits up to `busyTimeoutMilliseconds` for another process's lock instead of failing at
    /// once, and applies `migrations` not yet applied. Two processes opening the same file at
    /// once apply each migration once: the check runs inside the write transaction.
    public static func open(
        path: String, migrations: [SQLiteMigration], busyTimeoutMilliseconds: Int = 5_000
    ) throws -> SQLiteDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let database = try SQLiteDatabase(.file(path: path), busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        try database.migrate(migrations)
        return database
    }

    /// Applies the `migrations` not yet recorded in `schema_migrations`, in order, one
    /// transaction each.
    public func migrate(_ migrations: [SQLiteMigration]) throws {
        try execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER)")
        for migration in migrations {
            try transaction {
                let applied = try query("SELECT 1 FROM schema_migrations WHERE name = ?", [.text(migration.name)])
                guard applied.isEmpty else { return }
                try execute(migration.sql)
                try query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, strftime('%s','now'))",
                    [.text(migration.name)])
            }
        }
    }
}
