import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import Testing

/// The service's waits: `headTimeout` bounds the wait for the response head on the injected
/// clock, and `retriesTimeout` says whether a timeout before any text sends the request again
/// (seed 004's cold-start rule) or fails the reply (a busy server on this machine).
@Suite("Chat streaming: the wait for the head and the timeout retry", .timeLimit(.minutes(2)))
struct ChatStreamTimeoutTests {
    /// An HTTP client whose server never sends a response head: each request waits until it is
    /// cancelled.
    final class SilentHTTPClient: HTTPClient {
        private let sent = Locked<[HTTPRequest]>([])
        /// Notified when a request is sent.
        let changed = ChangeSignal()
        var requests: [HTTPRequest] { sent.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
            sent.withLock { $0.append(request) }
            changed.notify()
            let (never, continuation) = AsyncStream<Void>.makeStream()
            for await _ in never {}  // ends when the sending task is cancelled
            withExtendedLifetime(continuation) {}
            throw CancellationError()
        }
    }

    private func service(_ http: SilentHTTPClient, clock: ManualClock, head: Duration, retries: Bool)
        -> ChatStreamingService<ManualClock>
    {
        ChatStreamingService(
            baseURL: URL(string: "http://127.0.0.1:11434")!, http: http, clock: clock, tokens: nil, gate: nil,
            model: "llama3.2", stallTimeout: head, headTimeout: head, retriesTimeout: retries)
    }

    private func reply(_ service: ChatStreamingService<ManualClock>) async -> (any Error)? {
        do {
            for try await _ in service.reply(to: [ChatMessage(role: "user", content: "hi")]) {}
            return nil
        } catch {
            return error
        }
    }

    @Test func aLongWaitIsNotCutAtSixtySecondsAndItsTimeoutIsNotSentAgain() async throws {
        let http = SilentHTTPClient()
        let clock = ManualClock()
        let start = clock.now
        let consumer = Task { await reply(service(http, clock: clock, head: .seconds(300), retries: false)) }
        defer { consumer.cancel() }
        // The head's timer sleeps until 300 s, read once when the request was sent.
        try #require(await clock.waitForSleeper(until: start.advanced(by: .seconds(300))))
        #expect(http.requests.map(\.timeout) == [.seconds(300)], "the socket client waits as long")
        clock.advance(by: .seconds(299))
        #expect(http.requests.count == 1)
        clock.advance(by: .seconds(1))
        let error = await consumer.value
        #expect(error as? ChatStreamError == .stalled(after: .seconds(300)))
        #expect(http.requests.count == 1, "a busy local server is not asked for the same generation twice")
    }

    @Test func aTimeoutIsRetriedOnceWhereTheRuleAsksForIt() async throws {
        let http = SilentHTTPClient()
        let clock = ManualClock()
        let start = clock.now
        let consumer = Task { await reply(service(http, clock: clock, head: .seconds(60), retries: true)) }
        defer { consumer.cancel() }
        try #require(await clock.waitForSleeper(until: start.advanced(by: .seconds(60))))
        clock.advance(by: .seconds(60))
        // The retry's timer counts from when it was sent.
        try #require(await clock.waitForSleeper(until: start.advanced(by: .seconds(120))))
        #expect(http.requests.count == 2)
        clock.advance(by: .seconds(60))
        #expect(await consumer.value as? ChatStreamError == .stalled(after: .seconds(60)))
        #expect(http.requests.count == 2, "one retry, never a third request")
    }
}
