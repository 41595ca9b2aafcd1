import Foundation
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@Suite("SSE chat transport", .timeLimit(.minutes(2)))
struct SSEChatTransportTests {
    let request = HTTPRequest(method: "POST", url: URL(string: "https://h/v1/chat/completions")!)

    private func collect(
        _ transport: SSEChatTransport<ManualClock>
    ) async -> (text: String, error: (any Error)?) {
        var text = ""
        do {
            for try await chunk in transport.chunks(for: request) { text += chunk.content }
            return (text, nil)
        } catch {
            return (text, error)
        }
    }

    @Test func deltasUntilDoneAreTheNormalEnd() async {
        let http = StubHTTPClient()
        http.respond(
            status: 200, headers: sseHeaders,
            body: ": keep-alive\n\n" + chunkEvent("Hal") + chunkEvent("lo") + "data: [DONE]\n\n")
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.text == "Hallo")
        #expect(result.error == nil)
    }

    @Test(
        "each status maps to its own error with the server's body and Retry-After",
        arguments: [
            (400, ChatStreamError.badRequest(APIErrorBody(message: "bad", code: "x"))),
            (401, .unauthorized(APIErrorBody(message: "bad", code: "x"))),
            (404, .notFound(APIErrorBody(message: "bad", code: "x"))),
            (500, .serverError(status: 500, body: APIErrorBody(message: "bad", code: "x"), retryAfter: .seconds(3))),
            (503, .serverError(status: 503, body: APIErrorBody(message: "bad", code: "x"), retryAfter: .seconds(3))),
            (
                429,
                .unexpectedStatus(status: 429, body: APIErrorBody(message: "bad", code: "x"), retryAfter: .seconds(3))
            ),
            (
                302,
                .unexpectedStatus(status: 302, body: APIErrorBody(message: "bad", code: "x"), retryAfter: .seconds(3))
            ),
        ])
    func statusMapping(status: Int, expected: ChatStreamError) async {
        let http = StubHTTPClient()
        http.respond(
            status: status, headers: [("Content-Type", "application/json"), ("Retry-After", "3")],
            body: #"{"error":{"message":"bad","code":"x"}}"#)
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.error as? ChatStreamError == expected)
    }

    @Test func anUnreadableErrorBodyStillMapsTheStatus() async {
        let http = StubHTTPClient()
        http.respond(status: 502, body: "<html>bad gateway</html>")
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.error as? ChatStreamError == .serverError(status: 502, body: nil, retryAfter: nil))
    }

    @Test func a200ThatIsNeitherAStreamNorADocumentFails() async {
        for type in ["text/html; charset=utf-8", "application/x-ndjson"] {
            let http = StubHTTPClient()
            http.respond(status: 200, headers: [("Content-Type", type)], body: "<html>proxy</html>")
            let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
            #expect(result.error as? ChatStreamError == .wrongContentType(type))
        }
    }

    /// A server that ignored `"stream": true` answers with the whole `chat.completion`: its
    /// message is the reply's one chunk, tool calls (without `index`) and usage included.
    @Test func aWholeCompletionIsTheRepliesOneChunk() async throws {
        let http = StubHTTPClient()
        http.respond(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: #"""
                {"id":"c9","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Ganz \ud83d\ude00","reasoning_content":"erst","tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}
                """#)
        var chunks: [ChatCompletionChunk] = []
        for try await chunk in SSEChatTransport(http: http, clock: ManualClock()).chunks(for: request) {
            chunks.append(chunk)
        }
        #expect(chunks.count == 1)
        let chunk = try #require(chunks.first)
        #expect(chunk.content == "Ganz 😀")
        #expect(chunk.reasoning == "erst")
        #expect(chunk.finishReason == .stop)
        #expect(chunk.toolCalls == [ChatToolCallDelta(index: 0, id: "t1", name: "f", arguments: #"{"a":1}"#)])
        #expect(chunk.usage?.totalTokens == 5)
    }

    /// OpenAI's shape, and Gemini's (the error object as the one element of an array).
    @Test(
        "a whole document with an error is the server's error",
        arguments: [
            #"{"error":{"message":"model overloaded","code":"busy"}}"#,
            #"[{"error":{"message":"model overloaded","code":"busy","status":"UNAVAILABLE","details":[]}}]"#,
        ])
    func aWholeDocumentWithAnErrorIsTheServersError(body: String) async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(
            result.error as? ChatStreamError == .errorFrame(APIErrorBody(message: "model overloaded", code: "busy")))
    }

    @Test(
        "a malformed whole document fails naming the member",
        arguments: [
            ("{}", "choices"),
            (#"{"choices":[{"index":0,"message":{"content":7}}]}"#, "choices[0].message.content"),
        ])
    func aMalformedWholeDocumentFailsNamingTheMember(body: String, member: String) async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: [("Content-Type", "application/json")], body: body)
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        guard case .malformedChunk(let reason)? = result.error as? ChatStreamError else {
            Issue.record("expected a malformed reply, got \(String(describing: result.error))")
            return
        }
        #expect(reason.contains(member), "\(reason)")
    }

    /// A document is held whole, so it is bounded: past the bound reading stops.
    @Test func aWholeDocumentPastItsBoundIsRefused() async {
        let http = StubHTTPClient()
        let feed = http.respond(status: 200, headers: [("Content-Type", "application/json")])
        let piece = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        for _ in 0...(SSEChatTransport<ManualClock>.maximumWholeReply >> 20) { http.body(feed).yield(piece) }
        http.body(feed).finish()
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        guard case .tooLarge(let reason)? = result.error as? ChatStreamError else {
            Issue.record("expected a refusal, got \(String(describing: result.error))")
            return
        }
        #expect(reason.contains("16 MiB"), "\(reason)")
    }

    /// Without a content type (or as `text/plain`) the first bytes tell an event stream from a
    /// whole document.
    @Test func aBodyWithoutAContentTypeIsReadByItsFirstBytes() async {
        for headers in [[], [("Content-Type", "text/plain")]] {
            let events = StubHTTPClient()
            events.respond(
                status: 200, headers: headers, body: chunkEvent("Hal") + chunkEvent("lo") + "data: [DONE]\n\n")
            let streamed = await collect(SSEChatTransport(http: events, clock: ManualClock()))
            #expect(streamed.text == "Hallo")
            #expect(streamed.error == nil)
            let document = StubHTTPClient()
            document.respond(
                status: 200, headers: headers,
                body: "\n " + #"{"choices":[{"message":{"content":"Ganz"},"finish_reason":"stop"}]}"#)
            let whole = await collect(SSEChatTransport(http: document, clock: ManualClock()))
            #expect(whole.text == "Ganz")
            #expect(whole.error == nil)
        }
    }

    @Test func anErrorFrameInside200IsAFailure() async {
        let http = StubHTTPClient()
        http.respond(
            status: 200, headers: sseHeaders,
            body: chunkEvent("Ein")
                + "event: error\ndata: {\"error\":{\"message\":\"upstream timeout\",\"code\":\"upstream_timeout\"}}\n\n"
        )
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.text == "Ein")
        #expect(
            result.error as? ChatStreamError
                == .errorFrame(APIErrorBody(message: "upstream timeout", code: "upstream_timeout")))
        let plain = StubHTTPClient()
        plain.respond(status: 200, headers: sseHeaders, body: "data: {\"error\":{\"message\":\"quota\"}}\n\n")
        let second = await collect(SSEChatTransport(http: plain, clock: ManualClock()))
        #expect(second.error as? ChatStreamError == .errorFrame(APIErrorBody(message: "quota")))
    }

    @Test func aStreamThatEndsWithoutDoneIsInterrupted() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: chunkEvent("Hal"))
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.text == "Hal")
        #expect(result.error as? ChatStreamError == .interrupted)
    }

    @Test func aMalformedChunkFails() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: "data: {\"id\":1}\n\n")
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        guard case .malformedChunk? = result.error as? ChatStreamError else {
            Issue.record("expected malformedChunk, got \(String(describing: result.error))")
            return
        }
    }

    @Test func aConnectionLostMidStreamIsATransportError() async {
        let http = StubHTTPClient()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        feed.yield(Array(chunkEvent("Hal").utf8))
        feed.finish(throwing: URLError(.networkConnectionLost))
        let result = await collect(SSEChatTransport(http: http, clock: ManualClock()))
        #expect(result.text == "Hal")
        guard case .transport? = result.error as? ChatStreamError else {
            Issue.record("expected transport, got \(String(describing: result.error))")
            return
        }
    }

    @Test func theHTTPClientsOwnTimeoutForTheHeadIsAStallOfTheRequestsTimeout() async {
        // An HTTP client that gave up waiting for the head: the socket client's timeout, and
        // URLSession's.
        struct TimingOut: HTTPClient {
            let failure: any Error
            func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse { throw failure }
        }
        for failure: any Error in [HTTPTimeout(after: request.timeout), URLError(.timedOut)] {
            let result = await collect(SSEChatTransport(http: TimingOut(failure: failure), clock: ManualClock()))
            #expect(result.error as? ChatStreamError == .stalled(after: request.timeout), "\(failure)")
        }
    }

    @Test func aSilentStreamStallsAfterTheTimeoutMeasuredFromTheLastBytes() async throws {
        let http = StubHTTPClient()
        let clock = ManualClock()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        let transport = SSEChatTransport(http: http, clock: clock, stallTimeout: .seconds(30))
        let start = clock.now
        let consumer = Task { await collect(transport) }
        // Each step waits for the transport's own signal; if one never comes the test stops
        // there (a later step would otherwise wait for a deadline the clock never reaches).
        defer { consumer.cancel() }
        // The stall watch's sleep (not the response head's timer, which may sleep for a moment
        // before the head cancels it); the watch read the time when it started.
        try #require(await clock.waitForSleeper(until: start.advanced(by: .seconds(30))))
        clock.advance(by: .seconds(20))
        let reads = clock.nowReads
        feed.yield(Array(": heartbeat\n\n".utf8))  // activity moves the deadline to 50 s
        try #require(await clock.waitForNowReads(after: reads), "the transport noted the heartbeat's time")
        let sleeps = clock.sleepsStarted
        clock.advance(by: .seconds(29))  // 49 s: 29 s after the heartbeat
        // The watch woke at 30 s and, seeing the heartbeat, sleeps again instead of stalling.
        try #require(await clock.waitForSleeps(after: sleeps))
        #expect(http.cancelledRequests.isEmpty, "not stalled 1 s before the deadline")
        clock.advance(by: .seconds(1))
        // Bounded: a stall that never comes fails here (and `defer` ends the consumer) instead
        // of holding the whole test run.
        try #require(await http.changed.wait { http.cancelledRequests == [0] }, "the request was cancelled")
        let result = await consumer.value
        #expect(result.error as? ChatStreamError == .stalled(after: .seconds(30)))
    }

    @Test func cancellingTheConsumerCancelsTheRequest() async {
        let http = StubHTTPClient()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        feed.yield(Array(chunkEvent("a").utf8))
        let transport = SSEChatTransport(http: http, clock: ManualClock())
        let consumer = Task {
            var count = 0
            for try await _ in transport.chunks(for: request) { count += 1 }
            return count
        }
        #expect(await http.changed.wait { !http.requests.isEmpty })
        consumer.cancel()
        _ = try? await consumer.value
        #expect(await http.changed.wait { http.cancelledRequests == [0] })
    }

    @Test func aDeliveryCarriesItsEventIDWhenItIsOneToEighteenDecimalDigits() async throws {
        let http = StubHTTPClient()
        let ids = ["7", "7", "000000000000000042", "1234567890123456789", "12a", "", "-1", "8"]
        let body = ids.map { "id: \($0)\n" + chunkEvent("x") }.joined() + "data: [DONE]\n\n"
        http.respond(status: 200, headers: sseHeaders, body: body)
        var seen: [Int64?] = []
        for try await delivery in SSEChatTransport(http: http, clock: ManualClock()).deliveries(for: request) {
            seen.append(delivery.eventID)
        }
        // An empty `id:` resets the last event id (WHATWG); 19 digits or a non-digit is no number.
        #expect(seen == [7, 7, 42, nil, nil, nil, nil, 8])
    }

    @Test func chunksAloneAreTheDeliveriesChunksAndEndTheSameWay() async throws {
        // Chunks over several reads (an event split between two), then an error frame: the
        // chunks alone are the deliveries without their event ids, and fail the same way.
        let events = (1...6).map { "id: \($0)\n" + chunkEvent("w\($0)") }.joined()
        let body = Array((events + "event: error\ndata: {\"error\":{\"message\":\"quota\"}}\n\n").utf8)
        let cuts = [0, 5, body.count / 2, body.count / 2 + 1, body.count]
        func serve() -> StubHTTPClient {
            let http = StubHTTPClient()
            let feed = http.body(http.respond(status: 200, headers: sseHeaders))
            for (start, end) in zip(cuts, cuts.dropFirst()) { feed.yield(Array(body[start..<end])) }
            feed.finish()
            return http
        }
        var alone: [ChatCompletionChunk] = []
        var aloneError: (any Error)?
        do {
            for try await chunk in SSEChatTransport(http: serve(), clock: ManualClock()).chunks(for: request) {
                alone.append(chunk)
            }
        } catch {
            aloneError = error
        }
        var delivered: [ChatCompletionChunk] = []
        var deliveredError: (any Error)?
        do {
            for try await delivery in SSEChatTransport(http: serve(), clock: ManualClock()).deliveries(for: request) {
                delivered.append(delivery.chunk)
            }
        } catch {
            deliveredError = error
        }
        #expect(alone.map(\.content) == (1...6).map { "w\($0)" })
        #expect(alone == delivered)
        #expect(aloneError as? ChatStreamError == .errorFrame(APIErrorBody(message: "quota")))
        #expect(deliveredError as? ChatStreamError == .errorFrame(APIErrorBody(message: "quota")))
    }

    @Test func theSentenceEndsOnceWhetherOrNotTheServersMessageEndsItself() {
        #expect(ChatStreamError.notFound(nil).description == "The chat service was not found (404).")
        #expect(
            ChatStreamError.notFound(APIErrorBody(message: "")).description == "The chat service was not found (404).")
        let ended = APIErrorBody(message: "The model 'x' does not exist.")
        #expect(ChatStreamError.notFound(ended).description == "The chat service was not found (404): \(ended.message)")
        let open = APIErrorBody(message: "no such model")
        #expect(ChatStreamError.badRequest(open).description == "The request was not accepted (400): no such model.")
        let asked = APIErrorBody(message: "Is the key right?")
        #expect(
            ChatStreamError.serverError(status: 503, body: asked, retryAfter: nil).description
                == "The chat service failed (503): Is the key right?")
    }

    @Test func retryAfterParsesSecondsOnly() {
        #expect(ChatStreamError.parseRetryAfter("0") == .zero)
        #expect(ChatStreamError.parseRetryAfter(" 12 ") == .seconds(12))
        #expect(ChatStreamError.parseRetryAfter("-1") == nil)
        #expect(ChatStreamError.parseRetryAfter("Wed, 21 Oct 2026 07:28:00 GMT") == nil)
        #expect(ChatStreamError.parseRetryAfter(nil) == nil)
    }
}
