#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilHTTP
    import SybilNet
    import SybilTesting
    import SybilWire
    import Testing

    @testable import SybilServer

    /// A forwarded stream from an upstream that never stops: once the stream passes its limit the
    /// client gets `stream_too_large` and the upstream's connection is closed; the server never
    /// downloads what it will not forward.
    @Suite("An upstream that floods a forwarded stream", .timeLimit(.minutes(2)))
    struct UpstreamFloodTests {
        static let floodLimit = 64 << 20

        /// An upstream that answers an event stream: `prefix`, then `block` again and again.
        private func floodingUpstream(_ prefix: String, _ block: [UInt8], flood: LoopbackHTTPServer.Flood) throws
            -> LoopbackHTTPServer
        {
            try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + prefix)
                connection.flood(block, limit: Self.floodLimit, into: flood)
            }
        }

        private func forward(to upstream: LoopbackHTTPServer) async throws -> [ServerSentEvent] {
            var options = SybilServerOptions(token: AppHarness.token)
            options.pace = .zero
            options.upstream = URL(string: "http://127.0.0.1:\(upstream.port)")
            let app = try SybilServerApp(
                options: options, time: ServerTime(clock: ManualClock()) { 1_800_000_000_000 },
                upstream: DefaultHTTPClient.make(redirects: .deliver), random: SeededRandomSource(seed: 9))
            let body = #"{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true}"#
            let response = await app.handle(
                HTTPServerRequest(
                    method: "POST", target: "/v1/chat/completions",
                    headers: [("Authorization", "Bearer \(AppHarness.token)")], body: Array(body.utf8)))
            return events(await collect(response))
        }

        @Test func aFloodOfValidEventsIsCutAndTheUpstreamClosed() async throws {
            let chunk =
                #"data: {"id":"up","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"xxxxxxxxxxxxxxxx"},"finish_reason":null}]}"#
                + "\n\n"
            var block: [UInt8] = []
            while block.count < 60_000 { block += Array(chunk.utf8) }
            let flood = LoopbackHTTPServer.Flood()
            let upstream = try floodingUpstream("", block, flood: flood)
            let received = try await forward(to: upstream)
            let last = try #require(received.last)
            #expect(last.type == "error")
            #expect(last.data.contains("stream_too_large"))
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "the server downloaded the whole flood")
            #expect(flood.sent < Self.floodLimit / 2)
        }

        @Test func anEndlessEventIsCutAndTheUpstreamClosed() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let upstream = try floodingUpstream(
                "data: ", [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10), flood: flood)
            let received = try await forward(to: upstream)
            let last = try #require(received.last)
            #expect(last.type == "error")
            #expect(last.data.contains("stream_too_large"))
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "the server downloaded the whole flood")
        }
    }
#endif
