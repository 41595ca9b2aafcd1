import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilTesting
import Testing

@Suite("Chat streaming: resuming dropped streams and timeouts", .timeLimit(.minutes(2)))
struct ChatStreamResumeTests {
    private let clock = ManualClock()

    private func service(
        _ http: any HTTPClient, resumeDelay: Duration = .zero, refresher: (any TokenRefresher)? = nil
    ) -> ChatStreamingService<ManualClock> {
        let tokens = TokenProvider(
            current: .init(store: InMemorySecretStore(["session-token": "t0"]), account: "session-token"),
            refresher: refresher)
        return ChatStreamingService(
            baseURL: URL(string: "https://h/api")!, http: http, clock: clock, tokens: tokens, gate: nil,
            model: "sybil-scripted", stallTimeout: .seconds(30),
            resumePolicy: ReconnectPolicy(initialDelay: resumeDelay, maximumDelay: .seconds(4), jitter: 0))
    }

    private func reply(_ service: ChatStreamingService<ManualClock>) async -> (String, (any Error)?) {
        var text = ""
        do {
            for try await delta in service.reply(to: [ChatMessage(role: "user", content: "hi")]) { text += delta }
            return (text, nil)
        } catch {
            return (text, error)
        }
    }

    /// Event `n` of stream `s1`: a chunk with `content`, or `[DONE]`.
    private func event(_ n: Int, _ content: String?) -> String {
        let data =
            content.map { #"{"id":"s1","choices":[{"index":0,"delta":{"content":"\#($0)"},"finish_reason":null}]}"# }
            ?? "[DONE]"
        return "id: \(n)\ndata: \(data)\n\n"
    }

    private var resumeURL: String { "https://h/api/v1/chat/completions/s1/events" }

    @Test func anInterruptedStreamResumesFromTheLastEventWithoutResendingThePrompt() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal") + event(2, "lo "))
        // The server replays from after event 2; a repeat of event 2 is not shown twice.
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo ") + event(3, "Welt") + event(4, nil))
        let (text, error) = await reply(service(http))
        #expect(error == nil)
        #expect(text == "Hallo Welt")
        let requests = http.requests
        #expect(requests.map(\.method) == ["POST", "GET"])
        #expect(requests.last?.url.absoluteString == resumeURL)
        #expect(requests.last?.headers["Last-Event-ID"] == "2")
        #expect(requests.last?.headers["Authorization"] == "Bearer t0")
        #expect(requests.last?.body == nil, "the prompt is not sent again")
    }

    @Test func aConnectionLostMidReplyResumesToo() async {
        let http = StubHTTPClient()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        feed.yield(Array(event(1, "Hal").utf8))
        feed.finish(throwing: URLError(.networkConnectionLost))
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo") + event(3, nil))
        let (text, error) = await reply(service(http))
        #expect(text == "Hallo" && error == nil)
        #expect(http.requests.last?.headers["Last-Event-ID"] == "1")
    }

    @Test func aStallAfterTheStreamStartedResumes() async {
        let http = StubHTTPClient()
        let feed = http.body(http.respond(status: 200, headers: sseHeaders))
        feed.yield(Array(event(1, "Hal").utf8))
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo") + event(3, nil))
        let service = service(http)
        let (text, error) = await driving(clock, step: .seconds(30)) { await reply(service) }
        #expect(text == "Hallo" && error == nil)
        #expect(http.requests.map(\.method) == ["POST", "GET"])
    }

    @Test("a resume answered 400, 404 or 410 fails as interrupted keeping the text", arguments: [400, 404, 410])
    func aStreamTheServerNoLongerHasFailsAsInterrupted(status: Int) async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        http.respond(status: status, body: #"{"error":{"message":"gone","code":"stream_expired"}}"#)
        let (text, error) = await reply(service(http))
        #expect(text == "Hal")
        #expect(error as? ChatStreamError == .interrupted)
        #expect(http.requests.count == 2)
    }

    @Test func aResumeThatBringsNothingNewAndEndsStopsAtOnce() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        http.respond(status: 200, headers: sseHeaders, body: ": keep-alive\n\n")
        let (text, error) = await reply(service(http))
        #expect(text == "Hal")
        #expect(error as? ChatStreamError == .interrupted)
        #expect(http.requests.count == 2)
    }

    @Test func threeFailedResumesInARowEndTheReplyWithTheLastError() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        for _ in 0..<3 { http.respond(status: 502, body: "") }
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo") + event(3, nil))  // never requested
        let (text, error) = await reply(service(http))
        #expect(text == "Hal")
        #expect(error as? ChatStreamError == .serverError(status: 502, body: nil, retryAfter: nil))
        #expect(http.requests.count == 4)
    }

    @Test func aResumeThatMakesProgressResetsTheCount() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "a"))
        http.respond(status: 502, body: "")
        http.respond(status: 502, body: "")
        http.respond(status: 200, headers: sseHeaders, body: event(2, "b"))  // progress, then a drop
        http.respond(status: 502, body: "")
        http.respond(status: 502, body: "")
        http.respond(status: 200, headers: sseHeaders, body: event(3, "c") + event(4, nil))
        let (text, error) = await reply(service(http))
        #expect(text == "abc" && error == nil)
        #expect(http.requests.map { $0.headers["Last-Event-ID"] } == [nil, "1", "1", "1", "2", "2", "2"])
    }

    @Test func resumesWaitTheBackoffOnTheInjectedClock() async throws {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "a"))
        http.respond(status: 502, body: "")
        http.respond(status: 200, headers: sseHeaders, body: event(2, "b") + event(3, nil))
        let recording = RecordingClock(clock)
        let tokens = TokenProvider(current: .init(store: InMemorySecretStore(["t": "t0"]), account: "t"))
        let service = ChatStreamingService(
            baseURL: URL(string: "https://h/api")!, http: http, clock: recording, tokens: tokens, gate: nil,
            model: "m", resumePolicy: ReconnectPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(4), jitter: 0))
        let consumer = Task {
            var text = ""
            for try await delta in service.reply(to: [ChatMessage(role: "user", content: "hi")]) { text += delta }
            return text
        }
        let start = clock.now
        // The service's own sleeps: the first resume waits 1 s, the second 2 s.
        #expect(await recording.slept.wait { recording.deadlines.contains(start.advanced(by: .seconds(1))) })
        clock.advance(by: .milliseconds(999))
        #expect(http.requests.count == 1, "no resume before the first delay")
        clock.advance(by: .milliseconds(1))
        #expect(await recording.slept.wait { recording.deadlines.contains(start.advanced(by: .seconds(3))) })
        #expect(http.requests.count == 2)
        clock.advance(by: .milliseconds(1_999))
        #expect(http.requests.count == 2, "the second wait doubles")
        clock.advance(by: .milliseconds(1))
        #expect(try await consumer.value == "ab")
        #expect(http.requests.count == 3)
    }

    @Test func a401OnAResumeRefreshesTheTokenOnceWithTheSharedBudget() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        http.respond(status: 401, body: "")
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo") + event(3, nil))
        let (text, error) = await reply(service(http, refresher: CountingRefresher()))
        #expect(text == "Hallo" && error == nil)
        #expect(http.requests.map { $0.headers["Authorization"] } == ["Bearer t0", "Bearer t0", "Bearer fresh"])
        let spent = StubHTTPClient()
        spent.respond(status: 503, body: "")  // spends the one chance
        spent.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        spent.respond(status: 401, body: "")
        let (partial, failure) = await reply(service(spent, refresher: CountingRefresher()))
        #expect(partial == "Hal")
        #expect(failure as? ChatStreamError == .unauthorized(nil))
        #expect(spent.requests.count == 3, "no refresh left: the reply fails at once")
    }

    @Test func resumingDoesNotSpendTheRetryBudget() async {
        let http = StubHTTPClient()
        http.respond(status: 503, body: "")  // spends the one retry
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hal"))
        http.respond(status: 200, headers: sseHeaders, body: event(2, "lo") + event(3, nil))
        let (text, error) = await reply(service(http))
        #expect(text == "Hallo" && error == nil)
        #expect(http.requests.map(\.method) == ["POST", "POST", "GET"])
    }

    @Test func aStallBeforeTheFirstEventSpendsTheRetryBudgetLikeACold5xx() async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders)  // silent
        http.respond(status: 200, headers: sseHeaders, body: event(1, "Hallo") + event(2, nil))
        let service = service(http)
        let (text, error) = await driving(clock, step: .seconds(30)) { await reply(service) }
        #expect(text == "Hallo" && error == nil)
        #expect(http.requests.map(\.method) == ["POST", "POST"])
    }

    @Test("a timeout shares the one retry with 5xx and 401: never a third send", arguments: [503, 401, 0])
    func aTimeoutSharesTheBudget(second: Int) async {
        let http = StubHTTPClient()
        http.respond(status: 200, headers: sseHeaders)  // silent: times out
        if second == 0 {
            http.respond(status: 200, headers: sseHeaders)  // silent again
        } else {
            http.respond(status: second, body: "")
        }
        http.respond(status: 200, headers: sseHeaders, body: event(1, "x") + event(2, nil))  // never requested
        let service = service(http, refresher: CountingRefresher())
        let (_, error) = await driving(clock, step: .seconds(30)) { await reply(service) }
        #expect(http.requests.count == 2)
        #expect(error is ChatStreamError)
    }

    @Test func aRequestWithNoResponseHeadTimesOutOnTheInjectedClockAndRetriesOnce() async {
        let http = HangingFirstClient(then: StubHTTPClient())
        http.next.respond(status: 200, headers: sseHeaders, body: event(1, "Hallo") + event(2, nil))
        let consumer = Task { await reply(service(http)) }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .milliseconds(59_999))
        #expect(http.next.requests.isEmpty, "not before the request's timeout")
        clock.advance(by: .milliseconds(1))
        let (text, error) = await consumer.value
        #expect(text == "Hallo" && error == nil)
        #expect(http.next.requests.count == 1)
    }
}

/// Runs `work` while moving `clock` on by `step` whenever something sleeps on it, so every
/// silence the work waits out passes; returns what the work returned.
private func driving<T: Sendable>(
    _ clock: ManualClock, step: Duration, _ work: @escaping @Sendable () async -> T
) async -> T {
    let task = Task { await work() }
    let driver = Task { await clock.drive(step: step) }
    let value = await task.value
    driver.cancel()
    return value
}

/// A refresher that counts its calls.
private final class CountingRefresher: TokenRefresher {
    let calls = Locked(0)
    func refreshToken(expired: String?) async throws -> String {
        calls.withLock { $0 += 1 }
        return "fresh"
    }
}

/// A client whose first request never gets a response head (until cancelled); later ones go to
/// `next`.
private final class HangingFirstClient: HTTPClient {
    let next: StubHTTPClient
    private let hung = Locked(false)

    init(then next: StubHTTPClient) { self.next = next }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let first = hung.withLock { hung in
            defer { hung = true }
            return !hung
        }
        guard first else { return try await next.send(request) }
        let (stream, _) = AsyncStream<Void>.makeStream()
        for await _ in stream {}  // ends only when the task is cancelled
        throw CancellationError()
    }
}

/// A manual clock that records the deadline of every sleep, so a test can tell which wait the
/// code under test has reached.
private final class RecordingClock: Clock, Sendable {
    typealias Instant = ManualClock.Instant
    let base: ManualClock
    private let recorded = Locked<[Instant]>([])
    /// Notified on every sleep recorded.
    let slept = ChangeSignal()

    init(_ base: ManualClock) { self.base = base }

    var deadlines: [Instant] { recorded.withLock { $0 } }
    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        recorded.withLock { $0.append(deadline) }
        slept.notify()
        try await base.sleep(until: deadline, tolerance: tolerance)
    }
}
