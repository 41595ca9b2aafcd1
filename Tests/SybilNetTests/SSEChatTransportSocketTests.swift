#if canImport(Glibc)
    import Dispatch
    import Foundation
    import SybilHTTP
    import SybilNet
    import SybilTesting
    import Synchronization
    import Testing

    @Suite("SSE chat transport over a real socket", .timeLimit(.minutes(2)))
    struct SSEChatTransportSocketTests {
        /// The transport reads and decodes the body on the I/O thread of the connection it comes
        /// from: once a read waited for the server, every later read is resumed by that thread
        /// (named `sybil-socket`), not by a pool thread, and the consumer still gets every chunk
        /// in order. The server sends each event only once the reader asked for more, so reads
        /// wait for the socket.
        @Test func theBodyIsReadOnTheConnectionsIOThread() async throws {
            let rounds = 8
            let asked = DispatchSemaphore(value: 0)
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                for index in 0..<rounds {
                    asked.wait()
                    connection.write(chunkEvent("\(index) "))
                }
                asked.wait()
                connection.write("data: [DONE]\n\n")
            }
            let reads = ReadThreads()
            let http = ObservedBodyClient(inner: DefaultHTTPClient.make(), asked: { asked.signal() }, reads: reads)
            let transport = SSEChatTransport(http: http, clock: ContinuousClock())
            var text = ""
            var failure: (any Error)?
            do {
                for try await chunk in transport.chunks(for: HTTPRequest(url: server.url)) { text += chunk.content }
            } catch {
                failure = error
            }
            #expect(failure == nil)
            #expect(text == (0..<rounds).map { "\($0) " }.joined())
            let names = reads.names
            #expect(names.count >= rounds + 1)
            let first = names.firstIndex(of: "sybil-socket")
            #expect(first != nil)
            if let first { #expect(names[first...].allSatisfy { $0 == "sybil-socket" }) }
        }
    }

    /// The names of the threads that body reads returned on, in order.
    private final class ReadThreads: Sendable {
        private let recorded = Mutex<[String]>([])

        var names: [String] { recorded.withLock { $0 } }

        func record() {
            let name = Thread.current.name ?? ""
            recorded.withLock { $0.append(name) }
        }
    }

    /// An ``HTTPClient`` whose response bodies say when the reader asks for more (`asked`) and
    /// record the thread each read returned on.
    private struct ObservedBodyClient: HTTPClient {
        let inner: any HTTPClient
        let asked: @Sendable () -> Void
        let reads: ReadThreads

        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            let response = try await inner.send(request)
            let body = BodyIterator(response.body.makeAsyncIterator())
            let asked = asked
            let reads = reads
            return HTTPStreamingResponse(
                head: response.head,
                body: AsyncThrowingStream {
                    asked()
                    let chunk = try await body.next()
                    reads.record()
                    return chunk
                })
        }
    }

    /// The inner body's iterator, used only by the one task reading the outer body.
    private final class BodyIterator: @unchecked Sendable {
        private var iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator

        init(_ iterator: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator) {
            self.iterator = iterator
        }

        func next() async throws -> [UInt8]? {
            try await iterator.next()
        }
    }
#endif
