import SybilCore
import SybilTUI
import SybilTimeline

// `tui-timeline`: the terminal timeline (`TimelineView` + `TimelineLayout` + `TimelineScroll`)
// drawing a 200×60 frame. Following the bottom of a 1,000-item timeline is the baseline; a
// 100,000-item one should cost the same (the view lays out only what fills the screen). Then
// the same frame scrolled to the middle (three lines a frame), and the first display of 10,000
// stored Markdown replies: from having the items to the first painted frame at the bottom,
// with an empty layout cache.

private func timelineItems(_ count: Int, seed: UInt64) -> [TimelineItem] {
    let random = SeededRandomSource(seed: seed)
    var replies: [String] = []
    for _ in 0..<64 { replies.append(markdownReply(random)) }
    return (0..<count).map { index in
        if index % 2 == 0 {
            return TimelineItem(id: "m\(index)", role: .user, body: "Frage \(index): wie groß ist 中文 👍?")
        }
        return TimelineItem(
            id: "m\(index)", role: .assistant, author: "Sybil", body: replies[index % replies.count], isMarkdown: true)
    }
}

/// The best per-frame time over `frames` frames drawn with a warm layout cache.
private func frameSeconds(
    items: [TimelineItem], frames: Int, scroll start: TimelineScroll, move: (inout TimelineScroll, Int) -> Void
) -> Double {
    var grid = CellGrid(columns: 200, rows: 60)
    let view = TimelineView()
    var layout = TimelineLayout()
    var scroll = start
    for frame in 0..<4 {
        move(&scroll, frame)
        view.draw(into: &grid, in: grid.bounds, items: items, scroll: &scroll, layout: &layout, theme: .dark)
    }
    let seconds = best {
        for frame in 0..<frames {
            move(&scroll, frame)
            view.draw(into: &grid, in: grid.bounds, items: items, scroll: &scroll, layout: &layout, theme: .dark)
        }
        blackHole(grid)
    }
    return seconds / Double(frames)
}

func benchmarkTUITimeline() {
    let small = timelineItems(scaled(1_000), seed: 15)
    let large = timelineItems(scaled(100_000, atLeast: 2), seed: 15)
    let frames = scaled(200)
    let following = { (_: inout TimelineScroll, _: Int) in }
    let small1k = frameSeconds(items: small, frames: frames, scroll: TimelineScroll(), move: following)
    let large100k = frameSeconds(items: large, frames: frames, scroll: TimelineScroll(), move: following)
    // The middle: anchored to item 50,000, scrolling three lines down or up each frame (new
    // items come into view, so some frames lay items out).
    var middle = TimelineScroll()
    var anchor = PrependAnchor(rowId: "m\(large.count / 2)", rowMinY: 0, contentOffset: 0, at: clock.now)
    middle.restore(&anchor)
    let scrolling = { (scroll: inout TimelineScroll, frame: Int) in
        if (frame / 50) % 2 == 0 { scroll.wheelDown() } else { scroll.wheelUp() }
    }
    let middle100k = frameSeconds(items: large, frames: frames, scroll: middle, move: scrolling)
    // Cold frame: a new layout cache each time.
    let cold = best {
        var grid = CellGrid(columns: 200, rows: 60)
        var layout = TimelineLayout()
        var scroll = TimelineScroll()
        TimelineView().draw(into: &grid, in: grid.bounds, items: large, scroll: &scroll, layout: &layout, theme: .dark)
        blackHole(grid)
    }
    let stored = Array(large.prefix(scaled(10_000)))
    var laidOut = 0
    let firstDisplay = best {
        var grid = CellGrid(columns: 200, rows: 60)
        var layout = TimelineLayout()
        var scroll = TimelineScroll()
        TimelineView().draw(into: &grid, in: grid.bounds, items: stored, scroll: &scroll, layout: &layout, theme: .dark)
        laidOut = layout.layoutCount
        blackHole(grid)
    }
    let ms = { (seconds: Double) in format(seconds * 1000, 3) }
    print(
        "tui-timeline 200×60 frame, warm cache: following the bottom of 1,000 items \(ms(small1k)) ms, "
            + "of 100,000 items \(ms(large100k)) ms (ratio \(format(large100k / small1k)) x), "
            + "scrolled in the middle of 100,000 (3 lines a frame) \(ms(middle100k)) ms "
            + "(ratio \(format(middle100k / small1k)) x); cold frame (empty cache) \(ms(cold)) ms; "
            + "first display of 10,000 stored Markdown messages \(ms(firstDisplay)) ms (\(laidOut) items laid out)")
}
