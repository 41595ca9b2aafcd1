import SybilCore
import SybilNet
import Testing

@Suite("Reconnect policy", .timeLimit(.minutes(2)))
struct ReconnectPolicyTests {
    struct Fixed: RandomSource {
        var value: UInt64
        func nextUInt64() -> UInt64 { value }
    }

    @Test func exponentialBackoffCappedAtTheMaximum() {
        var policy = ReconnectPolicy()
        let delays = (0..<8).map { _ in policy.connectionDropped(uptime: nil, random: Fixed(value: 0)).delay }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60].map { Duration.seconds($0) })
        #expect(policy.attempts == 8)
    }

    @Test func jitterAddsUpTo20Percent() {
        var none = ReconnectPolicy()
        #expect(none.connectionDropped(uptime: nil, random: Fixed(value: 0)).delay == .seconds(1))
        var most = ReconnectPolicy()
        let delay = most.connectionDropped(uptime: nil, random: Fixed(value: .max)).delay
        #expect(delay > .milliseconds(1_199) && delay <= .milliseconds(1_200), "at most +20 %")
        var seeded = ReconnectPolicy()
        let random = SeededRandomSource(seed: 9)
        for attempt in 0..<6 {
            let base = Duration.seconds(1 << attempt)
            let delay = seeded.connectionDropped(uptime: .seconds(1), random: random).delay
            #expect(delay >= base && delay <= base * 1.2, "attempt \(attempt)")
        }
    }

    @Test func aStableConnectionResetsTheBackoff() {
        var policy = ReconnectPolicy()
        _ = policy.connectionDropped(uptime: nil, random: Fixed(value: 0))
        _ = policy.connectionDropped(uptime: nil, random: Fixed(value: 0))
        let unstable = policy.connectionDropped(uptime: .milliseconds(29_999), random: Fixed(value: 0))
        #expect(unstable.delay == .seconds(4), "29.999 s is not yet stable")
        let stable = policy.connectionDropped(uptime: .seconds(30), random: Fixed(value: 0))
        #expect(stable.delay == .seconds(1), "30 s up: back to the first delay")
        #expect(stable.replayFromCursor)
    }
}
