import SybilClient
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// Every seed-000 presentation number at its boundary, through the screen model: a real host,
/// the scripted desktop and a manual clock.
@MainActor
@Suite("WorkspaceChatScreenModelTests", .timeLimit(.minutes(2)))
struct WorkspaceChatScreenModelTests {
    typealias Screen = WorkspaceChatScreenModel<ManualClock>

    /// A host that has loaded `envelope`, and its screen (created after the load: the short
    /// returning cover) already revealed at the bottom of a full viewport.
    private func revealedScreen(
        envelope: WorkspaceChatLoadEnvelope = Envelopes.envelope(["a", "b"], hasOlder: true, cursor: "cur-a"),
        viewport: WorkspaceChatViewport = tallViewport()
    ) async -> (ScriptedWorkspaceChatRPC, ManualClock, WorkspaceChatHost, Screen) {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        await rpc.serveLoad(of: chatA, with: envelope, to: host) { host.activate() }
        let screen = Screen(host: host, clock: clock)
        await revealScreen(screen, clock: clock, viewport: viewport)
        return (rpc, clock, host, screen)
    }

    private func tearDown(_ screen: Screen, _ host: WorkspaceChatHost, _ rpc: ScriptedWorkspaceChatRPC) {
        screen.close()
        #expect(screen.ownedTaskCount == 0, "close() cancels every task the screen holds")
        host.park()
        rpc.verifyDone()
    }

    // MARK: Overlay delivery

    /// Delivers one overlay at once, holds the next, and checks it is not delivered one tick
    /// before `interval` and is delivered at it.
    private func expectSecondDelivery(
        after interval: Duration, screen: Screen, host: WorkspaceChatHost, clock: ManualClock,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        screen.receiveOverlay(liveOverlay(1))
        #expect(host.timeline.overlay.revision == 1, "the first update goes through", sourceLocation: sourceLocation)
        screen.receiveOverlay(liveOverlay(2))
        #expect(host.timeline.overlay.revision == 1, sourceLocation: sourceLocation)
        clock.advance(by: interval - oneTick)
        screen.frame()
        #expect(host.timeline.overlay.revision == 1, "one tick early", sourceLocation: sourceLocation)
        clock.advance(by: oneTick)
        await eventually("delivered at \(interval)", sourceLocation: sourceLocation) {
            host.timeline.overlay.revision == 2
        }
        #expect(host.timeline.overlay == liveOverlay(2), sourceLocation: sourceLocation)
    }

    @Test func overlayUpdatesReachTheHostAtMostSixTimesASecond() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        await expectSecondDelivery(after: .seconds(1) / 6, screen: screen, host: host, clock: clock)
        tearDown(screen, host, rpc)
    }

    @Test func overlayUpdatesSlowToTwiceASecondWhileTheComposerOrAPreviewIsOpen() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(composerOpen: true))
        await expectSecondDelivery(after: .milliseconds(500), screen: screen, host: host, clock: clock)
        var preview = tallViewport()
        preview.isPreviewOpen = true
        screen.updateViewport(preview)
        clock.advance(by: .seconds(1))
        screen.receiveOverlay(liveOverlay(3))
        screen.receiveOverlay(liveOverlay(4))
        clock.advance(by: .milliseconds(500) - oneTick)
        screen.frame()
        #expect(host.timeline.overlay.revision == 3, "a preview slows delivery too")
        clock.advance(by: oneTick)
        await eventually("delivered at 500 ms") { host.timeline.overlay.revision == 4 }
        tearDown(screen, host, rpc)
    }

    @Test func duringADragOnlyTheNewestUpdateIsKeptAndDeliveredWhenItEnds() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(dragging: true))
        for revision in 1...3 { screen.receiveOverlay(liveOverlay(Int64(revision))) }
        clock.advance(by: .seconds(2))
        screen.frame()
        #expect(host.timeline.overlay == .empty, "nothing while dragging")
        let revision = host.timeline.revision
        screen.updateViewport(tallViewport(dragging: false))
        #expect(host.timeline.revision == revision + 1, "one update reaches the host")
        #expect(host.timeline.overlay.revision == 3, "only the newest, when the drag ends")
        #expect(host.timeline.overlay == liveOverlay(3))
        tearDown(screen, host, rpc)
    }

    // MARK: Cover

    /// A screen made before its host's first load (row a, older history before cursor c1),
    /// which it has applied.
    private func screenOverFirstLoad() async -> (ScriptedWorkspaceChatRPC, ManualClock, WorkspaceChatHost, Screen) {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        let screen = Screen(host: host, clock: clock)
        await rpc.serveLoad(
            of: chatA, with: Envelopes.envelope(["a"], hasOlder: true, cursor: "c1"), to: host
        ) { host.activate() }
        return (rpc, clock, host, screen)
    }

    @Test func theFirstDisplayCoverDropsAtTwoSecondsEvenIfLayoutNeverSettles() async {
        let rpc = ScriptedWorkspaceChatRPC()
        let clock = ManualClock()
        let host = makeHost(rpc: rpc, clock: clock)
        let screen = Screen(host: host, clock: clock)
        #expect(screen.cover == .firstDisplay)
        clock.advance(by: FirstDisplayCover<ManualClock.Instant>.maximumDuration - oneTick)
        screen.frame()
        #expect(screen.isCovered, "still covered one tick before 2 s")
        clock.advance(by: oneTick)
        await eventually("the cover drops at 2 s") { !screen.isCovered }
        tearDown(screen, host, rpc)
    }

    @Test func aShortHistoryLoadsAtMostTwoOlderPagesBeneathTheCover() async {
        let (rpc, clock, host, screen) = await screenOverFirstLoad()
        let short = WorkspaceChatViewport(contentOffset: 0, contentHeight: 300, visibleHeight: 800)
        screen.updateViewport(short)
        #expect(screen.scrollCommand == .jumpToBottom)
        for (page, cursor, next) in [("p1", "c1", "c2"), ("p2", "c2", "c3")] {
            rpc.expect(.pageBefore(chatA, cursor: cursor))
            await runSettlePasses(screen, clock: clock)
            #expect(screen.isCovered)
            await rpc.waitForCall(.pageBefore(chatA, cursor: cursor))
            #expect(screen.isLoadingOlderPage)
            rpc.answer(
                .pageBefore(chatA, cursor: cursor), with: .page(Envelopes.page([page], hasOlder: true, cursor: next)))
            await eventually("page \(page) loaded") { !screen.isLoadingOlderPage }
            #expect(screen.displayRows.rows.first?.id == "row:\(page)", "page \(page) added rows")
            screen.updateViewport(short)
        }
        // Still short and more history exists, but two pages is the limit: the cover lifts.
        await runSettlePasses(screen, clock: clock)
        #expect(!screen.isCovered)
        #expect(!screen.isLoadingOlderPage, "no third page")
        #expect(rpc.waitingCalls.isEmpty)
        #expect(screen.displayRows.rows.map(\.id) == ["row:p2", "row:p1", "row:a"])
        #expect(host.timeline.oldestCursor == "c3")
        tearDown(screen, host, rpc)
    }

    @Test func aParkedHostComesBackBehindAShortCoverAtTheEnd() async {
        let (rpc, clock, host, first) = await screenOverFirstLoad()
        first.updateViewport(tallViewport(offset: 4_000))
        first.close()
        host.park()
        host.activate()  // nothing stale: no load
        let back = Screen(host: host, clock: clock)
        #expect(back.cover == .returning)
        #expect(back.displayRows.rows.map(\.id) == ["row:a"], "the parked host kept its rows")
        // Even a short list loads nothing under the returning cover: it only goes back to the end.
        back.updateViewport(WorkspaceChatViewport(contentOffset: 0, contentHeight: 300, visibleHeight: 800))
        #expect(back.scrollCommand == .jumpToBottom)
        await runSettlePasses(back, clock: clock)
        #expect(!back.isCovered)
        #expect(!back.isLoadingOlderPage)
        #expect(rpc.waitingCalls.isEmpty, "no older page was asked for")
        #expect(back.displayRows.rows.map(\.id) == ["row:a"])
        tearDown(back, host, rpc)
    }

    // MARK: Older pages

    /// Answers the asked-for page before `cursor` with `page` and waits until the screen's load
    /// has ended.
    private func answerPageBefore(
        _ cursor: String, with page: WorkspaceChatPage, screen: Screen, rpc: ScriptedWorkspaceChatRPC,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await rpc.waitForCall(.pageBefore(chatA, cursor: cursor))
        rpc.answer(.pageBefore(chatA, cursor: cursor), with: .page(page))
        await eventually("the page before \(cursor) loaded", sourceLocation: sourceLocation) {
            !screen.isLoadingOlderPage
        }
    }

    @Test func olderPagesLoadWithin1800PointsOfTheTop() async {
        let (rpc, _, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(offset: 1_800.5))
        #expect(!screen.isLoadingOlderPage, "1,800.5 pt from the top loads nothing")
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        screen.updateViewport(tallViewport(offset: 1_800))
        #expect(screen.isLoadingOlderPage, "1,800 pt loads (the trigger's bound is inclusive)")
        await answerPageBefore("cur-a", with: Envelopes.page(["z"]), screen: screen, rpc: rpc)
        #expect(screen.displayRows.rows.map(\.id) == ["row:z", "row:a", "row:b"])
        tearDown(screen, host, rpc)
    }

    @Test func olderPageLoadsStartAtMostEveryQuarterSecond() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        screen.updateViewport(tallViewport(offset: 0))
        await answerPageBefore(
            "cur-a", with: Envelopes.page(["z"], hasOlder: true, cursor: "cur-z"), screen: screen, rpc: rpc)
        #expect(screen.displayRows.rows.map(\.id) == ["row:z", "row:a", "row:b"])
        clock.advance(by: .milliseconds(250) - oneTick)
        #expect(!screen.loadOlder(), "one tick before 0.25 s after the last start")
        clock.advance(by: oneTick)
        rpc.expect(.pageBefore(chatA, cursor: "cur-z"))
        #expect(screen.loadOlder())
        await answerPageBefore("cur-z", with: Envelopes.page(["y"]), screen: screen, rpc: rpc)
        #expect(screen.displayRows.rows.map(\.id) == ["row:y", "row:z", "row:a", "row:b"])
        tearDown(screen, host, rpc)
    }

    @Test func aLoadStillRunningAfterEightSecondsIsStale() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        screen.updateViewport(tallViewport(offset: 0))
        await rpc.waitForCall(.pageBefore(chatA, cursor: "cur-a"))
        clock.advance(by: .seconds(8) - oneTick)
        #expect(!screen.loadOlder(), "a load younger than 8 s blocks another")
        clock.advance(by: oneTick)
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        #expect(screen.loadOlder(), "at 8 s the running load is stale")
        await eventually("the second call waits") { rpc.waitingCalls.count == 2 }
        // The new load answers first; the stale one's page no longer continues the window.
        let call = ScriptedWorkspaceChatRPC.Call.pageBefore(chatA, cursor: "cur-a")
        rpc.answer(call, with: .failure(.init(description: "stale load")))
        rpc.answer(call, with: .page(Envelopes.page(["z"])))
        await eventually("the current load finished") { !screen.isLoadingOlderPage }
        #expect(screen.displayRows.rows.map(\.id) == ["row:z", "row:a", "row:b"], "the current load's page was added")
        tearDown(screen, host, rpc)
    }

    // MARK: Prepend anchor

    /// Loads the page before `cur-a` while row a is first on screen, 100 pt below the viewport's
    /// top; returns when the page is prepended and the anchor waits for layout.
    private func prependWithAnchor(
        screen: Screen, rpc: ScriptedWorkspaceChatRPC
    ) async {
        rpc.expect(.pageBefore(chatA, cursor: "cur-a"))
        screen.updateViewport(
            tallViewport(offset: 900, rows: [.init(id: "row:a", minY: 1_000), .init(id: "row:b", minY: 1_300)]))
        await answerPageBefore("cur-a", with: Envelopes.page(["y", "z"]), screen: screen, rpc: rpc)
        #expect(screen.displayRows.rows.map(\.id) == ["row:y", "row:z", "row:a", "row:b"])
        #expect(screen.anchorRowId == "row:a")
        #expect(screen.isHoldingLiveRows)
    }

    @Test func thePrependAnchorPutsTheReadersRowBackAndReleasesLiveRows() async {
        let (rpc, _, host, screen) = await revealedScreen()
        await prependWithAnchor(screen: screen, rpc: rpc)
        screen.receiveOverlay(liveOverlay(1))
        #expect(host.timeline.overlay == .empty, "live rows wait while the place is restored")
        // Layout after the prepend: row a moved down by the 700 pt of the new rows.
        screen.updateViewport(
            tallViewport(
                offset: 900, contentHeight: 10_700,
                rows: [.init(id: "row:z", minY: 1_300), .init(id: "row:a", minY: 1_700)]))
        #expect(screen.scrollCommand == .setOffset(1_600), "row a is 100 pt below the top again")
        #expect(screen.anchorRowId == nil)
        #expect(host.timeline.overlay.revision == 1, "restored: the held live rows go through")
        tearDown(screen, host, rpc)
    }

    @Test func liveRowsAreHeldAtMostOneAndAHalfSeconds() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        await prependWithAnchor(screen: screen, rpc: rpc)
        screen.receiveOverlay(liveOverlay(1))
        clock.advance(by: PrependAnchor<ManualClock.Instant>.maximumHold - oneTick)
        screen.frame()
        #expect(host.timeline.overlay == .empty, "held one tick before 1.5 s")
        clock.advance(by: oneTick)
        await eventually("released at 1.5 s") { host.timeline.overlay.revision == 1 }
        #expect(!screen.isHoldingLiveRows)
        #expect(host.timeline.overlay == liveOverlay(1))
        tearDown(screen, host, rpc)
    }

    // MARK: Follow-bottom and settle passes

    /// The step of a 0.5 s frame with `remaining` points to go.
    private func halfSecondStep(remaining: Double, screen: Screen, clock: ManualClock) -> ScrollCommand {
        screen.updateViewport(tallViewport(offset: 9_200 - remaining))
        #expect(screen.frame() == .none, "the first frame starts the movement's clock")
        clock.advance(by: .milliseconds(500))
        return screen.frame()
    }

    @Test func followingTheBottomMovesAtRemainingOver1_5sClampedTo80And2200() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        #expect(screen.isFollowingBottom)
        // 100 pt: 66.7 pt/s clamps up to 80 pt/s, 40 pt in 0.5 s.
        #expect(halfSecondStep(remaining: 100, screen: screen, clock: clock) == .step(by: 40))
        // 1,500 pt: 1,000 pt/s, unclamped.
        #expect(halfSecondStep(remaining: 1_500, screen: screen, clock: clock) == .step(by: 500))
        // 6,000 pt: 4,000 pt/s clamps down to 2,200 pt/s.
        #expect(halfSecondStep(remaining: 6_000, screen: screen, clock: clock) == .step(by: 1_100))
        #expect(screen.scrollCommand == .step(by: 1_100))
        tearDown(screen, host, rpc)
    }

    @Test func reduceMotionJumpsAndSettlesEvery32Milliseconds() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(offset: 5_000, reduceMotion: true))
        #expect(screen.frame() == .jumpToBottom)
        screen.updateViewport(tallViewport(reduceMotion: true))
        #expect(screen.frame() == .none)
        #expect(screen.isSettling)
        clock.advance(by: .milliseconds(32) - oneTick)
        screen.frame()
        screen.updateViewport(tallViewport(reduceMotion: true))
        runSettlePassesFromPartialStep(screen, clock: clock)
        tearDown(screen, host, rpc)
    }

    /// The first pass is one tick away; then two more stable passes end the settling, exactly
    /// 64 ms later (a display tick runs the pass that is due, so a pass one tick early would end
    /// it one tick early).
    private func runSettlePassesFromPartialStep(_ screen: Screen, clock: ManualClock) {
        clock.advance(by: oneTick)
        screen.frame()
        clock.advance(by: .milliseconds(32))
        screen.frame()
        #expect(screen.isSettling, "one stable pass is not enough")
        clock.advance(by: .milliseconds(32) - oneTick)
        screen.frame()
        #expect(screen.isSettling, "the third pass is not due one tick before 32 ms after the second")
        clock.advance(by: oneTick)
        screen.frame()
        #expect(!screen.isSettling, "two stable passes end it")
    }

    @Test func settlePassesStart350msAfterAnAnimatedScrollAndEndAfterTwoStablePasses() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        #expect(halfSecondStep(remaining: 10, screen: screen, clock: clock) == .step(by: 10))
        screen.updateViewport(tallViewport())
        #expect(screen.frame() == .none)
        #expect(screen.isSettling)
        clock.advance(by: .milliseconds(350) - oneTick)
        screen.frame()
        // A display tick runs the pass that is due: the first at 350 ms, the next two 32 ms
        // apart, so settling ends at 414 ms exactly. Passes measure within the tolerances:
        // 1 pt of offset, 0.5 pt of height.
        clock.advance(by: oneTick)
        screen.frame()
        screen.updateViewport(tallViewport(offset: 9_201, contentHeight: 10_000.5))
        clock.advance(by: .milliseconds(32))
        screen.frame()
        #expect(screen.isSettling, "one stable pass is not enough")
        clock.advance(by: .milliseconds(32) - oneTick)
        screen.frame()
        #expect(screen.isSettling, "no third pass one tick before 414 ms")
        clock.advance(by: oneTick)
        screen.frame()
        #expect(!screen.isSettling, "the third pass ends it")
        tearDown(screen, host, rpc)
    }

    @Test func settlePassesEndAfterEightWhenLayoutNeverSettles() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(offset: 5_000, reduceMotion: true))
        screen.frame()
        var height = 10_000.0
        screen.updateViewport(tallViewport(offset: height - 800, contentHeight: height, reduceMotion: true))
        screen.frame()
        for pass in 1...SettlePasses.maximumPasses {
            #expect(screen.isSettling, "still settling before pass \(pass)")
            clock.advance(by: .milliseconds(32))
            screen.frame()
            // The content keeps growing by 1 pt (more than 0.5 pt) and the list keeps up.
            height += 1
            screen.updateViewport(tallViewport(offset: height - 800, contentHeight: height, reduceMotion: true))
        }
        #expect(!screen.isSettling, "eight passes end it")
        tearDown(screen, host, rpc)
    }

    @Test func aDragStopsFollowingAndScrollToBottomResumesIt() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.updateViewport(tallViewport(offset: 4_000, dragging: true))
        screen.updateViewport(tallViewport(offset: 4_000))
        #expect(!screen.isFollowingBottom)
        screen.frame()
        clock.advance(by: .milliseconds(16))
        #expect(screen.frame() == .none, "not following: the list stays")
        screen.scrollToBottom()
        #expect(screen.frame() == .none)
        clock.advance(by: .milliseconds(500))
        #expect(screen.frame() == .step(by: 1_100))
        tearDown(screen, host, rpc)
    }

    // MARK: Rows and the thread viewer

    @Test func displayRowsPinTheLiveThinkingAndHideSubagentPanelRows() async {
        var envelope = Envelopes.envelope(["a"], activeRun: "run-1")
        envelope.timeline.append(
            TimelineBlock(
                type: .activity, id: "panel", origin: .canonical, sourceOrder: [2], timestamp: 0, text: "tool",
                subagentThreadId: "thr-7"))
        envelope.timeline.append(
            TimelineBlock(
                type: .agentReply, id: "opens", origin: .canonical, sourceOrder: [3], timestamp: 0, text: "sub",
                subagentThreadId: "thr-7"))
        let (rpc, _, host, screen) = await revealedScreen(envelope: envelope)
        #expect(screen.displayRows.rows.map(\.id) == ["row:a", "row:opens"])
        screen.receiveOverlay(liveOverlay(1, thinking: true))
        #expect(screen.displayRows.pinnedStatus?.id == "run:run-1/row:live-1")
        #expect(screen.displayRows.rows.map(\.id) == ["row:a", "row:opens"], "thinking leaves the list")

        // Opening the thread from its row: its own viewer, loaded through the same seam.
        #expect(!screen.openThread(fromRow: "row:a"), "row a opens no thread")
        rpc.expect(.thread(chatA, threadId: "thr-7"))
        #expect(screen.openThread(fromRow: "row:opens"))
        await rpc.waitForCall(.thread(chatA, threadId: "thr-7"))
        rpc.answer(.thread(chatA, threadId: "thr-7"), with: .page(Envelopes.page(["t1"], thread: "thr-7")))
        await eventually("the thread loaded") { screen.threadViewer?.timeline.rows.map(\.id) == ["row:t1"] }
        #expect(screen.threadViewer?.timeline.viewport.description == "subagent-thr-7")
        screen.closeThread()
        #expect(screen.threadViewer == nil)
        tearDown(screen, host, rpc)
    }

    @Test func aClosedScreenDeliversAndPublishesNothing() async {
        let (rpc, clock, host, screen) = await revealedScreen()
        screen.receiveOverlay(liveOverlay(1))
        screen.receiveOverlay(liveOverlay(2))
        #expect(screen.ownedTaskCount > 0, "a held update waits on a timer")
        screen.close()
        #expect(screen.ownedTaskCount == 0)
        clock.advance(by: .seconds(1))
        #expect(screen.frame() == .none)
        #expect(host.timeline.overlay.revision == 1)
        tearDown(screen, host, rpc)
    }
}
