import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilWire

// `records`: the local-first records path against the reference server in this process
// (records on disk on both sides, `synchronous=FULL`, loopback, a bearer token).
//
// 2,000 records (moods with a short note, breathing and meditation sessions in turn) are
// saved one by one into a `RecordStore` file (each save on disk before it returns), then
// `RecordSync` uploads them through `RecordsHTTPClient` in batches of 500 and marks each batch
// in one transaction. The baseline is the same `RecordSync` with a batch size of 1: one
// request, one server transaction and one marking transaction per record, the way a sync
// without batches works. Each round uses fresh files and a fresh server; best of the rounds.
// The ratio is records per second of the batched sync over the per-record one.

private let recordsBenchToken = "bench-token"

private struct RecordsBenchFailure: Error, CustomStringConvertible {
    var description: String
}

private func recordsBenchPayload(_ index: Int) -> Record.Payload {
    switch index % 3 {
    case 0: .mood(score: index % 5 + 1, note: "Entry \(index): slept well, walked after lunch.")
    case 1: .breathing(durationSeconds: 60 + index % 600, cycles: index % 40)
    default: .meditation(durationSeconds: 300 + index % 1_200)
    }
}

/// Saves `count` records into a fresh store in `directory`; returns the store and seconds.
private func recordsBenchSave(count: Int, directory: String) async throws -> (RecordStore, Double) {
    let store = try await RecordStore.open(path: directory + "/client/records.sqlite")
    let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 3))
    let start = ContinuousClock.now
    for index in 0..<count {
        try await store.save(
            try Record(
                id: ids.makeID(), createdAt: 1_800_000_000_000 + Int64(index), payload: recordsBenchPayload(index)))
    }
    return (store, recordsBenchSeconds(start.duration(to: .now)))
}

private func recordsBenchSeconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// One round: save `count` records, sync them with `batchSize`; seconds for the save and the sync.
private func recordsBenchRound(count: Int, batchSize: Int) async throws -> (save: Double, sync: Double) {
    let scratchName = UUID().uuidString  // live default: a fresh scratch name
    let directory = NSTemporaryDirectory() + "sybil-bench-records-\(scratchName)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var options = SybilServerOptions(token: recordsBenchToken)
    options.storage = .directory(directory + "/server")
    options.pace = .zero
    let server = try ReferenceServer(options: options)
    defer { Task { await server.shutdown() } }
    let (store, saving) = try await recordsBenchSave(count: count, directory: directory)
    let tokens = TokenProvider(
        current: TokenLocation(store: InMemorySecretStore(["bench": recordsBenchToken]), account: "bench"))
    let api = RecordsHTTPClient(
        base: try AgentAPIBase(server.baseURL), http: DefaultHTTPClient.make(redirects: .deliver), tokens: tokens,
        clock: AnyClock(ContinuousClock()))
    let sync = RecordSync(store: store, api: api, now: { 1 }, batchSize: batchSize)
    let start = ContinuousClock.now
    let report = try await sync.sync()
    let syncing = recordsBenchSeconds(start.duration(to: .now))
    guard report.created == count, try await store.unsyncedCount() == 0 else {
        throw RecordsBenchFailure(description: "the sync stored \(report.created) of \(count) records")
    }
    return (saving, syncing)
}

func benchmarkRecords(repetitions: Int) async {
    let count = scaled(2_000)
    let rounds = max(1, min(repetitions, 3))
    var bestSave = Double.infinity
    var bestBatched = Double.infinity
    var bestSingle = Double.infinity
    do {
        for _ in 0..<rounds {
            let batched = try await recordsBenchRound(count: count, batchSize: RecordBatch.maxRecords)
            bestSave = min(bestSave, batched.save)
            bestBatched = min(bestBatched, batched.sync)
            bestSingle = min(bestSingle, try await recordsBenchRound(count: count, batchSize: 1).sync)
        }
    } catch {
        caseFailed("records: failed: \(error)")
        return
    }
    let perSecond = { (time: Double) in format(Double(count) / time, 0) }
    print("records: \(count) saved locally (fsync each): \(perSecond(bestSave)) records/s")
    print(
        "records: sync in batches of \(RecordBatch.maxRecords): \(perSecond(bestBatched)) records/s; one request per record: \(perSecond(bestSingle)) records/s; ratio \(format(bestSingle / bestBatched, 1))x"
    )
}
