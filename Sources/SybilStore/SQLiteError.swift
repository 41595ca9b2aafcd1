/// A failed SQLite call: the result code, SQLite's message and the SQL being run.
///
/// Bound values are never included, so no user text or secret reaches a log through it.
public struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
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

    /// `SQLite error 19: UNIQUE constraint failed: … (while running: INSERT …)`.
    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (while running: \(sql))" }
        return text
    }
}
