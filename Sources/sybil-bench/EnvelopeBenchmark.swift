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
            + "ratio \(format(foundationSeconds / strictSeconds)) x Foundation's speed (goal >= 3.00)")
}
