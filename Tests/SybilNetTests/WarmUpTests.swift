import Foundation
import SybilHTTP
import SybilNet
import SybilTesting
import Testing

@MainActor
@Suite("Warm-up and send gate", .timeLimit(.minutes(2)))
struct WarmUpTests {
    let base = URL(string: "https://h/api")!

    @Test func concurrentTriggersShareOneUnauthenticatedHealthCheck() async {
        let http = StubHTTPClient()
        let feed = http.body(http.respond(status: 200))
        let manager = WarmUpManager(http: http, baseURL: base, clock: ManualClock())
        for trigger in WarmUpManager<ManualClock>.Trigger.allCases { manager.trigger(trigger) }
        manager.trigger(.enteredChat)
        #expect(manager.state == .warming)
        #expect(await http.changed.wait { !http.requests.isEmpty })
        feed.finish()
        #expect(await ConditionWait.until { manager.state != .warming })
        #expect(manager.state == .warm)
        #expect(manager.healthChecks == 1)
        #expect(http.requests.count == 1)
        #expect(http.requests.first?.url.absoluteString == "https://h/api/healthz")
        #expect(http.requests.first?.headers["Authorization"] == nil, "the health check carries no token")
    }

    @Test func warmFor60SecondsAfterSuccess() async {
        let http = StubHTTPClient()
        http.respond(status: 200, body: "{}")
        let clock = ManualClock()
        let manager = WarmUpManager(http: http, baseURL: base, clock: clock)
        #expect(await manager.waitUntilWarm(atMost: .seconds(5)))
        clock.advance(by: .milliseconds(59_999))
        #expect(manager.isWarm)
        manager.trigger(.switchedTab)
        #expect(manager.healthChecks == 1, "no check while warm")
        clock.advance(by: .milliseconds(1))
        #expect(!manager.isWarm, "cold again at 60 s")
        http.respond(status: 200, body: "{}")
        manager.trigger(.returnedToForeground)
        #expect(manager.healthChecks == 2)
    }

    @Test func theHealthCheckTimesOutAfter10Seconds() async {
        let clock = ManualClock()
        let hanging = HangingHTTPClient()
        let manager = WarmUpManager(http: hanging, baseURL: base, clock: clock)
        manager.trigger(.enteredChat)
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .milliseconds(9_999))
        #expect(clock.sleeperCount == 1, "the timeout still waits 1 ms before 10 s")
        #expect(manager.state == .warming)
        clock.advance(by: .milliseconds(1))
        #expect(await ConditionWait.until { manager.state != .warming })
        #expect(manager.state == .failed("health check timed out after 10 s"))
    }

    @Test func theGateWaitsAtMostOneAndAHalfSecondsThenOpens() async {
        let clock = ManualClock()
        let manager = WarmUpManager(http: HangingHTTPClient(), baseURL: base, clock: clock)
        let gate = WarmUpSendGate(manager: manager)
        let opened = Task { @MainActor in
            await gate.open()
            return true
        }
        #expect(await clock.waitForSleepers(count: 2), "the health check's timeout and the gate's wait")
        clock.advance(by: .milliseconds(1_499))
        #expect(clock.sleeperCount == 2, "neither wait is over 1 ms before 1.5 s")
        #expect(manager.state == .warming)
        clock.advance(by: .milliseconds(1))
        #expect(await opened.value, "opened at 1.5 s although the backend is still cold")
        #expect(!manager.isWarm)
    }

    @Test func aWarmBackendOpensTheGateAtOnce() async {
        let http = StubHTTPClient()
        http.respond(status: 200, body: "")
        let clock = ManualClock()
        let manager = WarmUpManager(http: http, baseURL: base, clock: clock)
        _ = await manager.waitUntilWarm(atMost: .seconds(1))
        await WarmUpSendGate(manager: manager).open()
        #expect(clock.sleeperCount == 0)
    }
}

/// An HTTP client that never answers until cancelled.
final class HangingHTTPClient: HTTPClient {
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let (never, continuation) = AsyncStream<Never>.makeStream()
        for await _ in never {}
        continuation.finish()
        throw CancellationError()
    }
}
