import SybilClient
import SybilCore
import SybilStore
import SybilWire
import Synchronization
import Testing

/// The batch sync's sync mark (seed 004): marked only after the server's per-record result,
/// never uploaded twice, rejected records kept with their reason, a crash between upload and
/// marking healed by the next sync, batches of at most 500, single-flight.
@Suite("Record sync", .timeLimit(.minutes(2)))
struct RecordSyncTests {
    struct Crash: Error {}

    static func id(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static func store(records count: Int) async throws -> RecordStore {
        let store = try await RecordStore.inMemory()
        for number in 0..<count {
            try await store.save(
                Record(id: id(number), createdAt: Int64(number), payload: .meditation(durationSeconds: 60)))
        }
        return store
    }

    @Test func everyUnsyncedRecordIsUploadedOnceAndMarked() async throws {
        let store = try await Self.store(records: 3)
        let server = FakeRecordsServer()
        let sync = RecordSync(store: store, api: server, now: { 7_000 })
        let report = try await sync.sync()
        #expect(report.created == 3 && report.duplicates == 0 && report.rejected == 0 && report.batches == 1)
        #expect(try await store.unsyncedCount() == 0)
        #expect(try await store.record(id: Self.id(0))?.syncedAt == 7_000)
        // Nothing left: the next sync sends nothing at all.
        #expect(try await sync.sync() == RecordSync.Report())
        #expect(await server.uploadCalls == 1)
        #expect(await server.recordsReceived == 3)
    }

    @Test func batchesHoldAtMostFiveHundredRecords() async throws {
        let store = try await Self.store(records: 1_001)
        let server = FakeRecordsServer()
        let report = try await RecordSync(store: store, api: server, now: { 1 }).sync()
        #expect(await server.batchSizes == [500, 500, 1])
        #expect(report.batches == 3 && report.created == 1_001)
        let small = try await Self.store(records: 5)
        let other = FakeRecordsServer()
        _ = try await RecordSync(store: small, api: other, now: { 1 }, batchSize: 2).sync()
        #expect(await other.batchSizes == [2, 2, 1])
    }

    @Test func aRejectedRecordStaysUnsyncedWithItsReason() async throws {
        let store = try await Self.store(records: 3)
        let server = FakeRecordsServer()
        await server.refuse(Self.id(1))
        let sync = RecordSync(store: store, api: server, now: { 1 })
        let report = try await sync.sync()
        #expect(report.created == 2 && report.rejected == 1 && report.marked == 2)
        let kept = try await store.record(id: Self.id(1))
        #expect(kept?.isSynced == false)
        #expect(kept?.rejection?.message == "refused (fake)")
        // Offered again next time (and only it); accepted once the server allows it.
        _ = try await sync.sync()
        #expect(await server.batchSizes == [3, 1])
        await server.allowAll()
        #expect(try await sync.sync().created == 1)
        #expect(try await store.record(id: Self.id(1))?.rejection == nil)
        #expect(try await store.unsyncedCount() == 0)
    }

    @Test func aCrashBetweenUploadAndMarkingIsHealedByTheNextSync() async throws {
        let store = try await Self.store(records: 2)
        let server = FakeRecordsServer()
        let crashing = RecordSync(
            store: store, api: server, now: { 1 },
            checkpoint: { step in
                if case .uploaded = step { throw Crash() }
            })
        await #expect(throws: RecordSyncError.self) { try await crashing.sync() }
        #expect(await server.stored.count == 2)
        #expect(try await store.unsyncedCount() == 2)
        // The next run uploads again; the server answers duplicate; the records are marked.
        let report = try await RecordSync(store: store, api: server, now: { 2 }).sync()
        #expect(report.duplicates == 2 && report.created == 0)
        #expect(try await store.unsyncedCount() == 0)
        #expect(await server.stored.count == 2)
        #expect(await server.recordsReceived == 4)
    }

    @Test func aFailedBatchLeavesEarlierBatchesMarkedAndLaterOnesUnsynced() async throws {
        let store = try await Self.store(records: 5)
        let server = FakeRecordsServer()
        await server.fail(call: 2)
        let sync = RecordSync(store: store, api: server, now: { 1 }, batchSize: 2)
        do {
            _ = try await sync.sync()
            Issue.record("the sync succeeded")
        } catch {
            #expect(error == .transport("connection reset (fake)"))
        }
        #expect(try await store.unsyncedCount() == 3)
        #expect(try await sync.sync().created == 3)
        #expect(try await store.unsyncedCount() == 0)
    }

    @Test func aSyncInProgressIsJoinedNotRepeated() async throws {
        let store = try await Self.store(records: 2)
        let server = FakeRecordsServer()
        await server.holdNextUpload()
        let (joins, joined) = AsyncStream<Void>.makeStream()
        let sync = RecordSync(
            store: store, api: server, now: { 1 },
            checkpoint: { step in
                if step == .joined { joined.yield() }
            })
        let first = Task { try await sync.sync() }
        var started = server.uploadsStarted.makeAsyncIterator()
        _ = await started.next()
        #expect(await sync.isSyncing)
        let second = Task { try await sync.sync() }
        var joinSignals = joins.makeAsyncIterator()
        _ = await joinSignals.next()
        await server.release()
        let (a, b) = (try await first.value, try await second.value)
        #expect(a == b)
        #expect(a.created == 2)
        #expect(await server.uploadCalls == 1)
        #expect(!(await sync.isSyncing))
    }
}
