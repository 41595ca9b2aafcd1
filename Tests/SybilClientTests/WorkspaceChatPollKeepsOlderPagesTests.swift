import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// Beside `WorkspaceChatTimelinePaginationReloadTests`: a poll of the newest window (every
/// 60 s, 10 s while a run is pending) while the reader is scrolled up must leave the older
/// pages they loaded, and the row whose place is being restored, where they are.
@MainActor
@Suite("WorkspaceChatPollKeepsOlderPagesTests", .timeLimit(.minutes(2)))
struct WorkspaceChatPollKeepsOlderPagesTests {
    typealias Screen = WorkspaceChatScreenModel<ManualClock>

    /// A canonical row at `order` in history.
    private nonisolated static func row(_ id: String, _ order: UInt64) -> TimelineBlock {
        TimelineBlock(
            type: .agentReply, id: id, origin: .canonical, sourceOrder: [order], timestamp: Int64(order),
            text: "text \(id)")
    }

    /// The newest window: rows c (5) and d (6), older rows before `cur-c`.
    private nonisolated static let window = WorkspaceChatLoadEnvelope(
        boundaryToken: "b", codexSessionId: nil, loadState: .ready, loadedEntries: 2, hasOlderEntries: true,
        oldestCursor: "cur-c", timeline: [row("c", 5), row("d", 6)], liveOverlay: .empty, runtime: nil,
        activeRun: nil)

    /// The desktop's older pages: a (3) and b (4) before `cur-c`, y (1) and z (2) before `cur-a`,
    /// and nothing before those.
    private nonisolated static func pageBefore(_ cursor: String) -> WorkspaceChatPage {
        switch cursor {
        case "cur-c":
            WorkspaceChatPage(
                threadId: nil, timeline: [row("a", 3), row("b", 4)], hasOlderEntries: true, oldestCursor: "cur-a")
        case "cur-a":
            WorkspaceChatPage(
                threadId: nil, timeline: [row("y", 1), row("z", 2)], hasOlderEntries: false, oldestCursor: nil)
        default:
            WorkspaceChatPage(threadId: nil, timeline: [], hasOlderEntries: false, oldestCursor: nil)
        }
    }

    /// A revealed screen of a host that applied its first newest window and waits for its
    /// idle poll.
    private func openChat(_ rpc: OlderPageAnsweringRPC, clock: ManualClock) async -> (WorkspaceChatHost, Screen) {
        let host = WorkspaceChatHost(key: chatA, rpc: rpc, clock: clock, random: FixedRandomSource())
        let start = clock.now
        host.activate()
        await eventually("the first load applies") { host.appliedLoads == 1 }
        #expect(await clock.waitForSleeper(until: start.advanced(by: RefreshPolicy().idleInterval)))
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock)
        return (host, screen)
    }

    /// The list at the top with `rows` on screen, 300 pt apart.
    private func topOfList(showing rows: [String]) -> WorkspaceChatViewport {
        tallViewport(
            offset: 0, rows: rows.enumerated().map { .init(id: "row:\($0.element)", minY: Double($0.offset) * 300) })
    }

    /// Lets the idle poll (60 s, no jitter) load the newest window again.
    private func poll(_ host: WorkspaceChatHost, clock: ManualClock) async {
        let applied = host.appliedLoads
        clock.advance(by: RefreshPolicy().idleInterval)
        await eventually("the poll's newest window applies") { host.appliedLoads == applied + 1 }
    }

    /// Scrolls to the top showing `first`; the page before loads and is laid out, `first` put
    /// back in its place.
    private func loadOlderPage(above first: String, _ screen: Screen, clock: ManualClock) async {
        clock.advance(by: OlderPageTrigger<ManualClock.Instant>.minimumInterval)
        screen.updateViewport(topOfList(showing: [first]))
        await eventually("the older page load ended") { !screen.isLoadingOlderPage }
        #expect(screen.anchorRowId == "row:\(first)")
        screen.updateViewport(tallViewport(offset: 0, rows: [.init(id: "row:\(first)", minY: 600)]))
        #expect(screen.anchorRowId == nil, "the reader's row is back in its place")
    }

    @Test func aPollWhileScrolledUpKeepsTheOlderRowsTheReaderIsReading() async {
        let rpc = OlderPageAnsweringRPC(envelope: Self.window, pageBefore: Self.pageBefore)
        let clock = ManualClock()
        let (host, screen) = await openChat(rpc, clock: clock)
        await loadOlderPage(above: "c", screen, clock: clock)
        await loadOlderPage(above: "a", screen, clock: clock)
        #expect(rpc.pageCursors == ["cur-c", "cur-a"])
        // The reader reads y and z at the very top of the chat.
        screen.updateViewport(topOfList(showing: ["y", "z"]))
        let epoch = host.timeline.displayEpoch
        await poll(host, clock: clock)
        screen.frame()
        #expect(screen.displayRows.rows.map(\.id) == ["row:y", "row:z", "row:a", "row:b", "row:c", "row:d"])
        #expect(host.timeline.displayEpoch == epoch, "the reader's scroll position still holds")
        #expect(!host.timeline.hasOlderEntries, "the start of the chat is still known")
        // Staying at the top asks for nothing again.
        for _ in 0..<4 {
            clock.advance(by: OlderPageTrigger<ManualClock.Instant>.minimumInterval)
            screen.updateViewport(topOfList(showing: ["y", "z"]))
            await eventually("no older page load runs") { !screen.isLoadingOlderPage }
        }
        #expect(rpc.pageCursors == ["cur-c", "cur-a"], "the pages already shown were loaded again")
        #expect(rpc.loads == 2)
        screen.close()
        host.park()
    }

    @Test func aPollBetweenAPrependAndItsLayoutKeepsTheRowWhosePlaceIsRestored() async {
        let rpc = OlderPageAnsweringRPC(envelope: Self.window, pageBefore: Self.pageBefore)
        let clock = ManualClock()
        let (host, screen) = await openChat(rpc, clock: clock)
        await loadOlderPage(above: "c", screen, clock: clock)
        // The reader reads a at the top; the page before it arrives and is prepended.
        clock.advance(by: OlderPageTrigger<ManualClock.Instant>.minimumInterval)
        screen.updateViewport(topOfList(showing: ["a", "b"]))
        await eventually("the older page load ended") { !screen.isLoadingOlderPage }
        #expect(screen.anchorRowId == "row:a")
        // The poll lands before the list reports its new layout.
        await poll(host, clock: clock)
        screen.frame()
        #expect(screen.displayRows.rows.map(\.id) == ["row:y", "row:z", "row:a", "row:b", "row:c", "row:d"])
        #expect(screen.anchorRowId == "row:a")
        // The layout arrives: row a goes back to where the reader had it.
        let sequence = screen.scrollCommandSequence
        screen.updateViewport(
            tallViewport(offset: 0, rows: [.init(id: "row:z", minY: 300), .init(id: "row:a", minY: 600)]))
        #expect(screen.scrollCommand == .setOffset(600))
        #expect(screen.scrollCommandSequence == sequence + 1)
        #expect(screen.anchorRowId == nil)
        screen.close()
        host.park()
    }

    @Test func aStopKeptWithTheOlderRowsIsStillNamedAfterAPoll() async {
        // The page before a and b brings nothing new and leaves the cursor where it was.
        let rpc = OlderPageAnsweringRPC(envelope: Self.window) { cursor in
            cursor == "cur-a"
                ? WorkspaceChatPage(threadId: nil, timeline: [], hasOlderEntries: true, oldestCursor: "cur-a")
                : Self.pageBefore(cursor)
        }
        let clock = ManualClock()
        let (host, screen) = await openChat(rpc, clock: clock)
        await loadOlderPage(above: "c", screen, clock: clock)
        clock.advance(by: OlderPageTrigger<ManualClock.Instant>.minimumInterval)
        screen.updateViewport(topOfList(showing: ["a", "b"]))
        await eventually("the older page load ended") { !screen.isLoadingOlderPage }
        #expect(host.timeline.olderPageStop == .cursorDidNotMove)
        let stopped = host.lastLoadError
        #expect(stopped?.contains("older entries") == true)
        await poll(host, clock: clock)
        #expect(host.timeline.window.map(\.id) == ["a", "b", "c", "d"])
        #expect(host.timeline.olderPageStop == .cursorDidNotMove, "kept with the rows it is about")
        #expect(host.lastLoadError == stopped, "the reader is still told why no more rows come")
        screen.close()
        host.park()
    }
}
