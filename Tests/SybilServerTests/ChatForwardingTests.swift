import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

@Suite("Chat completions forwarded upstream", .timeLimit(.minutes(2)))
struct ChatForwardingTests {
    /// A scripted upstream: each request gets the next answer; requests are recorded.
    final class Upstream: HTTPClient {
        struct Answer: Sendable {
            var status: Int
            var contentType: String
            var chunks: [String]
            var failure: (any Error & Sendable)?
            /// The body stays open after its chunks (an upstream gone silent).
            var keepsOpen = false
            /// Thrown by `send` instead of answering (an upstream unreachable or timing out).
            var sendFailure: (any Error & Sendable)?
            /// More response headers.
            var headers: [(String, String)] = []
        }

        private let answers: Locked<[Answer]>
        private let seen = Locked<[HTTPRequest]>([])
        private let open = Locked<[AsyncThrowingStream<[UInt8], any Error>.Continuation]>([])

        init(_ answers: [Answer]) { self.answers = Locked(answers) }

        var requests: [HTTPRequest] { seen.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            seen.withLock { $0.append(request) }
            let answer = answers.withLock { $0.removeFirst() }
            if let failure = answer.sendFailure { throw failure }
            let (body, feed) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            for chunk in answer.chunks { feed.yield(Array(chunk.utf8)) }
            if answer.keepsOpen {
                open.withLock { $0.append(feed) }
            } else {
                feed.finish(throwing: answer.failure)
            }
            return HTTPStreamingResponse(
                head: HTTPResponseHead(
                    status: answer.status, headers: HTTPHeaders([("Content-Type", answer.contentType)] + answer.headers)
                ),
                body: body)
        }
    }

    struct Dropped: Error {}

    private func app(_ upstream: Upstream, clock: ManualClock = ManualClock()) throws -> SybilServerApp {
        var options = SybilServerOptions(token: AppHarness.token)
        options.pace = .zero
        options.upstream = URL(string: "http://upstream.invalid")
        options.upstreamKey = "up-key"
        return try SybilServerApp(
            options: options, time: ServerTime(clock: clock) { 1_800_000_000_000 }, upstream: upstream,
            random: SeededRandomSource(seed: 9))
    }

    private func send(
        _ app: SybilServerApp, _ method: String, _ target: String, body: String = "", headers: [(String, String)] = []
    )
        async -> HTTPServerResponse
    {
        await app.handle(
            HTTPServerRequest(
                method: method, target: target, headers: headers + [("Authorization", "Bearer \(AppHarness.token)")],
                body: Array(body.utf8)))
    }

    private let request = #"{"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}], "stream": true}"#

    private func upstreamChunk(_ content: String) -> String {
        #"id: 77\#ndata: {"id":"up-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\#(content)"},"finish_reason":null}]}"#
            + "\n\n"
    }

    @Test func eventsAreReEmittedUnderTheServersOwnIdsAndCanBeResumed() async throws {
        let upstream = Upstream([
            .init(
                status: 200, contentType: "text/event-stream",
                chunks: [upstreamChunk("Hal"), upstreamChunk("lo"), "data: [DONE]\n\n"])
        ])
        let app = try app(upstream)
        let first = events(await collect(await send(app, "POST", "/v1/chat/completions", body: request)))
        #expect(first.map(\.lastEventId) == ["1", "2", "3"])
        let chunks = try first.dropLast().map { event -> ChatCompletionChunk in
            guard case .chunk(let chunk) = try OpenAIStreamEvent.decode(event) else { throw Dropped() }
            return chunk
        }
        let id = try #require(chunks.first?.id)
        #expect(id.hasPrefix("chatcmpl-") && chunks.allSatisfy { $0.id == id })
        #expect(chunks.map(\.content) == ["Hal", "lo"])
        #expect(try OpenAIStreamEvent.decode(try #require(first.last)) == .done)
        let resumed = events(
            await collect(
                await send(app, "GET", "/v1/chat/completions/\(id)/events", headers: [("Last-Event-ID", "1")])))
        #expect(resumed == Array(first.dropFirst()))
        let sent = try #require(upstream.requests.first)
        #expect(sent.headers["Authorization"] == "Bearer up-key")
        #expect(upstream.requests.count == 1)
    }

    @Test func anUpstreamThatFailsMidStreamEndsWithAnUpstreamFailedFrame() async throws {
        let upstream = Upstream([
            .init(status: 200, contentType: "text/event-stream", chunks: [upstreamChunk("Hal")], failure: Dropped())
        ])
        let decoded = try events(
            await collect(await send(try app(upstream), "POST", "/v1/chat/completions", body: request))
        ).map(OpenAIStreamEvent.decode)
        #expect(decoded.count == 2)
        guard case .error(let error)? = decoded.last else {
            Issue.record("expected an error frame, got \(decoded)")
            return
        }
        #expect(error.code == "upstream_failed")
    }

    @Test func anUpstreamThatEndsWithoutDoneEndsWithAnUpstreamFailedFrame() async throws {
        let upstream = Upstream([.init(status: 200, contentType: "text/event-stream", chunks: [upstreamChunk("Hal")])])
        let decoded = try events(
            await collect(await send(try app(upstream), "POST", "/v1/chat/completions", body: request))
        ).map(OpenAIStreamEvent.decode)
        guard case .error(let error)? = decoded.last, decoded.count == 2 else {
            Issue.record("expected the chunk, then an error frame; got \(decoded)")
            return
        }
        #expect(error.code == "upstream_failed")
        #expect(error.message == "The upstream stream ended before [DONE].")
    }

    @Test func anUpstreamThatGoesSilentIsEndedAfterTheIdleTimeoutOnTheServersClock() async throws {
        let clock = ManualClock()
        let upstream = Upstream([
            .init(status: 200, contentType: "text/event-stream", chunks: [upstreamChunk("Hal")], keepsOpen: true)
        ])
        let app = try app(upstream, clock: clock)
        let start = clock.now
        let response = await send(app, "POST", "/v1/chat/completions", body: request)
        // 15 s at a time while the server waits, until the stream ends; the driver is
        // cancelled then, so no wait is left for a sleeper that never comes.
        let driver = Task {
            for _ in 0..<12 {
                guard await clock.waitForSleepers(count: 1) else { return }
                clock.advance(by: .seconds(15))
            }
        }
        defer { driver.cancel() }
        let decoded = try events(await collect(response)).map(OpenAIStreamEvent.decode)
        #expect(start.duration(to: clock.now) >= .seconds(60), "not before the 60 s idle timeout")
        guard case .error(let error)? = decoded.last, decoded.count == 2 else {
            Issue.record("expected the chunk, then an error frame; got \(decoded)")
            return
        }
        #expect(error.code == "upstream_failed")
        #expect(error.message.contains("no bytes for 60"))
    }

    @Test func nonStreamingAnswersAndModelListsAreRelayedWhole() async throws {
        let upstream = Upstream([
            .init(status: 429, contentType: "application/json", chunks: [#"{"error":{"message":"slow down"}}"#]),
            .init(status: 200, contentType: "application/json", chunks: [#"{"object":"list","#, #""data":[]}"#]),
        ])
        let app = try app(upstream)
        let limited = await send(app, "POST", "/v1/chat/completions", body: request)
        #expect(limited.status == 429)
        #expect(
            String(decoding: limited.bodyBytes ?? [], as: UTF8.self)
                == #"{"error":{"message":"slow down","type":"rate_limit_error","code":"rate_limited"}}"#,
            "relayed in the shared error shape")
        let models = await send(app, "GET", "/v1/models")
        #expect(models.status == 200)
        #expect(String(decoding: models.bodyBytes ?? [], as: UTF8.self) == #"{"object":"list","data":[]}"#)
        #expect(upstream.requests.last?.url.absoluteString == "http://upstream.invalid/v1/models")
    }

    @Test(
        "a model id that could leave its path segment is refused before anything is forwarded",
        arguments: ["..%2F..%2Fadmin%2Fkeys", "..", ".", "a%2Fb", "a%5Cb", "a%3Fq", "a%23f", "a%25b", "a%0Ab"])
    func modelIdsStayOneSegment(id: String) async throws {
        let upstream = Upstream([])
        let app = try app(upstream)
        let answer = await send(app, "GET", "/v1/models/\(id)")
        #expect(answer.status == 400)
        #expect(String(decoding: answer.bodyBytes ?? [], as: UTF8.self).contains(#""param":"model""#))
        #expect(upstream.requests.isEmpty, "nothing reached the upstream with its key")
    }

    @Test func aPlainModelIdIsForwardedAsOneSegmentAtItsLengthLimit() async throws {
        let longest = String(repeating: "m", count: 256)
        let upstream = Upstream([.init(status: 200, contentType: "application/json", chunks: ["{}"])])
        let app = try app(upstream)
        #expect(await send(app, "GET", "/v1/models/\(longest)").status == 200)
        #expect(upstream.requests.last?.url.absoluteString == "http://upstream.invalid/v1/models/\(longest)")
        #expect(await send(app, "GET", "/v1/models/\(longest)m").status == 400)
    }
}
