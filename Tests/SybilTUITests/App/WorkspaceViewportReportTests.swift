import SybilClient
import SybilTesting
import SybilTimeline
import Testing

@testable import SybilTUI

/// The terminal's translation of the workspace screen model's viewport contract: lines to
/// points at 20 a line, so the model's thresholds fall on whole lines, and the model's scroll
/// commands back to lines.
@Suite struct WorkspaceViewportReportTests {
    private func measured(above: Int, shown: Int = 8, below: Int, rows: Int = 8) -> TimelineDrawReport {
        TimelineDrawReport(
            rows: rows, items: [.init(id: "a", row: -2), .init(id: "b", row: 3)], linesAbove: above, linesShown: shown,
            linesBelow: below, limit: WorkspaceViewportReport.measuredLines)
    }

    @Test func linesBecomePointsWithTheItemsTops() {
        let viewport = WorkspaceViewportReport.viewport(
            measured(above: 10, below: 4), isComposerOpen: true, isDragging: false, reduceMotion: true)
        #expect(viewport.contentOffset == 200)
        #expect(viewport.visibleHeight == 160)
        #expect(viewport.contentHeight == 440)
        #expect(viewport.distanceFromBottom == 80)
        #expect(viewport.visibleRows == [.init(id: "a", minY: 160), .init(id: "b", minY: 260)])
        #expect(viewport.isComposerOpen && viewport.reduceMotion && !viewport.isDragging)
    }

    @Test @MainActor func atTheBottomTheModelSeesNoDistanceLeft() {
        let viewport = WorkspaceViewportReport.viewport(
            measured(above: 91, below: 0), isComposerOpen: false, isDragging: false, reduceMotion: false)
        #expect(viewport.distanceFromBottom <= WorkspaceChatScreenModel<ManualClock>.bottomTolerance)
    }

    @Test func aShortTimelineIsAShortHistory() {
        let viewport = WorkspaceViewportReport.viewport(
            measured(above: 0, shown: 3, below: 0), isComposerOpen: false, isDragging: false, reduceMotion: false)
        #expect(viewport.isShortHistory)
        #expect(
            !WorkspaceViewportReport.viewport(
                measured(above: 0, below: 0), isComposerOpen: false, isDragging: false, reduceMotion: false
            )
            .isShortHistory)
    }

    @Test func ninetyLinesFromTheTopIsWithinTheOlderPageThresholdAndTheMeasuredLimitBeyondIt() {
        #expect(WorkspaceViewportReport.measuredLines == 91)
        let clock = ManualClock()
        for (above, loads) in [(90, true), (91, false)] {
            var trigger = OlderPageTrigger<ManualClock.Instant>()
            let viewport = WorkspaceViewportReport.viewport(
                measured(above: above, below: 0), isComposerOpen: false, isDragging: false, reduceMotion: false)
            #expect(
                trigger.scrolled(distanceFromTop: viewport.distanceFromTop, hasOlderEntries: true, at: clock.now)
                    == loads, "\(above) lines above")
        }
    }

    @Test func commandsMoveTheScrollByWholeLines() {
        let at = measured(above: 30, below: 40)
        var scroll = TimelineScroll()
        scroll.scroll(byLines: -10)
        let anchored = scroll
        WorkspaceViewportReport.apply(.none, to: &scroll, measured: at)
        #expect(scroll == anchored)
        WorkspaceViewportReport.apply(.setOffset(600), to: &scroll, measured: at)
        #expect(scroll == anchored, "the terminal already kept the reader's row: no move")
        WorkspaceViewportReport.apply(.setOffset(640), to: &scroll, measured: at)
        var expected = anchored
        expected.scroll(byLines: 2)
        #expect(scroll == expected)
        scroll = anchored
        WorkspaceViewportReport.apply(.step(by: 30), to: &scroll, measured: at)
        expected = anchored
        expected.scroll(byLines: 2)
        #expect(scroll == expected, "a step of 1.5 lines moves 2")
        scroll = anchored
        WorkspaceViewportReport.apply(.step(by: 0.2), to: &scroll, measured: at)
        expected = anchored
        expected.scroll(byLines: 1)
        #expect(scroll == expected, "a step always moves a line at least")
        WorkspaceViewportReport.apply(.jumpToBottom, to: &scroll, measured: at)
        #expect(scroll.isFollowingBottom)
    }
}
