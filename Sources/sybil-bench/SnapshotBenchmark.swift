import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Snapshot application

/// A timeline of `rows` confirmed rows with 100 pending messages, and a snapshot of `rows`
/// rows that overlaps half of it, carries an overlay, and confirms half the pending messages.
func snapshotWorkload(rows: Int) -> (WorkspaceTimeline, TimelineSnapshot) {
    func block(_ index: Int, operationId: String? = nil) -> TimelineBlock {
        TimelineBlock(
            type: operationId == nil ? .agentReply : .user, id: "row-\(index)", origin: .canonical,
            sourceOrder: [UInt64(index)], timestamp: Int64(index), text: "Row \(index) text",
            runId: "run-\(index / 50)",
            operationId: operationId)
    }
    var timeline = WorkspaceTimeline()
    timeline.apply(
        TimelineSnapshot(
            loadState: .ready, rows: (0..<rows).map { block($0) }, hasOlderEntries: true, oldestCursor: "c-0",
            overlay: .empty, activeRunId: nil))
    for index in 0..<100 {
        timeline.addPending(
            PendingMessage(operationId: "op-\(index)", text: "pending \(index)", createdAt: Int64(index)))
    }
    let start = rows / 2
    var snapshotRows = (start..<(start + rows)).map { block($0) }
    for index in 0..<50 {
        snapshotRows[snapshotRows.count - 1 - index * 3] = block(
            start + rows - 1 - index * 3, operationId: "op-\(index)")
    }
    let overlay = LiveOverlay(
        settlementEpoch: 1, revision: 7,
        blocks: (0..<20).map { index in
            TimelineBlock(
                type: .agentReply, id: "live-\(index)", origin: .live, sourceOrder: [UInt64(rows * 2 + index)],
                timestamp: 0, text: "streaming", runId: "run-live")
        })
    let snapshot = TimelineSnapshot(
        loadState: .ready, rows: snapshotRows, hasOlderEntries: true, oldestCursor: "c-\(start)", overlay: overlay,
        activeRunId: "run-live")
    return (timeline, snapshot)
}

func benchmarkSnapshotApply() {
    // The two sizes are timed alternately, best of each, so that a noisy stretch of the run
    // does not land on one size only.
    let sizes = [10_000, 100_000].map { scaled($0, atLeast: 200) }  // 50 confirmations, 3 rows apart
    let workloads = sizes.map(snapshotWorkload(rows:))
    var fastest = [Double](repeating: .infinity, count: sizes.count)
    for _ in 0..<repetitions {
        for (index, (timeline, snapshot)) in workloads.enumerated() {
            var confirmed = 0
            let start = clock.now
            var copy = timeline
            let outcome = copy.apply(snapshot)
            confirmed = outcome.confirmedOperations.count
            let elapsed = start.duration(to: clock.now)
            blackHole(copy)
            precondition(confirmed == 50, "the snapshot confirms 50 pending messages")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            fastest[index] = min(fastest[index], seconds)
        }
    }
    for (index, rows) in sizes.enumerated() {
        print(
            "snapshot apply \(rows) rows (+20 live, 100 pending): \(format(fastest[index] * 1000)) ms, "
                + "\(format(fastest[index] * 1e6 / Double(rows), 3)) µs per row (goal <= 1)")
    }
    print("snapshot apply 100k/10k time ratio: \(format(fastest[1] / fastest[0])) (goal <= 12, linear is 10)")
}
