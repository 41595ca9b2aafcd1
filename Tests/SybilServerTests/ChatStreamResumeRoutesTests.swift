import SybilCore
import SybilServer
import SybilWire
import Testing

@Suite("Chat streams: ids, resume route and retention", .timeLimit(.minutes(2)))
struct ChatStreamResumeRoutesTests {
    private let body =
        #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "Was ist ein Kaltstart?"}], "stream": true}"#

    /// The stream id (the first chunk's id) of a collected stream.
    private func streamID(_ events: [ServerSentEvent]) throws -> String {
        guard case .chunk(let chunk)? = try events.first.map(OpenAIStreamEvent.decode) else {
            throw Missing.streamID
        }
        return chunk.id
    }

    private enum Missing: Error { case streamID }

    @Test func everyEventHasASequenceIdAndTheStreamAnUnguessableId() async throws {
        let harness = try AppHarness()
        let first = events(await collect(await harness.send("POST", "/v1/chat/completions", json: body)))
        #expect(first.map(\.lastEventId) == (1...first.count).map(String.init))
        let id = try streamID(first)
        #expect(id.hasPrefix("chatcmpl-"))
        #expect(id.dropFirst(9).count == 32 && id.dropFirst(9).allSatisfy(\.isHexDigit))
        let second = events(await collect(await harness.send("POST", "/v1/chat/completions", json: body)))
        #expect(try streamID(second) != id)
        for event in first.dropLast() {
            guard case .chunk(let chunk) = try OpenAIStreamEvent.decode(event) else { continue }
            #expect(chunk.id == id)
        }
    }

    @Test func resumingReplaysExactlyTheEventsAfterTheLastOne() async throws {
        let harness = try AppHarness()
        let whole = events(await collect(await harness.send("POST", "/v1/chat/completions", json: body)))
        let id = try streamID(whole)
        for after in [0, 1, whole.count - 1, whole.count] {
            let viaHeader = events(
                await collect(
                    await harness.send(
                        "GET", "/v1/chat/completions/\(id)/events", headers: [("Last-Event-ID", String(after))])))
            #expect(viaHeader == Array(whole.dropFirst(after)), "after \(after)")
            let viaQuery = events(
                await collect(await harness.send("GET", "/api/v1/chat/completions/\(id)/events?after=\(after)")))
            #expect(viaQuery == viaHeader)
        }
        let both = events(
            await collect(
                await harness.send(
                    "GET", "/v1/chat/completions/\(id)/events?after=1", headers: [("Last-Event-ID", "3")])))
        #expect(both == Array(whole.dropFirst(3)), "the header wins over the query")
    }

    @Test func generationGoesOnWithNoReader() async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", "/v1/chat/completions", json: body)
        // Read only the first event, then leave.
        let start = events(await collect(response) { bytes in events(bytes).count >= 1 })
        let id = try streamID(start)
        let resumed = events(
            await collect(
                await harness.send("GET", "/v1/chat/completions/\(id)/events", headers: [("Last-Event-ID", "1")])))
        #expect(try resumed.last.map(OpenAIStreamEvent.decode) == .done)
        #expect(resumed.first?.lastEventId == "2")
    }

    @Test func unknownStreamsAre404AndBadEventIds400NamingTheField() async throws {
        let harness = try AppHarness()
        let missing = await harness.send("GET", "/v1/chat/completions/chatcmpl-0/events")
        #expect(missing.status == 404)
        #expect(try APIErrorBody.decode(json(missing), at: .root).code == "stream_not_found")
        let whole = events(await collect(await harness.send("POST", "/v1/chat/completions", json: body)))
        let id = try streamID(whole)
        let path = "/v1/chat/completions/\(id)/events"
        for (value, param) in [
            ("abc", "Last-Event-ID"), ("-1", "Last-Event-ID"), ("", "Last-Event-ID"),
            ("1234567890123456789", "Last-Event-ID"), (String(whole.count + 1), "Last-Event-ID"),
        ] {
            let response = await harness.send("GET", path, headers: [("Last-Event-ID", value)])
            #expect(response.status == 400, "\(value)")
            #expect(try APIErrorBody.decode(json(response), at: .root).param == param, "\(value)")
        }
        #expect(await harness.send("GET", path, headers: [("Last-Event-ID", "123456789012345678")]).status == 400)
        #expect(await harness.send("GET", path + "?after=x").status == 400)
        #expect(await harness.send("GET", path, headers: [("Last-Event-ID", String(whole.count))]).status == 200)
    }

    @Test func aFinishedStreamIsKeptFiveMinutesThen410() async throws {
        let harness = try AppHarness()
        let id = try streamID(events(await collect(await harness.send("POST", "/v1/chat/completions", json: body))))
        let path = "/v1/chat/completions/\(id)/events"
        harness.clock.advance(by: .seconds(300))
        #expect(await harness.send("GET", path).status == 200)
        harness.clock.advance(by: .milliseconds(1))
        let expired = await harness.send("GET", path)
        #expect(expired.status == 410)
        #expect(try APIErrorBody.decode(json(expired), at: .root).code == "stream_expired")
    }

    @Test func aResumingReaderFollowsTheLiveStreamToItsEnd() async throws {
        let harness = try AppHarness { $0.pace = .milliseconds(40) }
        let response = await harness.send("POST", "/v1/chat/completions", json: body)
        let start = events(await collect(response) { bytes in events(bytes).count >= 1 })
        let id = try streamID(start)
        let follower = Task {
            events(
                await collect(
                    await harness.send("GET", "/v1/chat/completions/\(id)/events", headers: [("Last-Event-ID", "1")])))
        }
        let clock = harness.clock
        let driver = Task { await clock.drive(step: .milliseconds(40)) }
        let followed = await follower.value
        driver.cancel()
        #expect(try followed.last.map(OpenAIStreamEvent.decode) == .done)
        #expect(followed.first?.lastEventId == "2")
        #expect(followed.map(\.lastEventId) == (2...(followed.count + 1)).map(String.init))
    }

    @Test func whenEveryKeptStreamRunsANewOneIs503WithRetryAfter() async throws {
        let harness = try AppHarness { $0.pace = .seconds(1) }
        for _ in 0..<256 {
            #expect(await harness.send("POST", "/v1/chat/completions", json: body).status == 200)
        }
        let refused = await harness.send("POST", "/v1/chat/completions", json: body)
        #expect(refused.status == 503)
        #expect(refused.headers["Retry-After"] == "1")
        #expect(try APIErrorBody.decode(json(refused), at: .root).code == "streams_busy")
        await harness.app.shutdown()
    }
}
