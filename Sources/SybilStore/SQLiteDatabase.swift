import CSQLite

/// One SQLite connection. Owns the C handle and closes it in `deinit`; every result code
/// is checked and thrown as ``SQLiteError`` with SQLite's message and the SQL.
///
/// Not thread-safe by itself: confine a connection to one actor or serial executor.
public final class SQLiteDatabase {
    private let handle: OpaquePointer
    /// The file's path (`:memory:` for an in-memory database), named in read errors.
    public let path: String
    /// Prepared statements by SQL text, reused by ``query(_:_:)`` (reset after every use).
    private var statements: [String: OpaquePointer] = [:]
    private static let statementCacheLimit = 64

    /// Where the database lives.
    public enum Location: Sendable, Hashable {
        /// A private in-memory database, gone when the connection closes.
        case inMemory
        /// A file, created when missing.
        case file(path: String)
    }

    /// Opens (creating if needed) a database, with foreign keys on; file databases use WAL.
    /// Another connection's lock is waited for up to `busyTimeoutMilliseconds`, already while
    /// switching to WAL (a connection closing the file's last other handle holds it briefly).
    public init(_ location: Location, busyTimeoutMilliseconds: Int = 0) throws(SQLiteError) {
        var pointer: OpaquePointer?
        let path: String
        switch location {
        case .inMemory: path = ":memory:"
        case .file(let filePath): path = filePath
        }
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open the database"
            sqlite3_close_v2(pointer)
            throw SQLiteError(code: code, message: message)
        }
        handle = pointer
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        busyTimeout = Int32(clamping: max(0, busyTimeoutMilliseconds))
        sqlite3_busy_timeout(handle, busyTimeout)
        var enabled: Int32 = 0
        try check(sybil_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_FKEY, 1, &enabled), sql: nil)
        if case .file = location {
            try execute("PRAGMA journal_mode=WAL")
        }
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws(SQLiteError) {
        guard !budgeted else { throw Self.writeUnderBudget(sql) }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: code, message: text, sql: sql)
        }
    }

    /// Runs one statement with positional `?` parameters and returns all rows, each value at
    /// its column's position. Prefer ``rows(_:_:)`` for reading: it names the columns. The
    /// prepared statement is kept for the next call with the same SQL.
    @discardableResult
    public func query(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try step(sql, parameters) { statement, count in
            rows.append((0..<count).map { column(at: $0, in: statement) })
        }
        return rows
    }

    /// Runs one statement with positional `?` parameters and returns all rows, read by column
    /// name through ``SQLiteRow``'s throwing accessors. The prepared statement is kept for the
    /// next call with the same SQL.
    public func rows(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        var columns: [String] = []
        var tables: [String?] = []
        try step(sql, parameters) { statement, count in
            if columns.isEmpty {
                columns = (0..<count).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
                tables = (0..<count).map { sqlite3_column_table_name(statement, $0).map { String(cString: $0) } }
            }
            rows.append(
                SQLiteRow(
                    values: (0..<count).map { column(at: $0, in: statement) }, columns: columns, tables: tables,
                    path: path))
        }
        return rows
    }

    /// The one row of a statement that always returns exactly one (an aggregate, an
    /// `INSERT … RETURNING`); any other count is a ``StorageError`` quoting the statement.
    public func row(_ sql: String, _ parameters: [SQLiteValue] = []) throws -> SQLiteRow {
        let found = try rows(sql, parameters)
        guard found.count == 1, let row = found.first else {
            throw StorageError(
                operation: "read", path: path, reason: "expected one row, got \(found.count) from: \(sql)")
        }
        return row
    }

    /// Binds `parameters` to the cached statement for `sql` and steps it to the end, handing
    /// each row (the statement and its column count) to `row`.
    private func step(
        _ sql: String, _ parameters: [SQLiteValue], row: (OpaquePointer?, Int32) -> Void
    ) throws(SQLiteError) {
        let statement = try prepared(sql)
        guard !budgeted || sqlite3_stmt_readonly(statement) != 0 else { throw Self.writeUnderBudget(sql) }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == parameters.count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "the statement takes \(expected) parameters, got \(parameters.count)",
                sql: sql)
        }
        for (position, parameter) in parameters.enumerated() {
            try bind(parameter, at: Int32(position + 1), in: statement, sql: sql)
        }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(code, sql: sql) }
            row(statement, sqlite3_column_count(statement))
        }
    }

    /// The cached statement for `sql`, prepared on first use.
    private func prepared(_ sql: String) throws(SQLiteError) -> OpaquePointer? {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v2(handle, sql, -1, &statement, nil), sql: sql)
        if statements.count >= Self.statementCacheLimit {
            for cached in statements.values { sqlite3_finalize(cached) }
            statements.removeAll()
        }
        statements[sql] = statement
        return statement
    }

    /// Runs `body` with every statement it runs stopped once about `instructions` of SQLite's
    /// virtual-machine instructions have run in all (`sqlite3_progress_handler`, checked every
    /// 128, so each statement may be stopped up to 128 early): a statement cut short
    /// throws ``SQLiteError`` with `SQLITE_INTERRUPT` and is reset like any failed one. Nor does
    /// a statement inside wait for another connection's lock: it fails at once with
    /// `SQLITE_BUSY` (the busy timeout is 0 until `body` returns). For a caller that must spend
    /// a bounded time however many rows a table holds; meant for reads, since SQLite rolls back
    /// a transaction whose statement it interrupts, so a statement that writes (or
    /// ``execute(_:)``, which may) is refused inside it before it runs. A call inside another
    /// runs under the outer budget.
    public func withInstructionBudget<T>(_ instructions: Int, _ body: () throws -> T) throws -> T {
        guard !budgeted else { return try body() }
        budgeted = true
        sqlite3_busy_timeout(handle, 0)
        defer {
            sqlite3_busy_timeout(handle, busyTimeout)
            budgeted = false
        }
        var checks = max(1, instructions / Self.budgetStep)
        return try withUnsafeMutablePointer(to: &checks) { left in
            // Called after every step of instructions; a non-zero answer interrupts.
            let check: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
                guard let left = context?.assumingMemoryBound(to: Int.self) else { return 1 }
                left.pointee -= 1
                return left.pointee < 0 ? 1 : 0
            }
            sqlite3_progress_handler(handle, Int32(Self.budgetStep), check, left)
            defer { sqlite3_progress_handler(handle, 0, nil, nil) }
            return try body()
        }
    }

    private static let budgetStep = 128

    /// The refusal of `sql` inside ``withInstructionBudget(_:_:)``.
    private static func writeUnderBudget(_ sql: String) -> SQLiteError {
        SQLiteError(
            code: SQLITE_MISUSE,
            message: "a statement that may write cannot run under an instruction budget (an interrupted write "
                + "rolls its transaction back)", sql: sql)
    }
    /// The busy timeout the connection was opened with (milliseconds).
    private let busyTimeout: Int32
    /// A ``withInstructionBudget(_:_:)`` call is running.
    private var budgeted = false

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int {
        Int(sqlite3_changes(handle))
    }

    /// Runs `body` in a transaction, committing when it returns and rolling back when it throws.
    /// Called inside another transaction it becomes a savepoint: its own work is undone when it
    /// throws, and the outer transaction decides about the rest (it may catch and go on).
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        guard transactionDepth == 0 else { return try savepoint(body) }
        try execute("BEGIN IMMEDIATE")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// The nesting of ``transaction(_:)`` calls now running (0: none).
    private var transactionDepth = 0

    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = "sybil_savepoint_\(transactionDepth)"
        try execute("SAVEPOINT \(name)")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let result = try body()
            try execute("RELEASE \(name)")
            return result
        } catch {
            try? execute("ROLLBACK TO \(name)")
            try? execute("RELEASE \(name)")
            throw error
        }
    }

    // MARK: Private

    private func bind(_ value: SQLiteValue, at index: Int32, in statement: OpaquePointer?, sql: String)
        throws(SQLiteError)
    {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(statement, index)
        case .integer(let integer): code = sqlite3_bind_int64(statement, index, integer)
        case .real(let real): code = sqlite3_bind_double(statement, index, real)
        case .text(let text):
            // Bound by its byte count, not as a C string: text a peer sent may hold U+0000, and a
            // C string would end there (the rest silently lost).
            var text = text
            code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else {
                        return sqlite3_bind_text(statement, index, "", 0, sybil_sqlite3_transient())
                    }
                    return sqlite3_bind_text64(
                        statement, index, base, sqlite3_uint64(chars.count), sybil_sqlite3_transient(),
                        UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob64(
                    statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(buffer.count),
                    sybil_sqlite3_transient())
            }
        }
        try check(code, sql: sql)
    }

    private func column(at index: Int32, in statement: OpaquePointer?) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    private func check(_ code: Int32, sql: String?) throws(SQLiteError) {
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    private func error(_ code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
