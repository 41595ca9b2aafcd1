import SybilClient
import SybilCore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// A desktop that fails the page before the window must not be asked again on every scroll
/// report 0.25 s apart for as long as the reader stays near the top: after a failure the next
/// load waits 1 s, doubling up to 30 s, until a load succeeds or a newest window arrives.
@MainActor
@Suite("WorkspaceChatScreenModelOlderPageBackoffTests", .timeLimit(.minutes(2)))
struct WorkspaceChatScreenModelOlderPageBackoffTests {
    typealias Screen = WorkspaceChatScreenModel<ManualClock>
    typealias Trigger = OlderPageTrigger<ManualClock.Instant>

    /// Whether the desktop fails older pages, and the pages it gave so far.
    private final class Desktop: Sendable {
        private struct State {
            var failing = true
            var given = 0
        }

        private let state = Locked(State())

        var failing: Bool {
            get { state.withLock { $0.failing } }
            set { state.withLock { $0.failing = newValue } }
        }

        /// A page of one new row, or a failure.
        func page(before cursor: String) throws -> WorkspaceChatPage {
            let given = try state.withLock { state throws -> Int in
                if state.failing { throw ScriptedWorkspaceChatRPC.TestError(description: "desktop unreachable") }
                state.given += 1
                return state.given
            }
            return Envelopes.page(["older-\(given)"], hasOlder: true, cursor: "cur-\(given)")
        }
    }

    /// A revealed screen of a host that polls only once an hour (so no newest window arrives
    /// unless the test asks for one) and answers older pages from `desktop`.
    private func openChat(_ desktop: Desktop, clock: ManualClock) async -> (
        WorkspaceChatHost, Screen, OlderPageAnsweringRPC
    ) {
        let rpc = OlderPageAnsweringRPC(envelope: Envelopes.envelope(["a", "b"], hasOlder: true, cursor: "cur-a")) {
            try desktop.page(before: $0)
        }
        let policy = RefreshPolicy(idleInterval: .seconds(3_600), busyInterval: .seconds(3_600))
        let host = WorkspaceChatHost(key: chatA, rpc: rpc, clock: clock, random: FixedRandomSource(), policy: policy)
        host.activate()
        await eventually("the first load applies") { host.appliedLoads == 1 }
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        return (host, screen, rpc)
    }

    /// Reports the top of the list; returns whether an older page load started (and waits
    /// until it ended).
    private func reportTop(_ screen: Screen) async -> Bool {
        screen.updateViewport(tallViewport(offset: 0))
        guard screen.isLoadingOlderPage else { return false }
        await eventually("the older page load ended") { !screen.isLoadingOlderPage }
        return true
    }

    /// After a failed load: one tick before `delay` a scroll report asks nothing, at `delay`
    /// it asks (and the desktop answers as it is set to).
    private func expectWait(
        _ delay: Duration, _ screen: Screen, clock: ManualClock, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        clock.advance(by: delay - oneTick)
        #expect(await !reportTop(screen), "asked again before \(delay)", sourceLocation: sourceLocation)
        clock.advance(by: oneTick)
        #expect(await reportTop(screen), "not asked again at \(delay)", sourceLocation: sourceLocation)
    }

    @Test func failedLoadsAreAskedAgainAfterOneSecondDoublingToThirty() async {
        let desktop = Desktop()
        let clock = ManualClock()
        let (host, screen, rpc) = await openChat(desktop, clock: clock)
        #expect(await reportTop(screen))
        #expect(host.lastLoadError == "desktop unreachable")
        for seconds in [1, 2, 4, 8, 16, 30, 30] {
            await expectWait(.seconds(seconds), screen, clock: clock)
        }
        #expect(rpc.pageCursors == Array(repeating: "cur-a", count: 8))
        #expect(host.timeline.rows.map(\.id) == ["row:a", "row:b"], "the rows stay as they were")
        screen.close()
        host.park()
    }

    @Test func aPageThatLoadsEndsTheWaitAndTheQuarterSecondRuleHoldsAgain() async {
        let desktop = Desktop()
        let clock = ManualClock()
        let (host, screen, rpc) = await openChat(desktop, clock: clock)
        #expect(await reportTop(screen))
        await expectWait(.seconds(1), screen, clock: clock)
        desktop.failing = false
        await expectWait(.seconds(2), screen, clock: clock)
        #expect(host.timeline.rows.first?.id == "row:older-1")
        // Loads that succeed: every 0.25 s.
        await expectWait(Trigger.minimumInterval, screen, clock: clock)
        #expect(host.timeline.rows.first?.id == "row:older-2")
        // The next failure waits 1 s, not 4 s.
        desktop.failing = true
        await expectWait(Trigger.minimumInterval, screen, clock: clock)
        await expectWait(.seconds(1), screen, clock: clock)
        #expect(rpc.pageCursors == ["cur-a", "cur-a", "cur-a", "cur-1", "cur-2", "cur-2"])
        screen.close()
        host.park()
    }

    @Test func aFreshNewestWindowEndsTheWait() async {
        let desktop = Desktop()
        let clock = ManualClock()
        let (host, screen, rpc) = await openChat(desktop, clock: clock)
        #expect(await reportTop(screen))
        await expectWait(.seconds(1), screen, clock: clock)
        await expectWait(.seconds(2), screen, clock: clock)
        // The third failure would wait 4 s; a refresh brings a newest window first.
        clock.advance(by: .seconds(1))
        #expect(await !reportTop(screen))
        host.handle(.explicitRefresh)
        await eventually("the refresh applies") { host.appliedLoads == 2 }
        #expect(await reportTop(screen), "asked at once after the newest window")
        // And the wait starts over at 1 s.
        await expectWait(.seconds(1), screen, clock: clock)
        #expect(rpc.pageCursors.count == 5)
        screen.close()
        host.park()
    }
}
