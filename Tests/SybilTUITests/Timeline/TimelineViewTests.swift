import Testing

@testable import SybilTUI

/// Items that count how often they are read, to prove the view touches only a screen's worth.
private final class ReadCounter: @unchecked Sendable {
    var reads = 0
}

private struct CountingItems: RandomAccessCollection {
    let count: Int
    let counter = ReadCounter()
    var startIndex: Int { 0 }
    var endIndex: Int { count }
    subscript(position: Int) -> TimelineItem {
        counter.reads += 1
        return TimelineItem(id: "m\(position)", role: .activity, body: "m\(position)")
    }
}

@Suite struct TimelineViewTests {
    private let theme = Theme.monochrome
    private let view = TimelineView()

    private func items(_ range: Range<Int>, prefix: String = "m") -> [TimelineItem] {
        range.map { TimelineItem(id: "\(prefix)\($0)", role: .activity, body: "\(prefix)\($0)") }
    }

    /// A 30×8 screen: 29 columns of content and the indicator (`│` track, `┃` thumb).
    private func screen(_ rows: [String], thumb: Range<Int>?) -> String {
        rows.enumerated().map { index, text in
            guard let thumb else { return text }
            let padded = text + String(repeating: " ", count: max(29 - DisplayWidth.of(text), 0))
            return padded + (thumb.contains(index) ? "┃" : "│")
        }
        .joined(separator: "\n")
    }

    private func draw(_ items: [TimelineItem], _ scroll: inout TimelineScroll, _ layout: inout TimelineLayout) -> String
    {
        var grid = CellGrid(columns: 30, rows: 8)
        view.draw(into: &grid, in: grid.bounds, items: items, scroll: &scroll, layout: &layout, theme: theme)
        return grid.text
    }

    @Test func followingTheBottomShowsTheNewestItems() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let text = draw(items(0..<20), &scroll, &layout)
        #expect(text == screen((12..<20).map { "· m\($0)" }, thumb: 5..<8))
        #expect(scroll.isFollowingBottom)
        #expect(!scroll.isNearTop)
        #expect(scroll.itemsBelow == 0)
    }

    @Test func aShortTimelineStartsAtTheTopWithoutAnIndicator() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let text = draw(items(0..<3), &scroll, &layout)
        #expect(text == screen(["· m0", "· m1", "· m2", "", "", "", "", ""], thumb: nil))
        #expect(scroll.isNearTop)
    }

    @Test func rolesDrawTogether() {
        let timeline = [
            TimelineItem(id: "d", role: .dateSeparator, body: "Monday, 30 November"),
            TimelineItem(id: "u", role: .user, body: "Wie groß ist 中文?"),
            TimelineItem(id: "a", role: .assistant, author: "Sybil", body: "Sehr **groß** 👍", isMarkdown: true),
            TimelineItem(id: "t", role: .thinking, body: "Reading files"),
        ]
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let text = draw(timeline, &scroll, &layout)
        #expect(
            text
                == screen(
                    [
                        "  ── Monday, 30 November ──", String(repeating: " ", count: 11) + "Wie groß ist 中文?", "",
                        "Sybil", "Sehr groß 👍", "",
                        "✻ Reading files", "",
                    ], thumb: nil))
    }

    @Test func scrollingUpAnchorsAndNewItemsAreCountedNotFollowed() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        var timeline = items(0..<20)
        _ = draw(timeline, &scroll, &layout)
        scroll.wheelUp()
        var text = draw(timeline, &scroll, &layout)
        #expect(scroll.position == .anchored(itemId: "m9", lineOffset: 0))
        #expect(text.split(separator: "\n").first == "· m9                         │")
        timeline += items(20..<22)
        text = draw(timeline, &scroll, &layout)
        let rows = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.first == "· m9                         │")
        #expect(rows.last == "· m16      ↓ 2 new           │")
        #expect(scroll.newItemCount == 2)
        #expect(scroll.itemsBelow == 5)
        scroll.scrollToBottom()
        text = draw(timeline, &scroll, &layout)
        #expect(text == screen((14..<22).map { "· m\($0)" }, thumb: 6..<8))
    }

    @Test func scrollingDownToTheBottomFollowsAgain() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        var timeline = items(0..<20)
        _ = draw(timeline, &scroll, &layout)
        scroll.pageUp()
        _ = draw(timeline, &scroll, &layout)
        #expect(scroll.position == .anchored(itemId: "m5", lineOffset: 0))
        scroll.pageDown()
        scroll.wheelDown()
        _ = draw(timeline, &scroll, &layout)
        #expect(scroll.isFollowingBottom)
        timeline += items(20..<21)
        let text = draw(timeline, &scroll, &layout)
        #expect(text.split(separator: "\n").last == "· m20                        ┃")
    }

    @Test func prependingOlderItemsKeepsTheAnchoredItemOnItsRow() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        var timeline = items(0..<20)
        _ = draw(timeline, &scroll, &layout)
        scroll.scroll(byLines: -5)
        let before = draw(timeline, &scroll, &layout)
        timeline = items(0..<10, prefix: "o") + timeline
        let after = draw(timeline, &scroll, &layout)
        let strip = { (text: String) in text.split(separator: "\n").map { $0.dropLast() } }
        #expect(strip(after) == strip(before))
        #expect(scroll.position == .anchored(itemId: "m7", lineOffset: 0))
    }

    @Test func theTopIsNearTheOldestItem() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let timeline = items(0..<40)
        _ = draw(timeline, &scroll, &layout)
        #expect(!scroll.isNearTop)
        scroll.scrollToTop()
        let text = draw(timeline, &scroll, &layout)
        #expect(text == screen((0..<8).map { "· m\($0)" }, thumb: 0..<1))
        #expect(scroll.isNearTop)
        #expect(scroll.itemsBelow == 32)
        scroll.scroll(byLines: 8)
        _ = draw(timeline, &scroll, &layout)
        #expect(scroll.isNearTop)
        scroll.scroll(byLines: 1)
        _ = draw(timeline, &scroll, &layout)
        #expect(!scroll.isNearTop)
        scroll.scroll(byLines: -100)
        _ = draw(timeline, &scroll, &layout)
        #expect(scroll.position == .anchored(itemId: "m0", lineOffset: 0))
    }

    @Test func anAnchorInsideATallItemKeepsItsLineOffset() {
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        let tall = TimelineItem(id: "tall", role: .system, body: (1...12).map { "line \($0)" }.joined(separator: "\n"))
        let timeline = [tall] + items(0..<10)
        _ = draw(timeline, &scroll, &layout)
        scroll.scrollToTop()
        scroll.scroll(byLines: 4)
        let text = draw(timeline, &scroll, &layout)
        #expect(scroll.position == .anchored(itemId: "tall", lineOffset: 4))
        #expect(text.split(separator: "\n").first?.hasPrefix("line 5 ") == true)
    }

    @Test func onlyAScreensWorthOfAHundredThousandItemsIsLaidOut() {
        let timeline = CountingItems(count: 100_000)
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        var grid = CellGrid(columns: 30, rows: 8)
        view.draw(into: &grid, in: grid.bounds, items: timeline, scroll: &scroll, layout: &layout, theme: theme)
        #expect(grid.text(row: 7) == "· m99999                     ┃")
        #expect(layout.layoutCount <= 10)
        #expect(timeline.counter.reads <= 60)
        scroll.pageUp()
        scroll.pageUp()
        view.draw(into: &grid, in: grid.bounds, items: timeline, scroll: &scroll, layout: &layout, theme: theme)
        #expect(grid.text(row: 0).hasPrefix("· m99978 "))
        #expect(layout.layoutCount <= 30)
        scroll.scrollToTop()
        view.draw(into: &grid, in: grid.bounds, items: timeline, scroll: &scroll, layout: &layout, theme: theme)
        #expect(grid.text(row: 0).hasPrefix("· m0 "))
        #expect(layout.layoutCount <= 40)
        #expect(timeline.counter.reads <= 400)
    }
}

@Suite struct TimelineViewEdgeTests {
    @Test func aLastItemCutAtTheBottomStillShowsTheIndicator() {
        let tall = TimelineItem(id: "tall", role: .system, body: (1...12).map { "line \($0)" }.joined(separator: "\n"))
        var scroll = TimelineScroll()
        var layout = TimelineLayout()
        var grid = CellGrid(columns: 30, rows: 8)
        scroll.scrollToTop()
        TimelineView().draw(
            into: &grid, in: grid.bounds, items: [tall], scroll: &scroll, layout: &layout, theme: .monochrome)
        #expect(grid.text(row: 0) == "line 1                       ┃")
        #expect(grid.text(row: 7) == "line 8                       │")
    }
}
