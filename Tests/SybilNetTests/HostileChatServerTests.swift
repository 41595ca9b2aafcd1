#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilHTTP
    import SybilNet
    import SybilTesting
    import SybilWire
    import Testing

    /// The chat transport against a server that tries to make it hold everything: the
    /// event-stream parser's line and event limits refuse an endless line, each hop between the
    /// socket and the reader waits instead of queueing, and a redirect is refused. (The socket
    /// client's own bounds are held by SybilHTTPTests' `HostileServerTests`.)
    @Suite("The chat transport against a hostile server", .timeLimit(.minutes(2)))
    struct HostileChatServerTests {
        static let floodLimit = 64 << 20
        static let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)
        static let everyHopFlood = 32 << 20

        @Test func anEndlessEventStreamLineIsRefusedAtTheLineLimit() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: ")
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let transport = SSEChatTransport(http: SocketHTTPClient(), clock: ContinuousClock())
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions"))
            await #expect(throws: ChatStreamError.tooLarge("a line of the event stream is longer than 65536 bytes")) {
                for try await _ in transport.chunks(for: HTTPRequest(method: "POST", url: url, body: [])) {}
            }
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "the client read all \(Self.floodLimit) bytes")
        }

        @Test func anEndlessDataLineIsRefusedAtTheEventLimit() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ")
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let transport = SSEChatTransport(http: SocketHTTPClient(), clock: ContinuousClock())
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions"))
            let limit = EventStreamParser.Limits().maximumEventBytes
            await #expect(
                throws: ChatStreamError.tooLarge("an event of the event stream is larger than \(limit) bytes")
            ) {
                for try await _ in transport.chunks(for: HTTPRequest(method: "POST", url: url, body: [])) {}
            }
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "the client read all \(Self.floodLimit) bytes")
        }

        @Test func aChatReplyNobodyReadsStopsTheSocketAtEveryHop() async throws {
            // Valid chunks as fast as the server can write them; the consumer takes one and
            // then nothing. Through the transport, the service and their bounded streams, the
            // server is slowed by TCP: it cannot send its 32 MiB, as it could when each hop
            // queued without limit. (The hops' bounds, the socket inbox and the kernel's socket
            // buffers together hold about 16 MB of this stream: measured 15.7 to 16.4 MB, so a
            // 16 MiB flood could pass through a bounded client.)
            let chunk =
                #"data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"xxxxxxxxxxxxxxxx"},"finish_reason":null}]}"#
                + "\n\n"
            let block = Array(String(repeating: chunk, count: 60_000 / chunk.utf8.count + 1).utf8)
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                connection.flood(block, limit: Self.everyHopFlood, into: flood)
            }
            let service = ChatStreamingService(
                baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), http: SocketHTTPClient(),
                clock: ContinuousClock(), tokens: nil, gate: nil, model: "m")
            var iterator = service.reply(to: [ChatMessage(role: "user", content: "hi")]).makeAsyncIterator()
            #expect(try await iterator.next() == "xxxxxxxxxxxxxxxx")
            // Without backpressure the whole flood is read within this wait; with it, never.
            let drained = await ConditionWait.until(limit: .seconds(10)) { flood.sentEverything != nil }
            #expect(!drained, "the client read all 32 MiB: \(flood.sent) bytes sent")
            #expect(flood.sent < Self.everyHopFlood)
            _ = iterator
        }

        @Test func aRedirectIsRefusedNamingItsTargetAndNothingGoesThere() async throws {
            let other = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: [DONE]\n\n")
            }
            let target = "http://127.0.0.1:\(other.port)/v1/chat/completions"
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(target)\r\nContent-Length: 0\r\n\r\n")
            }
            let transport = SSEChatTransport(http: DefaultHTTPClient.make(), clock: ContinuousClock())
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/v1/chat/completions"))
            var headers = HTTPHeaders()
            headers.set("Authorization", "Bearer secret")
            let request = HTTPRequest(method: "POST", url: url, headers: headers, body: Array("{\"q\":1}".utf8))
            do {
                for try await _ in transport.chunks(for: request) {}
                Issue.record("the redirect was followed")
            } catch let error as ChatStreamError {
                #expect(error == .redirected(HTTPRedirectRefused(status: 307, location: target)))
                #expect(error.description.contains(target))
            }
            #expect(other.received.isEmpty, "the question went to the redirect's target")
            #expect(server.received.count == 1)
        }
    }
#endif
