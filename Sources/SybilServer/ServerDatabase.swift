import Foundation
import SybilHTTP
import SybilStore

/// Opens one of the server's SQLite databases under its storage choice and brings its schema up
/// to date with SybilStore's named migrations; a store that cannot start names its file.
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

    /// Runs `start` (a store's opening, migrations, seeding and recovery) and turns any failure
    /// into ``ServerError/database(path:reason:remedy:)`` naming `file` under a directory
    /// `storage` and what to do, so an operator learns which of the server's files it is.
    static func starting<T>(_ storage: SybilServerOptions.Storage, file: String, _ start: () throws -> T) throws -> T {
        do {
            return try start()
        } catch {
            guard case .directory(let directory) = storage else { throw error }
            throw startFailure(error, path: directory + "/" + file)
        }
    }

    /// The start-up error for `error` on the database at `path`: SQLite's code and message (not
    /// the SQL) and the remedy its kind calls for.
    static func startFailure(_ error: any Error, path: String) -> ServerError {
        let damaged = "it is damaged or not a database, so move it aside or restore it from a backup, then start again"
        switch error {
        case let error as ServerError:
            return error
        case let error as SQLiteError:
            let remedy =
                switch error.kind {
                case .damaged: damaged
                case .notWritable:
                    "make it and its folder readable and writable for this user, or start with another --data-dir"
                case .full: "free space on its disk, then start again"
                case .busy: "another process is using it, so stop that process or start with another --data-dir"
                case .inputOutput:
                    "the disk failed to read or write it, so check the disk, then move the file aside or restore it from a backup"
                case .other: "move it aside or restore it from a backup, then start again"
                }
            return .database(path: path, reason: error.summary, remedy: remedy)
        case let error as StorageError:
            return .database(
                path: path, reason: error.description,
                remedy: "move it aside or restore it from a backup, then start again")
        default:
            // Foundation's file errors (a folder that cannot be created) say it in one phrase.
            let reason = (error as? CocoaError)?.localizedDescription ?? "\(error)"
            return .database(
                path: path, reason: reason,
                remedy: "make it and its folder readable and writable for this user, or start with another --data-dir")
        }
    }
}
