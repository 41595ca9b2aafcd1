import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// A desktop that says a chat has older entries but answers the page before the oldest cursor
/// with nothing new must not be asked again and again: every scroll report near the top would
/// otherwise ask it once more, every 0.25 s, for as long as the reader stays there.
@MainActor
@Suite("WorkspaceChatScreenModelOlderPageTests", .timeLimit(.minutes(2)))
struct WorkspaceChatScreenModelOlderPageTests {
    typealias Screen = WorkspaceChatScreenModel<ManualClock>

    /// Scroll reports this many quarter seconds apart at the top of the list: without a stop,
    /// each would ask for a page.
    private static let reports = 40

    /// A host over `rpc` that has applied its first newest window.
    private func loadedHost(_ rpc: OlderPageAnsweringRPC, clock: ManualClock) async -> WorkspaceChatHost {
        let host = WorkspaceChatHost(key: chatA, rpc: rpc, clock: clock, random: FixedRandomSource())
        host.activate()
        await eventually("the first load applies") { host.appliedLoads == 1 }
        return host
    }

    /// Reports the top of the list `reports` times, 0.25 s apart, each time waiting until a
    /// load it started has ended.
    private func sitAtTheTop(_ screen: Screen, clock: ManualClock, reports: Int = reports) async {
        for _ in 0..<reports {
            screen.updateViewport(tallViewport(offset: 0))
            await eventually("the older page load ended") { !screen.isLoadingOlderPage }
            clock.advance(by: OlderPageTrigger<ManualClock.Instant>.minimumInterval)
        }
    }

    private static let window = Envelopes.envelope(["a", "b"], hasOlder: true, cursor: "cur-a")

    @Test(arguments: [
        ("an empty page", Envelopes.page([], hasOlder: true, cursor: "cur-a")),
        ("only rows already shown", Envelopes.page(["a"], hasOlder: true, cursor: "cur-a")),
        ("an empty page without a cursor", Envelopes.page([], hasOlder: true, cursor: nil)),
    ])
    func aPageWithNothingNewBeforeAnUnmovedCursorEndsOlderLoadingUntilTheNextLoad(
        _ answer: String, _ page: WorkspaceChatPage
    ) async {
        let rpc = OlderPageAnsweringRPC(envelope: Self.window) { _ in page }
        let clock = ManualClock()
        let host = await loadedHost(rpc, clock: clock)
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        await sitAtTheTop(screen, clock: clock)
        #expect(rpc.pageCursors == ["cur-a"], "\(answer): the same page was asked \(rpc.pageCursors.count) times")
        #expect(!host.timeline.hasOlderEntries, "older loading ended for this window")
        #expect(host.lastLoadError?.contains("older entries") == true, "the reader is told why")
        #expect(screen.displayRows.rows.map(\.id) == ["row:a", "row:b"])
        // The next newest-window load lifts the stop: the page is asked once more, and only once.
        host.handle(.explicitRefresh)
        await eventually("the refresh applies") { host.appliedLoads == 2 }
        #expect(host.timeline.hasOlderEntries)
        #expect(host.lastLoadError == nil)
        await sitAtTheTop(screen, clock: clock)
        #expect(rpc.pageCursors == ["cur-a", "cur-a"])
        screen.close()
        host.park()
    }

    @Test func emptyPagesWithAMovingCursorAreFollowedAtMostThreeInARow() async {
        // A desktop that skips hidden rows may answer with no rows and an older cursor: that is
        // followed, but not forever.
        let rpc = OlderPageAnsweringRPC(envelope: Self.window) { cursor in
            Envelopes.page([], hasOlder: true, cursor: cursor + "'")
        }
        let clock = ManualClock()
        let host = await loadedHost(rpc, clock: clock)
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        await sitAtTheTop(screen, clock: clock)
        #expect(rpc.pageCursors == ["cur-a", "cur-a'", "cur-a''", "cur-a'''"])
        #expect(!host.timeline.hasOlderEntries)
        #expect(host.lastLoadError?.contains("older entries") == true)
        screen.close()
        host.park()
    }

    @Test func underTheFirstDisplayCoverAPageWithNothingNewIsAskedOnce() async {
        let rpc = OlderPageAnsweringRPC(envelope: Envelopes.envelope(["a"], hasOlder: true, cursor: "c1")) { _ in
            Envelopes.page([], hasOlder: true, cursor: "c1")
        }
        let clock = ManualClock()
        let host = WorkspaceChatHost(key: chatA, rpc: rpc, clock: clock, random: FixedRandomSource())
        let screen = Screen(host: host, clock: clock)
        host.activate()
        await eventually("the first load applies") { host.appliedLoads == 1 }
        let short = WorkspaceChatViewport(contentOffset: 0, contentHeight: 300, visibleHeight: 800)
        screen.updateViewport(short)
        await runSettlePasses(screen, clock: clock)
        await eventually("the page beneath the cover loaded") { !screen.isLoadingOlderPage }
        #expect(rpc.pageCursors == ["c1"])
        screen.updateViewport(short)
        await runSettlePasses(screen, clock: clock)
        #expect(!screen.isCovered, "nothing more to load beneath the cover: it lifts")
        #expect(rpc.pageCursors == ["c1"], "the cover asked for the same page twice")
        await sitAtTheTop(screen, clock: clock)
        #expect(rpc.pageCursors == ["c1"])
        screen.close()
        host.park()
    }

    @Test func aStopAddsNoRowsSoTheReadersPlaceIsNotHeld() async {
        // The reader's row was remembered when the page arrived; a page that only stops older
        // loading moved nothing, so live rows are not held back for a restoration.
        let rpc = OlderPageAnsweringRPC(envelope: Self.window) { _ in
            Envelopes.page([], hasOlder: true, cursor: "cur-a")
        }
        let clock = ManualClock()
        let host = await loadedHost(rpc, clock: clock)
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        screen.updateViewport(tallViewport(offset: 0, rows: [.init(id: "row:a", minY: 100)]))
        await eventually("the older page load ended") { !screen.isLoadingOlderPage }
        #expect(rpc.pageCursors == ["cur-a"])
        #expect(screen.anchorRowId == nil, "no row to put back")
        #expect(!screen.isHoldingLiveRows)
        screen.receiveOverlay(liveOverlay(1))
        #expect(host.timeline.overlay.revision == 1, "live rows go through at once")
        screen.close()
        host.park()
    }
}
