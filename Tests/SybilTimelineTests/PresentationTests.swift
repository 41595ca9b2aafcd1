import SybilTesting
import SybilTimeline
import SybilWire
import Testing

typealias Instant = ManualClock.Instant

private func at(_ milliseconds: Int) -> Instant {
    Instant(offset: .milliseconds(milliseconds))
}

@Suite("Display rows", .timeLimit(.minutes(2)))
struct DisplayRowsTests {
    typealias F = Fixtures

    @Test func thinkingLeavesTheListAndTheActiveRunsLiveThinkingIsPinned() {
        var timeline = WorkspaceTimeline()
        timeline.apply(
            F.snapshot(
                [F.canonical("u", .user), F.canonical("t-old", .thinking), F.canonical("r", .agentReply)],
                overlay: F.overlay(
                    epoch: 1, revision: 2,
                    [
                        F.live("t1", .thinking, run: "run-7", text: "Reading"),
                        F.live("t2", .thinking, run: "run-7", text: "Editing"),
                        F.live("t3", .thinking, run: "run-6", text: "old run"),
                    ]), activeRun: "run-7"))
        let display = DisplayRows(timeline: timeline.rows, activeRunId: timeline.activeRunId)
        #expect(display.rows.map(\.id) == ["row:u", "row:r"])
        #expect(display.pinnedStatus?.text == "Editing", "the newest live thinking of the active run")
        #expect(DisplayRows(timeline: timeline.rows, activeRunId: nil).pinnedStatus == nil)
    }

    @Test func subagentPanelRowsAreHiddenButTheReplyThatOpensTheThreadStays() {
        var timeline = WorkspaceTimeline()
        timeline.apply(
            F.snapshot([
                F.canonical("reply", .agentReply, thread: "thr-1"), F.canonical("tool", .activity, thread: "thr-1"),
                F.canonical("note", .system, thread: "thr-1"), F.canonical("own-tool", .activity),
            ]))
        let display = DisplayRows(timeline: timeline.rows, activeRunId: nil)
        #expect(display.rows.map(\.id) == ["row:reply", "row:own-tool"])
    }

    @Test func theListNeverAddsOrRemovesAMessageOnItsOwn() {
        // Every message row of the timeline appears exactly once, in order, and nothing else.
        var timeline = WorkspaceTimeline()
        timeline.addPending(PendingMessage(operationId: "op-9", text: "sending", createdAt: 9))
        timeline.apply(
            F.snapshot(
                (0..<50).map { F.canonical("c\($0)", [.user, .agentReply, .activity, .system, .thinking][$0 % 5]) },
                overlay: F.overlay(epoch: 1, revision: 1, [F.live("l", .agentReply, run: "r")])))
        let display = DisplayRows(timeline: timeline.rows, activeRunId: nil)
        let expected = timeline.rows.filter { $0.type != .thinking && !DisplayRows.isSubagentPanelRow($0) }
        #expect(display.rows == expected)
        #expect(Set(display.rows.map(\.id)).count == display.rows.count)
    }
}

@Suite("Overlay delivery throttle", .timeLimit(.minutes(2)))
struct OverlayDeliveryThrottleTests {
    @Test func atMostSixPerSecond() {
        var throttle = OverlayDeliveryThrottle<Int, Instant>()
        do {
            let result = throttle.offer(1, at: at(0))
            #expect(result == 1)
        }
        do {
            let result = throttle.offer(2, at: at(166))
            #expect(result == nil, "just under 1/6 s")
        }
        #expect(throttle.nextDeliveryTime == Instant(offset: .seconds(1) / 6))
        do {
            let result = throttle.deliverIfDue(at: Instant(offset: .seconds(1) / 6))
            #expect(result == 2, "at 1/6 s")
        }
        do {
            let result = throttle.offer(3, at: at(334))
            #expect(result == 3, "just over 1/6 s after the last")
        }
    }

    @Test func atMostTwoPerSecondWhileTheComposerIsOpen() {
        var throttle = OverlayDeliveryThrottle<Int, Instant>()
        throttle.isComposerOrPreviewOpen = true
        do {
            let result = throttle.offer(1, at: at(0))
            #expect(result == 1)
        }
        do {
            let result = throttle.offer(2, at: at(499))
            #expect(result == nil)
        }
        do {
            let result = throttle.deliverIfDue(at: at(500))
            #expect(result == 2)
        }
        do {
            let result = throttle.offer(3, at: at(1_001))
            #expect(result == 3)
        }
    }

    @Test func onlyTheNewestHeldUpdateIsKept() {
        var throttle = OverlayDeliveryThrottle<Int, Instant>()
        _ = throttle.offer(1, at: at(0))
        do {
            let result = throttle.offer(2, at: at(10))
            #expect(result == nil)
        }
        do {
            let result = throttle.offer(3, at: at(20))
            #expect(result == nil)
        }
        do {
            let result = throttle.deliverIfDue(at: at(200))
            #expect(result == 3)
        }
        do {
            let result = throttle.deliverIfDue(at: at(1_000))
            #expect(result == nil, "2 was superseded, never delivered")
        }
    }

    @Test func duringADragNothingIsDeliveredAndTheNewestIsKept() {
        var throttle = OverlayDeliveryThrottle<Int, Instant>()
        do {
            let result = throttle.setDragging(true, at: at(0))
            #expect(result == nil)
        }
        do {
            let result = throttle.offer(1, at: at(0))
            #expect(result == nil)
        }
        do {
            let result = throttle.offer(2, at: at(500))
            #expect(result == nil)
        }
        do {
            let result = throttle.deliverIfDue(at: at(2_000))
            #expect(result == nil)
        }
        #expect(throttle.nextDeliveryTime == nil)
        do {
            let result = throttle.offer(3, at: at(2_500))
            #expect(result == nil)
        }
        do {
            let result = throttle.setDragging(false, at: at(3_000))
            #expect(result == 3)
        }
        #expect(throttle.held == nil)
    }
}

@Suite("First display cover", .timeLimit(.minutes(2)))
struct FirstDisplayCoverTests {
    @Test func dropsAfterTwoSecondsEvenIfLayoutNeverSettles() {
        var cover = FirstDisplayCover(shownAt: at(1_000))
        do {
            let result = cover.tick(at: at(2_999))
            #expect(result == nil)
        }
        #expect(cover.isCovering)
        do {
            let result = cover.tick(at: at(3_000))
            #expect(result == .reveal)
        }
        #expect(!cover.isCovering)
        #expect(cover.deadline == at(3_000))
    }

    @Test func settledLayoutRevealsAtOnce() {
        var cover = FirstDisplayCover(shownAt: at(0))
        do {
            let result = cover.layoutSettled(isShortHistory: false, hasOlderEntries: true, at: at(300))
            #expect(result == .reveal)
        }
    }

    @Test func aShortHistoryLoadsUpToTwoOlderPagesFirst() {
        var cover = FirstDisplayCover(shownAt: at(0))
        do {
            let result = cover.layoutSettled(isShortHistory: true, hasOlderEntries: true, at: at(100))
            #expect(result == .loadOlderPage)
        }
        do {
            let result = cover.layoutSettled(isShortHistory: true, hasOlderEntries: true, at: at(150))
            #expect(result == .none, "one at a time")
        }
        cover.olderPageFinished()
        do {
            let result = cover.layoutSettled(isShortHistory: true, hasOlderEntries: true, at: at(400))
            #expect(result == .loadOlderPage)
        }
        cover.olderPageFinished()
        #expect(cover.olderPagesRequested == 2)
        do {
            let result = cover.layoutSettled(isShortHistory: true, hasOlderEntries: true, at: at(700))
            #expect(result == .reveal, "not a third")
        }
    }

    @Test func noOlderEntriesMeansNoPageLoads() {
        var cover = FirstDisplayCover(shownAt: at(0))
        do {
            let result = cover.layoutSettled(isShortHistory: true, hasOlderEntries: false, at: at(100))
            #expect(result == .reveal)
        }
    }

    @Test func theTimeoutWinsOverAPageLoad() {
        var cover = FirstDisplayCover(shownAt: at(0))
        _ = cover.layoutSettled(isShortHistory: true, hasOlderEntries: true, at: at(100))
        do {
            let result = cover.tick(at: at(2_000))
            #expect(result == .reveal)
        }
    }
}

@Suite("Older page trigger", .timeLimit(.minutes(2)))
struct OlderPageTriggerTests {
    @Test func startsWithin1800PointsOfTheTop() {
        var trigger = OlderPageTrigger<Instant>()
        do {
            let result = trigger.scrolled(distanceFromTop: 1_801, hasOlderEntries: true, at: at(0))
            #expect(!result)
        }
        do {
            let result = trigger.scrolled(distanceFromTop: 1_800, hasOlderEntries: true, at: at(0))
            #expect(result)
        }
        var under = OlderPageTrigger<Instant>()
        do {
            let result = under.scrolled(distanceFromTop: 1_799, hasOlderEntries: true, at: at(0))
            #expect(result)
        }
        var none = OlderPageTrigger<Instant>()
        do {
            let result = none.scrolled(distanceFromTop: 0, hasOlderEntries: false, at: at(0))
            #expect(!result)
        }
    }

    @Test func atMostEveryQuarterSecond() {
        var trigger = OlderPageTrigger<Instant>()
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(0))
            #expect(result)
        }
        trigger.finished()
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(249))
            #expect(!result)
        }
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(250))
            #expect(result)
        }
    }

    @Test func aRunningLoadBlocksUntilItIsStaleAfterEightSeconds() {
        var trigger = OlderPageTrigger<Instant>()
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(0))
            #expect(result)
        }
        #expect(trigger.isLoading(at: at(7_999)))
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(7_999))
            #expect(!result)
        }
        #expect(!trigger.isLoading(at: at(8_000)))
        do {
            let result = trigger.scrolled(distanceFromTop: 100, hasOlderEntries: true, at: at(8_000))
            #expect(result)
        }
    }
}

@Suite("Prepend anchor", .timeLimit(.minutes(2)))
struct PrependAnchorTests {
    @Test func restoresTheFirstVisibleRowAtItsOffset() {
        // Row "r5" starts at y=1,000 while scrolled to 960: it sits 40 pt below the top.
        var anchor = PrependAnchor(rowId: "r5", rowMinY: 1_000, contentOffset: 960, at: at(0))
        #expect(anchor.offset == 40)
        // After 30 older rows were prepended, r5 starts at y=4,200.
        do {
            let result = anchor.restore(rowMinY: 4_200)
            #expect(result == 4_160)
        }
        #expect(anchor.isRestored)
    }

    @Test func holdsLiveRowsUpTo1500MillisecondsWhileRestoring() {
        var anchor = PrependAnchor(rowId: "r", rowMinY: 0, contentOffset: 0, at: at(100))
        #expect(anchor.holdsLiveRows(at: at(1_599)))
        #expect(!anchor.holdsLiveRows(at: at(1_600)))
        _ = anchor.restore(rowMinY: 10)
        #expect(!anchor.holdsLiveRows(at: at(200)), "restored: nothing held")
    }
}

@Suite("Follow bottom and settle passes", .timeLimit(.minutes(2)))
struct FollowBottomTests {
    @Test func speedIsRemainingOverOnePointFiveSecondsClamped() {
        #expect(FollowBottom.speed(remaining: 150) == 100)
        #expect(FollowBottom.speed(remaining: 119) == 80, "just under the floor: 79.3 → 80")
        #expect(FollowBottom.speed(remaining: 120) == 80, "at the floor")
        #expect(FollowBottom.speed(remaining: 121) > 80)
        #expect(FollowBottom.speed(remaining: 3_299) < 2_200)
        #expect(FollowBottom.speed(remaining: 3_300) == 2_200, "at the ceiling")
        #expect(FollowBottom.speed(remaining: 3_301) == 2_200, "just over: clamped")
    }

    @Test func stepsNeverOvershootAndReduceMotionJumps() {
        let frame = Duration.milliseconds(16)
        #expect(abs(FollowBottom.step(remaining: 1_500, frame: frame, reduceMotion: false) - 16) < 1e-9)
        #expect(FollowBottom.step(remaining: 1, frame: frame, reduceMotion: false) == 1)
        #expect(FollowBottom.step(remaining: 1_500, frame: frame, reduceMotion: true) == 1_500)
        #expect(FollowBottom.step(remaining: 0, frame: frame, reduceMotion: false) == 0)
    }

    @Test func passesRunEvery32MillisecondsOr350AfterAnimation() {
        var passes = SettlePasses(afterAnimatedScroll: true)
        #expect(passes.nextDelay == .milliseconds(350))
        _ = passes.pass(offset: 0, contentHeight: 100)
        #expect(passes.nextDelay == .milliseconds(32))
        #expect(SettlePasses(afterAnimatedScroll: false).nextDelay == .milliseconds(32))
    }

    @Test func twoStablePassesEndSettling() {
        var passes = SettlePasses(afterAnimatedScroll: false)
        do {
            let result = passes.pass(offset: 0, contentHeight: 100)
            #expect(!result)
        }
        do {
            let result = passes.pass(offset: 1, contentHeight: 100.5)
            #expect(!result, "stable 1: within 1 pt and 0.5 pt")
        }
        do {
            let result = passes.pass(offset: 2, contentHeight: 101)
            #expect(result, "stable 2: done")
        }
    }

    @Test func justOverToleranceIsNotStable() {
        var offset = SettlePasses(afterAnimatedScroll: false)
        _ = offset.pass(offset: 0, contentHeight: 100)
        _ = offset.pass(offset: 1.01, contentHeight: 100)
        #expect(offset.stableRun == 0)
        var height = SettlePasses(afterAnimatedScroll: false)
        _ = height.pass(offset: 0, contentHeight: 100)
        _ = height.pass(offset: 0, contentHeight: 100.51)
        #expect(height.stableRun == 0)
    }

    @Test func eightPassesEndSettlingRegardless() {
        var passes = SettlePasses(afterAnimatedScroll: false)
        for index in 1...7 {
            do {
                let result = passes.pass(offset: Double(index) * 10, contentHeight: 100)
                #expect(!result, "pass \(index)")
            }
        }
        do {
            let result = passes.pass(offset: 80, contentHeight: 100)
            #expect(result, "pass 8")
        }
    }
}
