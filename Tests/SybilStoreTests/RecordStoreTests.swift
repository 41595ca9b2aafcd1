import Foundation
import SybilStore
import SybilWire
import Testing

/// The device's record store: saves are durable when they return, the sync mark is written
/// only from the server's per-record results, the schema only grows, and rows are read
/// strictly.
@Suite("Record store", .timeLimit(.minutes(2)))
struct RecordStoreTests {
    static func id(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static func mood(_ number: Int, at time: Int64? = nil, score: Int = 3) throws -> Record {
        try Record(id: id(number), createdAt: time ?? Int64(number), payload: .mood(score: score, note: "n\(number)"))
    }

    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-records-\(UUID().uuidString)")
            .appendingPathComponent("records.sqlite").path
    }

    @Test func savedRecordsListNewestFirstAndUnsyncedOnes() async throws {
        let store = try await RecordStore.inMemory()
        try await store.save(Self.mood(1, at: 100))
        try await store.save(Self.mood(2, at: 300))
        try await store.save(Self.mood(3, at: 200))
        let listed = try await store.records(limit: 10)
        #expect(listed.map(\.record.id) == [Self.id(2), Self.id(3), Self.id(1)])
        #expect(listed.allSatisfy { !$0.isSynced && $0.rejection == nil })
        #expect(try await store.records(limit: 2).count == 2)
        #expect(try await store.count() == 3)
        #expect(try await store.unsyncedCount() == 3)
        #expect(try await store.record(id: Self.id(3))?.record == (try Self.mood(3, at: 200)))
    }

    @Test func aSaveSurvivesClosingAndReopeningTheFile() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        do {
            let store = try await RecordStore.open(path: path)
            try await store.save(Self.mood(1))
        }
        let reopened = try await RecordStore.open(path: path)
        #expect(try await reopened.records(limit: 5).map(\.record) == [try Self.mood(1)])
        let mode = try SQLiteDatabase(.file(path: path)).query("PRAGMA journal_mode")
        #expect(mode == [[.text("wal")]])
    }

    @Test func savingAnIDTwiceFails() async throws {
        let store = try await RecordStore.inMemory()
        try await store.save(Self.mood(1))
        await #expect(throws: SQLiteError.self) { try await store.save(Self.mood(1, score: 5)) }
        #expect(try await store.count() == 1)
    }

    @Test func onlyStoredResultsMarkRecordsSyncedAndRejectionsAreKept() async throws {
        let store = try await RecordStore.inMemory()
        for number in 1...3 { try await store.save(Self.mood(number)) }
        let conflict = RecordResult.Rejection(code: "record_conflict", message: "taken", param: "records[2].id")
        let marked = try await store.apply(
            [
                RecordResult(id: Self.id(1), status: .created), RecordResult(id: Self.id(2), status: .duplicate),
                RecordResult(id: Self.id(3), status: .rejected, error: conflict),
                RecordResult(id: Self.id(9), status: .created),
            ], at: 5_000)
        #expect(marked == 2)
        #expect(try await store.record(id: Self.id(1))?.syncedAt == 5_000)
        #expect(try await store.record(id: Self.id(2))?.syncedAt == 5_000)
        let rejected = try await store.record(id: Self.id(3))
        #expect(rejected?.isSynced == false)
        #expect(rejected?.rejection == conflict)
        #expect(try await store.unsyncedCount() == 1)
        #expect(try await store.records(limit: 10, unsyncedOnly: true).map(\.record.id) == [Self.id(3)])
        // Confirming again changes nothing; a later acceptance clears the reason.
        #expect(try await store.apply([RecordResult(id: Self.id(1), status: .duplicate)], at: 9_000) == 0)
        #expect(try await store.record(id: Self.id(1))?.syncedAt == 5_000)
        #expect(try await store.apply([RecordResult(id: Self.id(3), status: .created)], at: 6_000) == 1)
        #expect(try await store.record(id: Self.id(3))?.rejection == nil)
        // A rejection never unmarks a synced record.
        try await store.apply([RecordResult(id: Self.id(1), status: .rejected, error: conflict)], at: 7_000)
        #expect(try await store.record(id: Self.id(1))?.rejection == nil)
        #expect(try await store.unsyncedCount() == 0)
    }

    @Test func unsyncedPagesGoInSaveOrderAfterASequence() async throws {
        let store = try await RecordStore.inMemory()
        for number in 1...5 { try await store.save(Self.mood(number, at: Int64(100 - number))) }
        try await store.apply([RecordResult(id: Self.id(2), status: .created)], at: 1)
        let first = try await store.unsynced(after: 0, limit: 2)
        #expect(first.map(\.record.id) == [Self.id(1), Self.id(3)])
        let rest = try await store.unsynced(after: first.last?.sequence ?? 0, limit: 10)
        #expect(rest.map(\.record.id) == [Self.id(4), Self.id(5)])
    }

    @Test func theNewestProfileIsInForce() async throws {
        let store = try await RecordStore.inMemory()
        #expect(try await store.profile() == nil)
        let old = try Record(id: Self.id(5), createdAt: 10, payload: .user(displayName: "Old"))
        let tieLow = try Record(id: Self.id(1), createdAt: 20, payload: .user(displayName: "Low"))
        let tieHigh = try Record(id: Self.id(2), createdAt: 20, payload: .user(displayName: "High"))
        for record in [tieHigh, old, tieLow] { try await store.save(record) }
        try await store.save(Self.mood(7, at: 99))
        #expect(try await store.profile() == tieHigh)
    }

    @Test func aVersionOneFileUpgradesAdditivelyAndKeepsItsRows() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let record = try Self.mood(1)
        do {
            let old = try SQLiteDatabase.open(path: path, migrations: Array(RecordStore.migrations.prefix(1)))
            try old.query(
                "INSERT INTO records (id, kind, created_at, body) VALUES (?, 'mood', 1, ?)",
                [.text(record.id), .text(record.canonicalJSON)])
        }
        let store = try await RecordStore.open(path: path)
        #expect(try await store.records(limit: 5) == [StoredRecord(sequence: 1, record: record)])
        let applied = try SQLiteDatabase(.file(path: path)).query("SELECT name FROM schema_migrations ORDER BY name")
        #expect(applied == RecordStore.migrations.map { [.text($0.name)] })
    }

    @Test func aRowThatIsNotAValidRecordIsAnErrorNamingTheRow() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let store = try await RecordStore.open(path: path)
        try await store.save(Self.mood(1))
        let raw = try SQLiteDatabase(.file(path: path))
        try raw.query("UPDATE records SET body = ? WHERE sequence = 1", [.text(#"{"id":"x"}"#)])
        do {
            _ = try await store.records(limit: 5)
            Issue.record("read a corrupt row")
        } catch let error as StorageError {
            #expect(error.reason.hasPrefix("row 1: body is not a valid record"))
        }
        try raw.query(
            "UPDATE records SET body = ?, synced = 1 WHERE sequence = 1", [.text(try Self.mood(1).canonicalJSON)])
        await #expect(throws: StorageError.self) { try await store.records(limit: 5) }
    }

    @Test func twoConnectionsToOneFileBothWrite() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let first = try await RecordStore.open(path: path)
        let second = try await RecordStore.open(path: path)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for number in 1...20 { try await first.save(Self.mood(number)) } }
            group.addTask { for number in 21...40 { try await second.save(Self.mood(number)) } }
            try await group.waitForAll()
        }
        #expect(try await first.count() == 40)
    }
}
