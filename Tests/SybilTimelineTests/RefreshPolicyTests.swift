import SybilCore
import SybilTimeline
import Testing

@Suite("Refresh policy", .timeLimit(.minutes(2)))
struct RefreshPolicyTests {
    struct Fixed: RandomSource {
        let value: UInt64
        func nextUInt64() -> UInt64 { value }
    }

    @Test func pollsEvery60sIdleAnd10sBusyWithUpTo30PercentJitter() {
        let policy = RefreshPolicy()
        #expect(policy.pollDelay(busy: false, random: Fixed(value: 0)) == .seconds(60), "jitter 0 %")
        #expect(policy.pollDelay(busy: true, random: Fixed(value: 0)) == .seconds(10))
        let idleMax = policy.pollDelay(busy: false, random: Fixed(value: .max))
        #expect(idleMax < .seconds(78), "jitter stays under +30 %")
        #expect(idleMax > .milliseconds(77_999))
        let busyMax = policy.pollDelay(busy: true, random: Fixed(value: .max))
        #expect(busyMax < .seconds(13) && busyMax > .milliseconds(12_999))
        #expect(policy.pollDelay(busy: false, random: Fixed(value: 1 << 63)) == .seconds(69), "half the jitter")
    }

    @Test func seededJitterStaysInRange() {
        let policy = RefreshPolicy()
        let random = SeededRandomSource(seed: 3)
        for _ in 0..<1_000 {
            let delay = policy.pollDelay(busy: true, random: random)
            #expect(delay >= .seconds(10) && delay < .seconds(13))
        }
    }

    @Test(
        "every trigger marks the window stale",
        arguments: [
            StalenessTrigger.runEnded(.finished), .runEnded(.failed), .runEnded(.cancelled), .runEnded(.stopped),
            .desktopRestored, .returnedToForeground, .desktopChanged, .explicitRefresh, .chatReselected,
            .sessionUpdated(updatedAt: 10),
        ])
    func triggerMarksStale(trigger: StalenessTrigger) {
        var state = RefreshState()
        state.loaded()
        #expect(!state.isStale)
        do {
            let result = state.handle(trigger)
            #expect(result)
        }
        #expect(state.isStale)
    }

    @Test func sessionUpdatedAtCountsOnlyWhenNewer() {
        var state = RefreshState()
        state.handle(.sessionUpdated(updatedAt: 1_000))
        state.loaded()
        do {
            let result = state.handle(.sessionUpdated(updatedAt: 999))
            #expect(!result)
        }
        do {
            let result = state.handle(.sessionUpdated(updatedAt: 1_000))
            #expect(!result)
        }
        #expect(!state.isStale)
        do {
            let result = state.handle(.sessionUpdated(updatedAt: 1_001))
            #expect(result)
        }
        #expect(state.isStale)
    }

    @Test func aFailedLoadAsksForAFreshLoad() {
        var state = RefreshState()
        state.loaded()
        state.loadFailed()
        #expect(state.needsFreshLoad && state.isStale)
        state.loaded()
        #expect(!state.needsFreshLoad && !state.isStale)
    }
}
