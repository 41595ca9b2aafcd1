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

/// Feeds `stream` to a parser in `chunk`-byte pieces, handing each event to `body`.
func parseInChunks(_ stream: [UInt8], chunk: Int, _ body: (ServerSentEvent) -> Void) {
    // The benchmark's own stream: no limit is reached (a refusal would end the run).
    var parser = EventStreamParser()
    stream.withUnsafeBufferPointer { buffer in
        var start = 0
        while start < buffer.count {
            let end = min(start + chunk, buffer.count)
            try! parser.feed(UnsafeBufferPointer(rebasing: buffer[start..<end]), dispatch: body)
            start = end
        }
    }
    parser.finish()
}

func benchmarkSSE(label: String, stream: [UInt8], chunk: Int) {
    var events = 0
    let parseSeconds = best {
        var count = 0
        parseInChunks(stream, chunk: chunk) { event in count += event.dataBytes.isEmpty ? 0 : 1 }
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
