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
        func throughTransport(_ http: any HTTPClient) async throws -> (chunks: Int, seconds: Double) {
            let transport = SSEChatTransport(http: http, clock: ContinuousClock())
            var chunks = 0
            let start = clock.now
            for try await _ in transport.chunks(for: HTTPRequest(url: server.url)) { chunks += 1 }
            return (chunks, seconds(start.duration(to: clock.now)))
        }
        let (chunks, transportSeconds) = try await throughTransport(DefaultHTTPClient.make())
        let (_, urlSessionSeconds) = try await throughTransport(URLSessionHTTPClient())
        var parserEvents = 0
        let parserSeconds = best {
            var count = 0
            parseInChunks(stream, chunk: chunk) { _ in count += 1 }
            parserEvents = count
        }
        var decoded = 0
        let decodeSeconds = best {
            var count = 0
            parseInChunks(stream, chunk: chunk) { event in
                if case .chunk? = try? OpenAIStreamEvent.decode(event) { count += 1 }
            }
            decoded = count
        }
        let mib = Double(stream.count) / 1_048_576
        print(
            "sse parser + chunk decoding (no transport): \(decoded) chunks, \(format(mib / decodeSeconds, 0)) MiB/s")
        print(
            "sse through DefaultHTTPClient + transport (64 MiB small deltas, loopback): \(chunks) chunks, "
                + "\(format(mib / transportSeconds, 0)) MiB/s (URLSession: \(format(mib / urlSessionSeconds, 0)) MiB/s, "
                + "ratio \(format(urlSessionSeconds / transportSeconds)) x); parser alone \(parserEvents) events, "
                + "\(format(mib / parserSeconds, 0)) MiB/s; ratio \(format(parserSeconds / transportSeconds * 100, 1)) % of the parser alone"
        )
    } catch {
        caseFailed("sse transport: \(error)")
    }
}
