import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilURLSession
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func benchmarkSSETransport() async {
    let stream = sseStream(eventBytes: 200, total: scaled(64 << 20))
    let chunk = 16 << 10
    do {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(stream.count + 14)\r\n\r\n")
            var start = 0
            while start < stream.count {
                let end = min(start + chunk, stream.count)
                connection.write(Array(stream[start..<end]))
                start = end
            }
            connection.write("data: [DONE]\n\n")
        }
        // The apps' client (our sockets on Linux), then URLSession for comparison.
        // Also the CPU time of the whole process (every thread: the client's, the server's)
        // while it runs: on a shared machine the wall time swings with other work, this less.
        func throughTransport(_ http: any HTTPClient) async throws -> (chunks: Int, seconds: Double, cpu: Double) {
            let transport = SSEChatTransport(http: http, clock: ContinuousClock())
            var chunks = 0
            let cpuStart = processCPUSeconds()
            let start = clock.now
            // The chat service's path: chunks with their event ids, as the app reads them.
            for try await _ in transport.deliveries(for: HTTPRequest(url: server.url)) { chunks += 1 }
            return (chunks, seconds(start.duration(to: clock.now)), processCPUSeconds() - cpuStart)
        }
        // Best of the repetitions, as the in-memory cases: one run on a shared machine is noise.
        var chunks = 0
        var transportSeconds = Double.infinity
        var urlSessionSeconds = Double.infinity
        var transportCPU = Double.infinity
        for _ in 0..<repetitions {
            let (count, seconds, cpu) = try await throughTransport(DefaultHTTPClient.make())
            chunks = count
            transportSeconds = min(transportSeconds, seconds)
            transportCPU = min(transportCPU, cpu)
            urlSessionSeconds = min(urlSessionSeconds, try await throughTransport(URLSessionHTTPClient()).seconds)
        }
        var parserEvents = 0
        let parserSeconds = best {
            var count = 0
            parseInChunks(stream, chunk: chunk) { _ in count += 1 }
            parserEvents = count
        }
        // Chunk decoding: the tree-free decoder the transport uses, against the JSON tree it
        // replaced (the baseline), both over the same events, parsed once beforehand.
        var events: [ServerSentEvent] = []
        parseInChunks(stream, chunk: chunk) { events.append($0) }
        let dataBytes = events.reduce(0) { $0 + $1.dataBytes.count }
        var decoded = 0
        let decodeSeconds = best {
            var decoder = ChatCompletionChunkDecoder()
            var count = 0
            for event in events {
                if case .chunk? = try? OpenAIStreamEvent.decode(event, using: &decoder) { count += 1 }
            }
            decoded = count
        }
        var treeDecoded = 0
        let treeSeconds = best {
            var count = 0
            for event in events {
                if case .chunk? = try? OpenAIStreamEvent.decodeWithTree(event) { count += 1 }
            }
            treeDecoded = count
        }
        var parsedAndDecoded = 0
        let parseAndDecodeSeconds = best {
            var decoder = ChatCompletionChunkDecoder()
            var count = 0
            parseInChunks(stream, chunk: chunk) { event in
                if case .chunk? = try? OpenAIStreamEvent.decode(event, using: &decoder) { count += 1 }
            }
            parsedAndDecoded = count
        }
        let mib = Double(stream.count) / 1_048_576
        let dataMiB = Double(dataBytes) / 1_048_576
        print(
            "sse chunk decoding alone (\(decoded) chunks, \(format(dataMiB, 1)) MiB of data): "
                + "\(format(mib / decodeSeconds, 0)) MiB/s of stream (\(format(dataMiB / decodeSeconds, 0)) MiB/s of data), "
                + "JSON tree \(treeDecoded) chunks \(format(mib / treeSeconds, 0)) MiB/s; "
                + "ratio \(format(treeSeconds / decodeSeconds)) x the tree (goal >= 500 MiB/s)")
        print(
            "sse parser + chunk decoding (no transport): \(parsedAndDecoded) chunks, \(format(mib / parseAndDecodeSeconds, 0)) MiB/s, "
                + "ratio \(format(parserSeconds / parseAndDecodeSeconds * 100, 1)) % of the parser alone")
        print(
            "sse through DefaultHTTPClient + transport (64 MiB small deltas, loopback): \(chunks) chunks, "
                + "\(format(mib / transportSeconds, 0)) MiB/s (URLSession: \(format(mib / urlSessionSeconds, 0)) MiB/s, "
                + "ratio \(format(urlSessionSeconds / transportSeconds)) x); parser alone \(parserEvents) events, "
                + "\(format(mib / parserSeconds, 0)) MiB/s; ratio \(format(parserSeconds / transportSeconds * 100, 1)) % of the parser alone (goal >= 25 %)"
        )
        print(
            "sse through DefaultHTTPClient + transport, CPU of all threads (server's included): "
                + "\(format(transportCPU * 1000, 0)) ms per 64 MiB (parser + chunk decoding alone: "
                + "\(format(parseAndDecodeSeconds * 1000, 0)) ms)")
    } catch {
        caseFailed("sse transport: \(error)")
    }
}
