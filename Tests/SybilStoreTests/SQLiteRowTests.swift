import SybilStore
import Testing

/// Rows read by column name: each accessor's failure names the column (with its table) and
/// what it expected, for a missing column, NULL and each wrong kind.
@Suite("SQLite rows by column name", .timeLimit(.minutes(2)))
struct SQLiteRowTests {
    private enum Color: String { case red, green }

    /// One row of `t` holding text 'red', integer 7, NULL, blob 00ff, real 1.5 and text 'blue'.
    private func row() throws -> SQLiteRow {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (name TEXT, count INTEGER, note TEXT, data BLOB, ratio REAL, shade TEXT)")
        try database.query(
            "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
            [.text("red"), .integer(7), .null, .blob([0, 255]), .real(1.5), .text("blue")])
        return try database.row("SELECT name, count, note, data, ratio, shade FROM t")
    }

    private func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as StorageError {
            #expect(error.operation == "read")
            #expect(error.path == ":memory:")
            return error.reason
        } catch {
            Issue.record("not a StorageError: \(error)")
            return nil
        }
    }

    @Test func valuesAreReadByName() throws {
        let row = try row()
        #expect(row.columns == ["name", "count", "note", "data", "ratio", "shade"])
        #expect(try row.text("name") == "red")
        #expect(try row.integer("count") == 7)
        #expect(try row.optionalText("note") == nil)
        #expect(try row.optionalText("name") == "red")
        #expect(try row.optionalInteger("note") == nil)
        #expect(try row.optionalInteger("count") == 7)
        #expect(try row.blob("data") == [0, 255])
        #expect(try row.value("ratio") == .real(1.5))
        #expect(try row.decode(Color.self, "name") == .red)
    }

    @Test func aMissingColumnIsNamedWithTheOnesThereAre() throws {
        let row = try row()
        #expect(
            reason { _ = try row.text("title") }
                == "the row has no column title (it has name, count, note, data, ratio, shade)")
        #expect(reason { _ = try row.optionalInteger("Count") } != nil)
        #expect(reason { _ = try row.value("") } != nil)
    }

    @Test func nullWhereAValueIsRequiredNamesTheColumn() throws {
        let row = try row()
        #expect(reason { _ = try row.text("note") } == "column t.note holds NULL, expected text")
        #expect(reason { _ = try row.integer("note") } == "column t.note holds NULL, expected an integer")
        #expect(reason { _ = try row.blob("note") } == "column t.note holds NULL, expected a blob")
        #expect(reason { _ = try row.decode(Color.self, "note") } == "column t.note holds NULL, expected text")
    }

    @Test func aWrongKindNamesTheColumnAndBothKinds() throws {
        let row = try row()
        #expect(reason { _ = try row.text("count") } == "column t.count holds an integer, expected text")
        #expect(reason { _ = try row.text("data") } == "column t.data holds a blob, expected text")
        #expect(reason { _ = try row.integer("name") } == "column t.name holds text, expected an integer")
        #expect(reason { _ = try row.integer("ratio") } == "column t.ratio holds a real, expected an integer")
        #expect(
            reason { _ = try row.optionalText("count") } == "column t.count holds an integer, expected text or NULL")
        #expect(
            reason { _ = try row.optionalInteger("name") } == "column t.name holds text, expected an integer or NULL")
        #expect(reason { _ = try row.blob("name") } == "column t.name holds text, expected a blob")
    }

    @Test func aTextThatNamesNoValueIsQuotedWithItsColumn() throws {
        let row = try row()
        #expect(
            reason { _ = try row.decode(Color.self, "shade") } == "column t.shade holds 'blue', which is not a Color")
        let database = try SQLiteDatabase(.inMemory)
        let long = try database.row("SELECT ? AS word", [.text(String(repeating: "x", count: 33))])
        // An expression has no table; a long value is cut at 32 characters.
        #expect(
            reason { _ = try long.decode(Color.self, "word") }
                == "column word holds '\(String(repeating: "x", count: 32))', which is not a Color")
    }

    @Test func aStatementExpectedToGiveOneRowGivesExactlyOne() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (v INTEGER)")
        #expect(
            reason { _ = try database.row("SELECT v FROM t") } == "expected one row, got 0 from: SELECT v FROM t")
        try database.query("INSERT INTO t VALUES (1)")
        #expect(try database.row("SELECT v FROM t").integer("v") == 1)
        try database.query("INSERT INTO t VALUES (2)")
        #expect(
            reason { _ = try database.row("SELECT v FROM t") } == "expected one row, got 2 from: SELECT v FROM t")
    }

    @Test func aliasesNameTheColumnAndRowsShareTheirNames() throws {
        let database = try SQLiteDatabase(.inMemory)
        try database.execute("CREATE TABLE t (v INTEGER)")
        for value in 1...3 { try database.query("INSERT INTO t VALUES (?)", [.integer(Int64(value))]) }
        let rows = try database.rows("SELECT v AS value, v * 2 AS twice FROM t ORDER BY v")
        #expect(try rows.map { try $0.integer("value") } == [1, 2, 3])
        #expect(try rows.map { try $0.integer("twice") } == [2, 4, 6])
        #expect(reason { _ = try rows[0].integer("v") } != nil)
        #expect(try database.rows("SELECT v FROM t WHERE v > 3").isEmpty)
    }
}
