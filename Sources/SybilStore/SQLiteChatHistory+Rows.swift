/// Strict row decoding: a column holding NULL or the wrong kind of value is an error naming the
/// column, never a silent default.
extension SQLiteChatHistory {
    /// The text in `row[index]`.
    static func text(_ row: [SQLiteValue], _ index: Int, _ column: String, path: String) throws -> String {
        guard let text = value(row, index).textValue else { throw unreadable(row, index, column, "text", path) }
        return text
    }

    /// The integer in `row[index]`.
    static func integer(_ row: [SQLiteValue], _ index: Int, _ column: String, path: String) throws -> Int64 {
        guard let integer = value(row, index).integerValue else {
            throw unreadable(row, index, column, "an integer", path)
        }
        return integer
    }

    /// The text in `row[index]`, or `nil` for NULL.
    static func optionalText(_ row: [SQLiteValue], _ index: Int, _ column: String, path: String) throws -> String? {
        if value(row, index) == .null { return nil }
        return try text(row, index, column, path: path)
    }

    /// The integer in `row[index]`, or `nil` for NULL.
    static func optionalInteger(_ row: [SQLiteValue], _ index: Int, _ column: String, path: String) throws -> Int64? {
        if value(row, index) == .null { return nil }
        return try integer(row, index, column, path: path)
    }

    /// A message's state from its `state` and `failure_reason` columns.
    static func state(_ row: [SQLiteValue], _ index: Int, reasonAt reasonIndex: Int, path: String) throws
        -> ChatMessageRecord.State
    {
        let name = try text(row, index, "chat_messages.state", path: path)
        let reason = try optionalText(row, reasonIndex, "chat_messages.failure_reason", path: path)
        switch (name, reason) {
        case ("complete", nil): return .complete
        case ("streaming", nil): return .streaming
        case ("stopped", nil): return .stopped
        case ("failed", let reason?): return .failed(reason: reason)
        case ("failed", nil):
            throw StorageError(
                operation: "read", path: path,
                reason: "column chat_messages.failure_reason is NULL for a failed message")
        default:
            throw StorageError(
                operation: "read", path: path,
                reason: "column chat_messages.state holds '\(name.prefix(32))', expected complete, streaming, "
                    + "stopped or failed (with failure_reason only when failed)")
        }
    }

    /// The `state` and `failure_reason` column values for `state`.
    static func columns(for state: ChatMessageRecord.State) -> (state: SQLiteValue, reason: SQLiteValue) {
        switch state {
        case .complete: return (.text("complete"), .null)
        case .streaming: return (.text("streaming"), .null)
        case .stopped: return (.text("stopped"), .null)
        case .failed(let reason): return (.text("failed"), .text(reason))
        }
    }

    /// A message's role from its `role` column.
    static func role(_ row: [SQLiteValue], _ index: Int, path: String) throws -> ChatMessageRecord.Role {
        let name = try text(row, index, "chat_messages.role", path: path)
        guard let role = ChatMessageRecord.Role(rawValue: name) else {
            throw StorageError(
                operation: "read", path: path,
                reason: "column chat_messages.role holds '\(name.prefix(32))', expected system, user or assistant")
        }
        return role
    }

    private static func value(_ row: [SQLiteValue], _ index: Int) -> SQLiteValue {
        row.indices.contains(index) ? row[index] : .null
    }

    private static func unreadable(
        _ row: [SQLiteValue], _ index: Int, _ column: String, _ expected: String, _ path: String
    ) -> StorageError {
        let found: String
        switch value(row, index) {
        case .null: found = "NULL"
        case .integer: found = "an integer"
        case .real: found = "a real"
        case .text: found = "text"
        case .blob: found = "a blob"
        }
        return StorageError(
            operation: "read", path: path, reason: "column \(column) holds \(found), expected \(expected)")
    }
}
