import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The records view model: logging is saved locally first and works with no server; the list
/// is newest first; the unsynced count, sync state and last error follow the sync.
@Suite("Records model", .timeLimit(.minutes(2)))
@MainActor
struct RecordsModelTests {
    final class Clock: Sendable {
        let time = Locked(1_800_000_000_000 as Int64)
        func tick() -> Int64 {
            time.withLock {
                $0 += 1_000
                return $0
            }
        }
    }

    private func model(sync: (RecordStore) -> RecordSync?) async throws -> (RecordsModel, RecordStore) {
        let store = try await RecordStore.inMemory()
        let clock = Clock()
        let model = RecordsModel(
            store: store, sync: sync(store), ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 4)),
            now: { clock.tick() })
        return (model, store)
    }

    @Test func loggingWorksWithNoServerAndListsNewestFirst() async throws {
        let (model, store) = try await model { _ in nil }
        try await model.logMood(score: 4, note: "calm")
        try await model.logBreathing(seconds: 120, cycles: 12)
        try await model.logMeditation(seconds: 600)
        #expect(model.records.map(\.record.kind) == [.meditation, .breathing, .mood])
        #expect(model.records.last?.record.payload == .mood(score: 4, note: "calm"))
        #expect(model.unsyncedCount == 3)
        #expect(try await store.count() == 3)
        #expect(await model.syncNow() == nil)
        #expect(model.syncState == .idle)
    }

    @Test func aSyncAskedForWithNoServerSaysSoAndMarksNothing() async throws {
        let (model, _) = try await model { _ in nil }
        try await model.logMood(score: 3, note: nil)
        #expect(model.lastError == nil)
        #expect(await model.syncNow() == nil)
        #expect(model.lastError == RecordsModel.noServer)
        #expect(model.unsyncedCount == 1)
        // The next success clears it.
        try await model.logMood(score: 4, note: nil)
        #expect(model.lastError == nil)
    }

    @Test func anInvalidValueIsRefusedNamingTheFieldAndNothingIsSaved() async throws {
        let (model, store) = try await model { _ in nil }
        for (score, accepted) in [(0, false), (1, true), (5, true), (6, false)] {
            do {
                try await model.logMood(score: score, note: nil)
                #expect(accepted, "score \(score)")
            } catch {
                #expect(!accepted, "score \(score)")
                #expect(error.description.hasPrefix("score: "))
                #expect(model.lastError?.contains("score") == true)
            }
        }
        await #expect(throws: RecordsModelError.self) { try await model.logBreathing(seconds: 86_401, cycles: 0) }
        await #expect(throws: RecordsModelError.self) { try await model.logMeditation(seconds: 0) }
        #expect(try await store.count() == 2)
    }

    @Test func theProfileIsTheNewestDisplayName() async throws {
        let (model, _) = try await model { _ in nil }
        try await model.setDisplayName("Ana")
        try await model.setDisplayName("Ana L.")
        #expect(model.profile?.payload == .user(displayName: "Ana L."))
    }

    @Test func syncingUpdatesTheStateTheCountAndTheLastError() async throws {
        let server = FakeRecordsServer()
        let (model, _) = try await model { RecordSync(store: $0, api: server, now: { 5 }) }
        try await model.logMood(score: 2, note: nil)
        try await model.logMood(score: 3, note: nil)
        await server.fail(call: 1)
        guard case .failure? = await model.syncNow() else { return #expect(Bool(false), "the first sync fails") }
        #expect(model.syncState == .failed)
        #expect(model.lastError?.contains("connection reset") == true)
        #expect(model.unsyncedCount == 2)
        await model.syncNow()
        var expected = RecordSync.Report()
        expected.batches = 1
        expected.created = 2
        #expect(model.syncState == .finished(expected))
        #expect(model.lastError == nil)
        #expect(model.unsyncedCount == 0)
        #expect(model.records.allSatisfy { $0.isSynced })
    }
}
