import Foundation
import SybilCore
import SybilTimeline
import SybilWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Each benchmark times the Sybil code and a baseline doing comparable work on the same bytes
// in the same run, best of several repetitions, and prints the ratio: these machines are
// noisy, so only ratios are compared across runs. Wall-clock time is right here: this is a
// benchmark, not a test of a rule.

let repetitions = Int(ProcessInfo.processInfo.environment["SYBIL_BENCH_REPETITIONS"] ?? "") ?? 5
let clock = ContinuousClock()

func best(_ body: () -> Void) -> Double {
    var fastest = Double.infinity
    for _ in 0..<repetitions {
        let start = clock.now
        body()
        let elapsed = start.duration(to: clock.now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        fastest = min(fastest, seconds)
    }
    return fastest
}

func format(_ value: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

// MARK: SSE parse throughput vs a memchr newline scan

func sseStream(eventBytes: Int, total: Int) -> [UInt8] {
    var stream: [UInt8] = []
    stream.reserveCapacity(total + eventBytes)
    if eventBytes <= 512 {
        var counter = 0
        while stream.count < total {
            counter += 1
            let event =
                "id: \(counter)\ndata: {\"id\":\"chatcmpl-42\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word\(counter % 97) \"},\"finish_reason\":null}]}\n\n"
            stream.append(contentsOf: event.utf8)
        }
    } else {
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: eventBytes - 8)
        while stream.count < total {
            stream.append(contentsOf: "data: ".utf8)
            stream.append(contentsOf: payload)
            stream.append(contentsOf: "\n\n".utf8)
        }
    }
    return stream
}

func benchmarkSSE(label: String, stream: [UInt8], chunk: Int) {
    var events = 0
    let parseSeconds = best {
        var parser = EventStreamParser()
        var count = 0
        stream.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(start + chunk, buffer.count)
                parser.feed(UnsafeBufferPointer(rebasing: buffer[start..<end])) { event in
                    count += event.dataBytes.isEmpty ? 0 : 1
                }
                start = end
            }
        }
        parser.finish()
        events = count
    }
    var newlines = 0
    let scanSeconds = best {
        var count = 0
        stream.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                let end = min(start + chunk, buffer.count)
                var cursor = UnsafeRawPointer(base + start)
                let limit = UnsafeRawPointer(base + end)
                while cursor < limit, let hit = memchr(cursor, 0x0A, limit - cursor) {
                    count += 1
                    cursor = UnsafeRawPointer(hit) + 1
                }
                start = end
            }
        }
        newlines = count
    }
    let mib = Double(stream.count) / 1_048_576
    print(
        "sse \(label): \(events) events, parse \(format(mib / parseSeconds, 0)) MiB/s, "
            + "memchr scan \(format(mib / scanSeconds, 0)) MiB/s (\(newlines) newlines), "
            + "ratio \(format(scanSeconds / parseSeconds * 100, 1)) % of scan speed (goal >= 25 %)")
}

// MARK: Strict envelope decode vs Foundation JSONDecoder

struct PlainBlock: Decodable {
    var type: String
    var id: String
    var origin: String
    var sourceOrder: [UInt64]
    var timestamp: Int64
    var text: String
    var runId: String?
    var operationId: String?
    var subagentThreadId: String?
}

struct PlainOverlay: Decodable {
    var settlementEpoch: Int64
    var revision: Int64
    var blocks: [PlainBlock]
}

struct PlainLoadState: Decodable {
    var state: String
    var reason: String?
}

struct PlainActiveRun: Decodable {
    var runId: String
}

struct PlainEnvelope: Decodable {
    var boundaryToken: String
    var codexSessionId: String?
    var loadState: PlainLoadState
    var storageFormat: String
    var loadedEntries: Int64
    var hasOlderEntries: Bool
    var oldestCursor: String?
    var timeline: [PlainBlock]
    var liveOverlay: PlainOverlay
    var activeRun: PlainActiveRun?
}

func envelopeBytes(rows: Int) -> [UInt8] {
    let timeline: [JSONValue] = (0..<rows).map { index in
        let type = ["user", "agent-reply", "activity", "system", "thinking"][index % 5]
        return [
            "type": .string(type), "id": .string("row-\(index)"), "origin": "canonical",
            "sourceOrder": [.number(JSONNumber(Int64(index))), 0],
            "timestamp": .number(JSONNumber(Int64(1_764_000_000_000 + index))),
            "text": .string(
                "Row \(index): the agent read Sources/App/Feature\(index % 40).swift and proposed a change."),
        ]
    }
    let envelope: JSONValue = [
        "boundaryToken": "b-1", "codexSessionId": "s-1", "loadState": ["state": "ready"], "storageFormat": "indexed",
        "loadedEntries": .number(JSONNumber(Int64(rows))), "hasOlderEntries": true, "oldestCursor": "c-0",
        "timeline": .array(timeline),
        "liveOverlay": [
            "settlementEpoch": 3, "revision": 1,
            "blocks": [
                [
                    "type": "agent-reply", "id": "live-1", "origin": "live", "sourceOrder": [1], "timestamp": 1,
                    "text": "…", "runId": "r-1",
                ]
            ],
        ],
        "runtime": ["model": "agent"], "activeRun": ["runId": "r-1"],
    ]
    return Array(JSONWriter().string(from: envelope).utf8)
}

func benchmarkEnvelope(rows: Int) {
    let bytes = envelopeBytes(rows: rows)
    let data = Data(bytes)
    var strictCount = 0
    let strictSeconds = best {
        let envelope = try! WorkspaceChatLoadEnvelope.decode(json: bytes)
        strictCount = envelope.timeline.count
    }
    var plainCount = 0
    let foundationSeconds = best {
        let envelope = try! JSONDecoder().decode(PlainEnvelope.self, from: data)
        plainCount = envelope.timeline.count
    }
    precondition(strictCount == rows && plainCount == rows, "both decoders must read every row")
    print(
        "envelope \(rows) rows (\(format(Double(bytes.count) / 1_048_576)) MiB): strict \(format(strictSeconds * 1000)) ms, "
            + "Foundation JSONDecoder \(format(foundationSeconds * 1000)) ms, "
            + "ratio \(format(foundationSeconds / strictSeconds)) x Foundation's speed (goal >= 1.00)")
}

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
    let sizes = [10_000, 100_000]
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

// MARK: Run

let selected = Set(CommandLine.arguments.dropFirst())
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

print("sybil-bench: best of \(repetitions) runs; ratios compare against a baseline timed in the same run")
if wants("sse") || wants("sse-small") {
    benchmarkSSE(
        label: "small deltas (64 MiB, 16 KiB chunks)", stream: sseStream(eventBytes: 200, total: 64 << 20),
        chunk: 16 << 10)
}
if wants("sse") || wants("sse-large") {
    benchmarkSSE(
        label: "1 MiB events (64 MiB, 16 KiB chunks)", stream: sseStream(eventBytes: 1 << 20, total: 64 << 20),
        chunk: 16 << 10)
}
if wants("envelope") {
    benchmarkEnvelope(rows: 10_000)
}
if wants("snapshot") {
    benchmarkSnapshotApply()
}
