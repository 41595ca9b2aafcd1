import Foundation
import SybilStore

/// Opens one of the server's SQLite databases under its storage choice and brings its schema up
/// to date with SybilStore's named migrations.
enum ServerDatabase {
    /// Opens `file` under `storage` (a private database for `.inMemory`; the directory is
    /// created, owner-only, when missing) and applies `migrations` that are not yet applied.
    static func open(_ storage: SybilServerOptions.Storage, file: String, migrations: [SQLiteMigration]) throws
        -> SQLiteDatabase
    {
        switch storage {
        case .inMemory:
            let database = try SQLiteDatabase(.inMemory)
            try database.migrate(migrations)
            return database
        case .directory(let path):
            return try SQLiteDatabase.open(path: path + "/" + file, migrations: migrations)
        }
    }
}
