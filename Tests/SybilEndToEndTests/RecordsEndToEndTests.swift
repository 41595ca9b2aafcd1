import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// Records end to end over real sockets (seed 004): logged with no server, synced to the
/// reference server, never sent again once synced, and a crash between upload and marking
/// healed by the next sync with the server holding each record once.
@Suite("Records end to end", .timeLimit(.minutes(2)))
@MainActor
struct RecordsEndToEndTests {
    /// Counts the records carried by every batch upload that goes over the wire.
    final class CountingHTTP: HTTPClient {
        private let inner = DefaultHTTPClient.make(redirects: .deliver)
        private let counts = Locked((batches: 0, records: 0))

        var batches: Int { counts.withLock { $0.batches } }
        var records: Int { counts.withLock { $0.records } }

        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            if request.method == "POST", request.url.path.hasSuffix("/records/batch"), let body = request.body {
                let batch = try RecordBatch.decode(try JSONReader().parse(body), at: .root)
                counts.withLock {
                    $0.batches += 1
                    $0.records += batch.entries.count
                }
            }
            return try await inner.send(request)
        }
    }

    struct Crash: Error {}

    private func api(_ url: URL, _ http: any HTTPClient) throws -> RecordsHTTPClient {
        RecordsHTTPClient(
            base: try AgentAPIBase(url), http: http, tokens: endToEndTokens(), clock: AnyClock(ContinuousClock()))
    }

    private func model(_ store: RecordStore, sync: RecordSync?) -> RecordsModel {
        let time = Locked(Int64(1_800_000_000_000))
        return RecordsModel(
            store: store, sync: sync, ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 13)),
            now: {
                time.withLock {
                    $0 += 1
                    return $0
                }
            })
    }

    /// Every record the server holds, read page by page.
    private func serverRecords(_ api: RecordsHTTPClient) async throws -> [Record] {
        var all: [Record] = []
        var after: RecordCursor?
        while true {
            let page = try await api.page(after: after, limit: 2)
            all += page.records
            after = page.nextCursor
            if !page.hasMore { return all }
        }
    }

    @Test func recordsLoggedOfflineAreSyncedOnceAndNeverSentAgain() async throws {
        let store = try await RecordStore.inMemory()
        // No server: logging works, a sync fails and changes nothing.
        let gone = try RefusingPort()
        let deadURL = gone.url
        let offline = model(store, sync: RecordSync(store: store, api: try api(deadURL, CountingHTTP()), now: { 1 }))
        try await offline.logMood(score: 4, note: "after the walk")
        try await offline.logBreathing(seconds: 240, cycles: 20)
        try await offline.logMeditation(seconds: 900)
        guard case .failure(.transport)? = await offline.syncNow() else {
            return #expect(Bool(false), "a sync with no server fails as unreachable")
        }
        #expect(offline.unsyncedCount == 3)
        #expect(offline.syncState == .failed)
        withExtendedLifetime(gone) {}

        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let http = CountingHTTP()
        let base = server.baseURL.appendingPathComponent("api")
        let online = model(store, sync: RecordSync(store: store, api: try api(base, http), now: { 2 }))
        guard case .success(let report)? = await online.syncNow() else { return #expect(Bool(false)) }
        #expect(report.created == 3 && report.batches == 1)
        #expect(online.unsyncedCount == 0)
        #expect(http.records == 3)
        // Again: nothing is sent at all.
        guard case .success(let second)? = await online.syncNow() else { return #expect(Bool(false)) }
        #expect(second == RecordSync.Report())
        #expect(http.batches == 1 && http.records == 3)
        let held = try await serverRecords(try api(base, DefaultHTTPClient.make()))
        #expect(Set(held.map(\.id)) == Set(online.records.map(\.record.id)))
        #expect(held.count == 3)
    }

    @Test func aCrashBetweenUploadAndMarkingLeavesOneCopyOnTheServer() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let store = try await RecordStore.inMemory()
        let logger = model(store, sync: nil)
        for score in 1...5 { try await logger.logMood(score: score, note: nil) }
        let http = CountingHTTP()
        let crashing = RecordSync(
            store: store, api: try api(server.baseURL, http), now: { 1 }, batchSize: 2,
            checkpoint: { step in
                if step == .uploaded(count: 2) { throw Crash() }
            })
        await #expect(throws: RecordSyncError.self) { try await crashing.sync() }
        // The server stored the first batch; the device never marked it.
        #expect(try await store.unsyncedCount() == 5)
        #expect(http.records == 2)
        let report = try await RecordSync(store: store, api: try api(server.baseURL, http), now: { 2 }).sync()
        #expect(report.duplicates == 2 && report.created == 3)
        #expect(try await store.unsyncedCount() == 0)
        #expect(http.records == 7)
        let held = try await serverRecords(try api(server.baseURL, DefaultHTTPClient.make()))
        #expect(held.count == 5)
        #expect(Set(held.map(\.id)).count == 5)
    }

    @Test func fiveHundredRecordsGoInOneBatchAndFiveHundredAndOneInTwo() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 5))
        for (count, batches) in [(RecordBatch.maxRecords, 1), (RecordBatch.maxRecords + 1, 2)] {
            let store = try await RecordStore.inMemory()
            for number in 0..<count {
                try await store.save(
                    try Record(id: ids.makeID(), createdAt: Int64(number), payload: .meditation(durationSeconds: 60)))
            }
            let http = CountingHTTP()
            let report = try await RecordSync(store: store, api: try api(server.baseURL, http), now: { 1 }).sync()
            #expect(report.batches == batches && report.created == count, "\(count) records")
            #expect(http.batches == batches && http.records == count)
            #expect(try await store.unsyncedCount() == 0)
        }
    }

    @Test func theLargestBatchCrossesTheSocketsAndReadsBackAsOnePage() async throws {
        let server = try startServer()
        defer { Task { await server.shutdown() } }
        // Every note byte a control character: the writer escapes it six-fold (over 3 MB).
        let note = String(repeating: "\u{1}", count: Record.maxNoteBytes)
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 21))
        let records = try (0..<RecordBatch.maxRecords).map {
            try Record(id: ids.makeID(), createdAt: Int64($0), payload: .mood(score: 5, note: note))
        }
        let api = try api(server.baseURL, DefaultHTTPClient.make())
        let results = try await api.upload(records)
        #expect(results.allSatisfy { $0.status == .created })
        let page = try await api.page(after: nil, limit: RecordPage.limitRange.upperBound)
        #expect(page.records == records)
        #expect(!page.hasMore)
    }
}
