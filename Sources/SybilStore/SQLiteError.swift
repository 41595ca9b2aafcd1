import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the SQL being run.
///
/// Bound values are never included, so no user text or secret reaches a log through it. The
/// SQL and SQLite's message are for logs, never for a peer: a server answers them as a
/// generic failure.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of trouble the code means, for telling a person what to do about it.
    public enum Kind: Sendable, Hashable {
        /// The file is damaged or is not a database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
        case damaged
        /// The file or its folder cannot be opened or written (`SQLITE_READONLY`,
        /// `SQLITE_CANTOPEN`, `SQLITE_PERM`, `SQLITE_AUTH`).
        case notWritable
        /// The disk or the database is full (`SQLITE_FULL`).
        case full
        /// Another connection holds the lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
        case busy
        /// The operating system failed to read or write (`SQLITE_IOERR`).
        case inputOutput
        /// Anything else: a statement, constraint or programming error.
        case other
    }

    /// SQLite's primary or extended result code.
    public let code: Int32
    /// SQLite's explanation.
    public let message: String
    /// The statement, when the failure belongs to one.
    public let sql: String?

    /// Creates an error.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The kind of trouble, from the primary result code.
    public var kind: Kind {
        switch code & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB: .damaged
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH: .notWritable
        case SQLITE_FULL: .full
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_IOERR: .inputOutput
        default: .other
        }
    }

    /// `SQLite error 26: file is not a database`: the code and SQLite's message, without the SQL.
    public var summary: String { "SQLite error \(code): \(message)" }

    /// `SQLite error 19: UNIQUE constraint failed: … (while running: INSERT …)`.
    public var description: String {
        var text = summary
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
