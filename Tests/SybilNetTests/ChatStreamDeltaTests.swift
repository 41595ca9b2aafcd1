import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

/// What a streamed reply carries besides its text (reasoning, finish reason, usage), and when a
/// stream without `[DONE]` is complete.
@Suite("Chat stream deltas", .timeLimit(.minutes(2)))
struct ChatStreamDeltaTests {
    let request = HTTPRequest(method: "POST", url: URL(string: "https://h/v1/chat/completions")!)

    private func service(_ http: StubHTTPClient) -> ChatStreamingService<ManualClock> {
        ChatStreamingService(
            baseURL: URL(string: "https://h")!, http: http, clock: ManualClock(), tokens: nil, gate: nil, model: "m")
    }

    private func deltas(_ service: ChatStreamingService<ManualClock>) async -> ([ChatDelta], (any Error)?) {
        var deltas: [ChatDelta] = []
        do {
            for try await delta in service.deltas(to: [ChatMessage(role: "user", content: "hi")]) {
                deltas.append(delta)
            }
            return (deltas, nil)
        } catch {
            return (deltas, error)
        }
    }

    /// A llama.cpp-like stream: role chunk, reasoning, content, a length finish with `timings`,
    /// the usage chunk with no choices.
    static let reasoningStream =
        #"data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}"#
        + "\n\n"
        + #"data: {"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"Hmm, "},"finish_reason":null}]}"#
        + "\n\n"
        + #"data: {"id":"c","choices":[{"index":0,"delta":{"reasoning":"blue."},"finish_reason":null}]}"# + "\n\n"
        + #"data: {"id":"c","choices":[{"index":0,"delta":{"content":"Blue"},"finish_reason":null}]}"# + "\n\n"
        + #"data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"timings":{"predicted_n":3}}"#
        + "\n\n"
        + #"data: {"id":"c","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}}"#
        + "\n\n"

    @Test func reasoningContentFinishAndUsageEachArriveInOrderAndTheEmptyRoleChunkIsSkipped() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: Self.reasoningStream + "data: [DONE]\n\n")
        let (deltas, error) = await deltas(service(http))
        #expect(error == nil)
        #expect(
            deltas == [
                ChatDelta(reasoning: "Hmm, "), ChatDelta(reasoning: "blue."), ChatDelta(text: "Blue"),
                ChatDelta(finishReason: .length),
                ChatDelta(usage: ChatCompletionUsage(promptTokens: 4, completionTokens: 3, totalTokens: 7)),
            ])
    }

    @Test func theTextOnlyReplyKeepsOnlyTheText() async throws {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: Self.reasoningStream + "data: [DONE]\n\n")
        var text: [String] = []
        for try await delta in service(http).reply(to: [ChatMessage(role: "user", content: "hi")]) {
            text.append(delta)
        }
        #expect(text == ["Blue"])
    }

    @Test func aStreamThatFinishedButClosedWithoutDoneIsComplete() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: Self.reasoningStream)
        let (deltas, error) = await deltas(service(http))
        #expect(error == nil, "a finish_reason arrived, so the close is the end")
        #expect(deltas.last?.usage?.totalTokens == 7)
        #expect(http.requests.count == 1)
    }

    @Test func aStreamThatClosedWithoutDoneOrAFinishReasonIsStillInterrupted() async {
        let http = StubHTTPClient()
        http.respond(
            status: 200, headers: sseHeaders,
            body: #"data: {"id":"c","choices":[{"index":0,"delta":{"content":"Bl"},"finish_reason":null}]}"# + "\n\n")
        var chunks = 0
        var failure: (any Error)?
        do {
            for try await _ in SSEChatTransport(http: http, clock: ManualClock()).chunks(for: request) { chunks += 1 }
        } catch {
            failure = error
        }
        #expect(chunks == 1)
        #expect(failure as? ChatStreamError == .interrupted)
    }

    @Test func aFinishOnlyStreamClosedWithoutDoneEndsNormallyAtTheTransport() async {
        let http = StubHTTPClient()
        http.respond(
            status: 200, headers: sseHeaders,
            body: chunkEvent("Hi")
                + #"data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"# + "\n\n")
        var text = ""
        var failure: (any Error)?
        do {
            for try await chunk in SSEChatTransport(http: http, clock: ManualClock()).chunks(for: request) {
                text += chunk.content
            }
        } catch {
            failure = error
        }
        #expect(text == "Hi" && failure == nil)
    }

    @Test func aStreamSilentAfterItsFinishReasonIsCompleteWhenTheStallTimeoutPasses() async throws {
        let http = StubHTTPClient()
        let clock = ManualClock()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        let transport = SSEChatTransport(http: http, clock: clock, stallTimeout: .seconds(30))
        let consumer = Task { () -> (String, (any Error)?) in
            var text = ""
            do {
                for try await chunk in transport.chunks(for: request) { text += chunk.content }
                return (text, nil)
            } catch {
                return (text, error)
            }
        }
        defer { consumer.cancel() }
        try #require(await clock.waitForSleepers(count: 1))
        let reads = clock.nowReads
        feed.yield(
            Array(
                (chunkEvent("Hi") + #"data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#
                    + "\n\n").utf8))
        try #require(await clock.waitForNowReads(after: reads), "the transport noted the bytes' time")
        clock.advance(by: .seconds(30))
        let (text, error) = await consumer.value
        #expect(text == "Hi")
        #expect(error == nil, "finished, then silent: complete, not stalled")
    }

    /// A conformer that knows only text still streams deltas.
    struct TextOnly: ChatStreaming {
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { continuation in
                for part in ["a", "", "b"] { continuation.yield(part) }
                continuation.finish()
            }
        }
    }

    @Test func aTextOnlyConformerGetsDeltasFromItsText() async throws {
        var deltas: [ChatDelta] = []
        for try await delta in TextOnly().deltas(to: []) { deltas.append(delta) }
        #expect(deltas == [ChatDelta(text: "a"), ChatDelta(text: "b")])
    }

    @Test func aChunkCarryingNothingIsNoDelta() {
        #expect(ChatDelta(ChatCompletionChunk(id: "c", choices: [.init(index: 0, role: "assistant")])) == nil)
        #expect(ChatDelta(ChatCompletionChunk(id: "c", choices: [.init(index: 0, finishReason: .stop)])) != nil)
    }
}
