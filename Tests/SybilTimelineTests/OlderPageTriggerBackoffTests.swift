import SybilTesting
import SybilTimeline
import Testing

/// A failed older-page load is not asked again on every scroll report 0.25 s apart: the next
/// start waits 1 s, doubling with each failure in a row up to 30 s.
@Suite("Older page trigger after failed loads", .timeLimit(.minutes(2)))
struct OlderPageTriggerBackoffTests {
    typealias Trigger = OlderPageTrigger<ManualClock.Instant>

    /// The smallest step of the manual clock.
    private static let tick = Duration(secondsComponent: 0, attosecondsComponent: 1)

    private func start(_ trigger: inout Trigger, at now: ManualClock.Instant) -> Bool {
        trigger.scrolled(distanceFromTop: 0, hasOlderEntries: true, at: now)
    }

    /// Fails a load at `now`, then checks that nothing starts one tick before `delay` has passed
    /// and that a load starts at `delay`; returns when it started.
    private func failAndWait(
        _ trigger: inout Trigger, at now: ManualClock.Instant, expecting delay: Duration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ManualClock.Instant {
        trigger.failed(at: now)
        let early = start(&trigger, at: now.advanced(by: delay - Self.tick))
        #expect(!early, "started before \(delay)", sourceLocation: sourceLocation)
        let due = now.advanced(by: delay)
        let started = start(&trigger, at: due)
        #expect(started, "not started at \(delay)", sourceLocation: sourceLocation)
        return due
    }

    @Test func retryDelaysDoubleFromOneSecondUpToThirty() {
        let delays = [1, 2, 3, 4, 5, 6, 7, 100, Int.max].map { Trigger.retryDelay(afterFailures: $0) }
        #expect(
            delays == [
                .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30), .seconds(30),
                .seconds(30), .seconds(30),
            ])
    }

    @Test func eachFailureInARowWaitsTwiceAsLongUpToThirtySeconds() {
        var trigger = Trigger()
        var now = ManualClock.Instant(offset: .zero)
        #expect(start(&trigger, at: now))
        for seconds in [1, 2, 4, 8, 16, 30, 30] {
            now = failAndWait(&trigger, at: now, expecting: .seconds(seconds))
        }
    }

    @Test func theWaitCountsFromTheFailureNotTheStart() {
        var trigger = Trigger()
        let started = ManualClock.Instant(offset: .zero)
        #expect(start(&trigger, at: started))
        // The desktop took 5 s to fail.
        _ = failAndWait(&trigger, at: started.advanced(by: .seconds(5)), expecting: .seconds(1))
    }

    @Test func aLoadThatDoesNotFailEndsTheWaitAndKeepsTheQuarterSecond() {
        var trigger = Trigger()
        var now = ManualClock.Instant(offset: .zero)
        #expect(start(&trigger, at: now))
        now = failAndWait(&trigger, at: now, expecting: .seconds(1))
        now = failAndWait(&trigger, at: now, expecting: .seconds(2))
        trigger.finished()
        #expect(!start(&trigger, at: now.advanced(by: Trigger.minimumInterval - Self.tick)))
        now = now.advanced(by: Trigger.minimumInterval)
        #expect(start(&trigger, at: now))
        // The next failure waits 1 s again, not 4 s.
        _ = failAndWait(&trigger, at: now, expecting: .seconds(1))
    }

    @Test func aFreshNewestWindowEndsTheWait() {
        var trigger = Trigger()
        var now = ManualClock.Instant(offset: .zero)
        #expect(start(&trigger, at: now))
        now = failAndWait(&trigger, at: now, expecting: .seconds(1))
        now = failAndWait(&trigger, at: now, expecting: .seconds(2))
        trigger.failed(at: now)
        #expect(!start(&trigger, at: now.advanced(by: .seconds(3))), "4 s to wait")
        trigger.resetFailureBackoff()
        #expect(!start(&trigger, at: now.advanced(by: Trigger.minimumInterval - Self.tick)), "0.25 s still holds")
        now = now.advanced(by: Trigger.minimumInterval)
        #expect(start(&trigger, at: now))
        _ = failAndWait(&trigger, at: now, expecting: .seconds(1))
    }
}
