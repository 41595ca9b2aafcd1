import Testing

@testable import SybilHTTP

/// A request's head has a deadline; its body has none as long as it keeps making progress:
/// an idle timeout between reads, and a minimum average rate once a grace period has passed.
/// Each rule at its boundary, on the machine's own time.
@Suite("HTTP connection state machine: body timeouts", .timeLimit(.minutes(2)))
struct HTTPConnectionStateMachineBodyTimeoutTests {
    private static let head = "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: \(4 << 20)\r\n\r\n"

    private static func harness() -> ConnectionMachineHarness {
        ConnectionMachineHarness(bodyLimit: 8 << 20)
    }

    @Test func theLimitsAreNamed() {
        let limits = Self.harness().machine.limits
        #expect(limits.bodyIdleTimeout == .seconds(30))
        #expect(limits.minimumBodyRate == 1_024)
        #expect(limits.bodyRateGrace == .seconds(10))
    }

    @Test func aSlowBodyThatKeepsArrivingIsNeverRefused() {
        var harness = Self.harness()
        _ = harness.read(Self.head)
        // 4 MiB at 32 KiB/s, one piece a second: past the 10 s head deadline many times over.
        var sent = 0
        for second in 1...128 {
            #expect(harness.tick(at: .seconds(second)) == [], "at \(second) s")
            let actions = harness.read([UInt8](repeating: 0x61, count: 32 << 10))
            sent += 32 << 10
            if sent < 4 << 20 { #expect(actions == [], "at \(second) s") }
        }
        #expect(harness.machine.queue.isEmpty && harness.machine.partial == nil && harness.machine.wantsInput)
    }

    @Test func aBodyIdleForItsTimeoutIsRefusedWith408() {
        var harness = Self.harness()
        _ = harness.read(Self.head)
        harness.now = .seconds(20)
        _ = harness.read([UInt8](repeating: 0x61, count: 64 << 10))
        let idle = harness.machine.limits.bodyIdleTimeout
        #expect(harness.machine.nextDeadline == .seconds(20) + idle)
        #expect(harness.tick(at: .seconds(20) + idle - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(20) + idle) == ["refuse 408"])
    }

    @Test func afterTheGraceABodyBelowTheMinimumRateIsRefusedWith408() {
        var harness = Self.harness()
        harness.now = .seconds(1)
        _ = harness.read(Self.head)
        let limits = harness.machine.limits
        // Less than the grace's worth: the grace itself is the deadline.
        _ = harness.read([UInt8](repeating: 0x61, count: 5 * limits.minimumBodyRate))
        #expect(harness.machine.nextDeadline == .seconds(1) + limits.bodyRateGrace)
        #expect(harness.tick(at: .seconds(1) + limits.bodyRateGrace - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(1) + limits.bodyRateGrace) == ["refuse 408"])
    }

    @Test func eachByteBuysTimeAtTheMinimumRate() {
        var harness = Self.harness()
        harness.now = .seconds(1)
        _ = harness.read(Self.head)
        let limits = harness.machine.limits
        // 25 s worth of bytes by 9 s: the rate deadline is 1 s + 25 s, before the idle one.
        harness.now = .seconds(9)
        _ = harness.read([UInt8](repeating: 0x61, count: 25 * limits.minimumBodyRate))
        #expect(harness.machine.nextDeadline == .seconds(26))
        #expect(harness.tick(at: .seconds(26) - .nanoseconds(1)) == [])
        // One more byte buys 1/rate of a second.
        _ = harness.read([0x61])
        #expect(harness.machine.nextDeadline == .seconds(26) + .seconds(1) / limits.minimumBodyRate)
        #expect(harness.tick(at: .seconds(26) + .seconds(1) / limits.minimumBodyRate) == ["refuse 408"])
    }

    @Test func theHeadKeepsItsDeadline() {
        var harness = Self.harness()
        harness.now = .seconds(5)
        _ = harness.read("POST /up HTTP/1.1\r\nHost: x\r\n")
        #expect(harness.machine.nextDeadline == .seconds(15))
        #expect(harness.tick(at: .seconds(15)) == ["refuse 408"])
    }

    @Test func timeSpentAnsweringTheRequestAheadIsNotCountedAgainstABody() {
        var harness = Self.harness()
        _ = harness.read("GET /a HTTP/1.1\r\nHost: x\r\n\r\n" + Self.head)
        // The handler takes a minute; the body was not read meanwhile.
        harness.now = .seconds(60)
        _ = harness.respond()
        _ = harness.flushed()
        let limits = harness.machine.limits
        #expect(harness.machine.nextDeadline == .seconds(60) + limits.bodyRateGrace)
    }
}
