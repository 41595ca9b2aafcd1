/// One result row, read by column name through throwing accessors: a column that is missing,
/// NULL where a value is required, or of the wrong kind is a ``StorageError`` naming the
/// column (with its table when it is a table's column) and what was expected — never a silent
/// default.
///
/// ```swift
/// for row in try database.rows("SELECT run_id, state FROM ws_runs") {
///     let runId = try row.text("run_id")
///     let state = try row.decode(RunState.self, "state")
/// }
/// ```
public struct SQLiteRow: Sendable, Hashable {
    /// The values in the order the statement selects them.
    public let values: [SQLiteValue]
    /// The columns' names as the statement selects them (`AS` names included).
    public let columns: [String]
    /// Each column's table (`nil` for an expression).
    let tables: [String?]
    /// The database's path, for errors.
    let path: String

    /// The value of `column`, whatever its kind (NULL included).
    public func value(_ column: String) throws(StorageError) -> SQLiteValue {
        values[try index(of: column)]
    }

    /// The text in `column`.
    public func text(_ column: String) throws(StorageError) -> String {
        let index = try index(of: column)
        guard case .text(let text) = values[index] else { throw unreadable(index, expected: "text") }
        return text
    }

    /// The text in `column`, or `nil` for NULL.
    public func optionalText(_ column: String) throws(StorageError) -> String? {
        let index = try index(of: column)
        if values[index] == .null { return nil }
        guard case .text(let text) = values[index] else { throw unreadable(index, expected: "text or NULL") }
        return text
    }

    /// The integer in `column`.
    public func integer(_ column: String) throws(StorageError) -> Int64 {
        let index = try index(of: column)
        guard case .integer(let integer) = values[index] else { throw unreadable(index, expected: "an integer") }
        return integer
    }

    /// The integer in `column`, or `nil` for NULL.
    public func optionalInteger(_ column: String) throws(StorageError) -> Int64? {
        let index = try index(of: column)
        if values[index] == .null { return nil }
        guard case .integer(let integer) = values[index] else {
            throw unreadable(index, expected: "an integer or NULL")
        }
        return integer
    }

    /// The bytes in `column`.
    public func blob(_ column: String) throws(StorageError) -> [UInt8] {
        let index = try index(of: column)
        guard case .blob(let bytes) = values[index] else { throw unreadable(index, expected: "a blob") }
        return bytes
    }

    /// The value of type `type` whose raw value is the text in `column`: a text that names no
    /// value of the type is an error quoting it (its first 32 characters) and naming the column.
    public func decode<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws(StorageError) -> Value
    where Value.RawValue == String {
        let text = try text(column)
        guard let value = Value(rawValue: text) else {
            throw StorageError(
                operation: "read", path: path,
                reason: "column \(name(try index(of: column))) holds '\(text.prefix(32))', "
                    + "which is not a \(Value.self)")
        }
        return value
    }

    // MARK: Private

    private func index(of column: String) throws(StorageError) -> Int {
        guard let index = columns.firstIndex(of: column) else {
            throw StorageError(
                operation: "read", path: path,
                reason: "the row has no column \(column) (it has \(columns.joined(separator: ", ")))")
        }
        return index
    }

    /// `table.column`, or the bare name for an expression.
    private func name(_ index: Int) -> String {
        tables[index].map { "\($0).\(columns[index])" } ?? columns[index]
    }

    private func unreadable(_ index: Int, expected: String) -> StorageError {
        let found: String
        switch values[index] {
        case .null: found = "NULL"
        case .integer: found = "an integer"
        case .real: found = "a real"
        case .text: found = "text"
        case .blob: found = "a blob"
        }
        return StorageError(
            operation: "read", path: path, reason: "column \(name(index)) holds \(found), expected \(expected)")
    }
}
