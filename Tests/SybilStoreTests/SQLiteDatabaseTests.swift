import Foundation
import SybilStore
import Testing

@Suite("SQLite database", .timeLimit(.minutes(2)))
struct SQLiteDatabaseTests {
    @Test func everyValueTypeRoundTrips() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (v)")
        let values: [SQLiteValue] = [
            .null, .integer(.min), .integer(.max), .real(1.5), .text(""), .text("Grüße 🎉"), .text("before\u{0}after"),
            .text("\u{0}"), .blob([]),
            .blob([0, 255, 7]),
        ]
        for value in values {
            try database.query("INSERT INTO t (v) VALUES (?)", [value])
            #expect(database.changes == 1)
        }
        let rows = try database.query("SELECT v FROM t ORDER BY rowid")
        #expect(rows.map { $0[0] } == values)
    }

    @Test func parametersAreBoundNotInterpolated() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (name TEXT)")
        try database.query("INSERT INTO t VALUES (?)", [.text("x'); DROP TABLE t; --")])
        #expect(try database.query("SELECT name FROM t") == [[.text("x'); DROP TABLE t; --")]])
    }

    @Test func wrongParameterCountIsAClearError() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (a, b)")
        let error = try #require(throws: SQLiteError.self) {
            try database.query("INSERT INTO t VALUES (?, ?)", [.integer(1)])
        }
        #expect(error.message == "the statement takes 2 parameters, got 1")
        #expect(error.sql == "INSERT INTO t VALUES (?, ?)")
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(0)]])
    }

    @Test func errorsNameTheStatement() throws {
        let database = try SQLiteDatabase(.inMemory)
        let error = try #require(throws: SQLiteError.self) { try database.query("SELECT * FROM missing") }
        #expect(error.description == "SQLite error 1: no such table: missing (while running: SELECT * FROM missing)")
    }

    @Test func aNestedTransactionIsASavepointTheOuterOneDecidesAbout() throws {
        struct Refused: Error {}
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (v INTEGER)")
        try database.transaction {
            try database.query("INSERT INTO t VALUES (1)")
            #expect(throws: Refused.self) {
                try database.transaction {
                    try database.query("INSERT INTO t VALUES (2)")
                    throw Refused()
                }
            }
            try database.transaction { try database.query("INSERT INTO t VALUES (3)") }
        }
        #expect(try database.query("SELECT v FROM t ORDER BY v") == [[.integer(1)], [.integer(3)]])
        // An outer failure undoes what inner transactions committed to it.
        #expect(throws: Refused.self) {
            try database.transaction {
                try database.transaction { try database.query("INSERT INTO t VALUES (4)") }
                throw Refused()
            }
        }
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(2)]])
        // And the connection is usable for a plain transaction afterwards.
        try database.transaction { try database.query("INSERT INTO t VALUES (5)") }
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(3)]])
    }

    @Test func failedTransactionRollsBack() throws {
        struct Boom: Error {}
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (v INTEGER)")
        #expect(throws: Boom.self) {
            try database.transaction {
                try database.query("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        }
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(0)]])
        _ = try database.transaction { try database.query("INSERT INTO t VALUES (2)") }
        #expect(try database.query("SELECT v FROM t") == [[.integer(2)]])
    }

    @Test func reusedStatementsStartFreshEvenAfterAFailure() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")
        let insert = "INSERT INTO t (k, v) VALUES (?, ?)"
        try database.query(insert, [.integer(1), .text("a")])
        #expect(throws: SQLiteError.self) { try database.query(insert, [.integer(1), .text("again")]) }
        try database.query(insert, [.integer(2), .text("b")])  // the same statement, reset after the failure
        let select = "SELECT v FROM t WHERE k = ?"
        #expect(try database.query(select, [.integer(1)]) == [[.text("a")]])
        #expect(try database.query(select, [.integer(2)]) == [[.text("b")]])
        #expect(try database.query(select, [.integer(3)]) == [])
        // More distinct statements than the cache keeps: each still runs correctly.
        for index in 0..<100 {
            #expect(
                try database.query("SELECT \(index) + k FROM t WHERE k = ?", [.integer(1)]) == [
                    [.integer(Int64(index + 1))]
                ])
        }
        #expect(try database.query(select, [.integer(2)]) == [[.text("b")]])
    }

    /// A database whose table `t` holds the keys 1 to 10,000, and a count of the keys above `?`.
    private func tenThousandRows() throws -> (SQLiteDatabase, String) {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute(
            """
            CREATE TABLE t (v INTEGER PRIMARY KEY);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000) INSERT INTO t SELECT i FROM n;
            """)
        return (database, "SELECT COUNT(*) FROM t WHERE v > ?")
    }

    @Test func anInstructionBudgetCutsALongStatementShortAndEndsWithItsBody() throws {
        let (database, count) = try tenThousandRows()
        // 10,000 rows take tens of thousands of instructions: a budget of 1,000 stops the count.
        let error = try #require(throws: SQLiteError.self) {
            try database.withInstructionBudget(1000) { try database.query(count, [.integer(0)]) }
        }
        #expect(error.code == 9)  // SQLITE_INTERRUPT
        // A short statement (ten rows of the key's range) fits the same budget, and a large
        // enough budget the long one.
        #expect(
            try database.withInstructionBudget(1000) { try database.query(count, [.integer(9990)]) } == [
                [.integer(10)]
            ])
        #expect(
            try database.withInstructionBudget(1_000_000) { try database.query(count, [.integer(0)]) } == [
                [.integer(10000)]
            ])
        // The budget ends with its body: the same statement, reset, runs whole afterwards.
        #expect(try database.query(count, [.integer(0)]) == [[.integer(10000)]])
    }

    @Test func aBudgetInsideABudgetKeepsTheOuterOne() throws {
        let (database, count) = try tenThousandRows()
        let error = try #require(throws: SQLiteError.self) {
            try database.withInstructionBudget(1000) {
                // The inner call ends without taking the outer budget with it.
                _ = try database.withInstructionBudget(1_000_000) { try database.query(count, [.integer(9990)]) }
                return try database.query(count, [.integer(0)])
            }
        }
        #expect(error.code == 9)  // SQLITE_INTERRUPT
    }

    @Test func aStatementThatWritesIsRefusedUnderABudgetBeforeItRuns() throws {
        let (database, count) = try tenThousandRows()
        let insert = try #require(throws: SQLiteError.self) {
            try database.withInstructionBudget(1_000_000) { try database.query("INSERT INTO t VALUES (10001)") }
        }
        #expect(insert.code == 21)  // SQLITE_MISUSE
        #expect(insert.sql == "INSERT INTO t VALUES (10001)")
        let execute = try #require(throws: SQLiteError.self) {
            try database.withInstructionBudget(1_000_000) { try database.execute("DELETE FROM t") }
        }
        #expect(execute.code == 21)
        // Nothing was written, reads still run under a budget, and writes after it do.
        #expect(
            try database.withInstructionBudget(1_000_000) { try database.query(count, [.integer(0)]) } == [
                [.integer(10000)]
            ])
        try database.query("INSERT INTO t VALUES (10001)")
        #expect(try database.query(count, [.integer(0)]) == [[.integer(10001)]])
    }

    @Test func foreignKeysAreEnforced() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p(id))")
        let error = try #require(throws: SQLiteError.self) { try database.query("INSERT INTO c VALUES (42)") }
        #expect(error.message.contains("FOREIGN KEY"))
    }

    @Test func fileDatabasesUseWALAndPersist() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-sqlite-\(getpid())-\(#line)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.sqlite").path
        do {
            let database = try SQLiteDatabase(.file(path: path))
            #expect(try database.query("PRAGMA journal_mode") == [[.text("wal")]])
            try database.execute("CREATE TABLE t (v TEXT)")
            try database.query("INSERT INTO t VALUES (?)", [.text("kept")])
        }
        let reopened = try SQLiteDatabase(.file(path: path))
        #expect(try reopened.query("SELECT v FROM t") == [[.text("kept")]])
    }

    @Test func unopenablePathIsAnError() {
        #expect(throws: SQLiteError.self) { try SQLiteDatabase(.file(path: "/nonexistent-dir/x/y.sqlite")) }
    }
}
