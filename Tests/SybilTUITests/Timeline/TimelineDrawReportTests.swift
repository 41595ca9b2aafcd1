import Testing

@testable import SybilTUI

/// What a draw reports about the lines around the viewport: counted up to the limit and no
/// further, whatever the history's length, and the drawn items' rows.
@Suite struct TimelineDrawReportTests {
    private func lines(_ range: Range<Int>) -> [TimelineItem] {
        range.map { TimelineItem(id: "m\($0)", role: .activity, body: "m\($0)") }
    }

    private func draw(
        _ items: [TimelineItem], _ scroll: inout TimelineScroll, _ layout: inout TimelineLayout, limit: Int,
        rows: Int = 8
    ) -> TimelineDrawReport {
        var grid = CellGrid(columns: 30, rows: rows)
        return TimelineView().draw(
            into: &grid, in: grid.bounds, items: items, scroll: &scroll, layout: &layout, theme: .monochrome,
            measuring: limit)
    }

    @Test func followingTheBottomOfALongHistoryCountsUpToTheLimitAboveAndNothingBelow() {
        let items = lines(0..<100_000)
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let measured = draw(items, &scroll, &layout, limit: 91)
        #expect(measured.rows == 8)
        #expect(measured.linesShown == 8)
        #expect(measured.linesAbove == 91, "capped at the limit")
        #expect(measured.linesBelow == 0)
        #expect(measured.items.map(\.id) == (99_992..<100_000).map { "m\($0)" })
        #expect(measured.items.map(\.row) == Array(0..<8))
        #expect(layout.layoutCount <= 8 + 91, "only the screen and the measured lines are laid out")
    }

    @Test func withoutALimitNothingAroundTheViewportIsLaidOut() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let measured = draw(lines(0..<1_000), &scroll, &layout, limit: 0)
        #expect(measured.linesAbove == 0)
        #expect(measured.linesBelow == 0)
        #expect(layout.layoutCount == 8)
    }

    @Test func scrolledUpTheLinesBelowAreCountedAndNearTheTopTheLinesAboveExactly() {
        let items = lines(0..<200)
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        _ = draw(items, &scroll, &layout, limit: 91)
        scroll.scroll(byLines: -20)
        let middle = draw(items, &scroll, &layout, limit: 91)
        #expect(middle.linesBelow == 20)
        #expect(middle.linesAbove == 91)
        scroll.scrollToTop()
        scroll.scroll(byLines: 5)
        let nearTop = draw(items, &scroll, &layout, limit: 91)
        #expect(nearTop.linesAbove == 5)
        #expect(nearTop.linesBelow == 91)
        #expect(nearTop.items.first?.id == "m5")
    }

    @Test func anItemCutAtTheTopStartsAboveTheViewport() {
        let tall = TimelineItem(id: "tall", role: .system, body: (1...12).map { "line \($0)" }.joined(separator: "\n"))
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let items = [tall] + lines(0..<3)
        _ = draw(items, &scroll, &layout, limit: 91)
        scroll.scrollToTop()
        scroll.scroll(byLines: 6)
        let measured = draw(items, &scroll, &layout, limit: 91)
        #expect(measured.items.first == TimelineDrawReport.Item(id: "tall", row: -6))
        #expect(measured.linesAbove == 6)
        let height = layout.lines(for: tall, width: 29, theme: .monochrome).count
        #expect(measured.items.dropFirst().first == TimelineDrawReport.Item(id: "m0", row: height - 6))
    }

    @Test func aShortTimelineShowsFewerLinesThanRows() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let measured = draw(lines(0..<3), &scroll, &layout, limit: 91)
        #expect(measured.linesShown == 3)
        #expect(measured.linesAbove == 0)
        #expect(measured.linesBelow == 0)
    }
}
