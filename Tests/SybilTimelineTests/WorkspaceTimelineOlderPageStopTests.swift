import SybilTimeline
import SybilWire
import Testing

/// A desktop that says older rows exist but answers the page before the window with nothing
/// new must not be asked without end: the timeline stops older loading for the window.
@Suite("Workspace timeline: older pages that bring nothing new", .timeLimit(.minutes(2)))
struct WorkspaceTimelineOlderPageStopTests {
    typealias F = Fixtures

    /// A confirmed window of rows c and d, with older rows before cursor `cur-c`.
    private func windowWithOlderRows() -> WorkspaceTimeline {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([F.canonical("c"), F.canonical("d")], hasOlder: true, cursor: "cur-c"))
        return timeline
    }

    private func page(_ ids: [String], hasOlder: Bool = true, cursor: String?) -> WorkspaceChatPage {
        WorkspaceChatPage(
            threadId: nil, timeline: ids.map { F.canonical($0) }, hasOlderEntries: hasOlder, oldestCursor: cursor)
    }

    /// Prepends `count` empty pages, each moving the cursor on by one (`cur-1`, `cur-2`, …,
    /// starting after `first`).
    private func prependEmptyPages(_ count: Int, to timeline: inout WorkspaceTimeline, numberedFrom first: Int = 1) {
        for index in first..<(first + count) {
            let cursor = timeline.oldestCursor ?? ""
            timeline.prependOlderPage(page([], cursor: "cur-\(index)"), requestedWith: cursor)
        }
    }

    @Test(arguments: [
        (label: "empty", rows: [String](), cursor: String?.some("cur-c")),
        (label: "rows already shown", rows: ["c"], cursor: "cur-c"),
        (label: "empty, without a cursor", rows: [], cursor: nil),
    ])
    func aPageWithNothingNewBeforeAnUnmovedCursorStopsOlderLoading(label: String, rows: [String], cursor: String?) {
        var timeline = windowWithOlderRows()
        let outcome = timeline.prependOlderPage(page(rows, cursor: cursor), requestedWith: "cur-c")
        #expect(outcome.changed, "\(label): the stop is a visible change")
        #expect(timeline.olderPageStop == .cursorDidNotMove, "\(label)")
        #expect(!timeline.hasOlderEntries, "\(label): nothing more is asked for this window")
        #expect(timeline.rows.map(\.id) == ["row:c", "row:d"])
        #expect(!timeline.prependOlderPage(page(["b"], cursor: "cur-b"), requestedWith: "cur-c").changed)
    }

    @Test func onlyANewestWindowWithHistoryLiftsTheStop() {
        var timeline = windowWithOlderRows()
        timeline.prependOlderPage(page([], cursor: "cur-c"), requestedWith: "cur-c")
        timeline.apply(F.snapshot([], state: .loading))
        #expect(timeline.olderPageStop == .cursorDidNotMove, "history unavailable keeps the pagination")
        #expect(!timeline.hasOlderEntries)
        timeline.apply(F.snapshot([F.canonical("c"), F.canonical("d")], hasOlder: true, cursor: "cur-c"))
        #expect(timeline.olderPageStop == nil)
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-c")
    }

    @Test func emptyPagesWithAMovingCursorAreFollowedUpToTheLimit() {
        var timeline = windowWithOlderRows()
        let limit = WorkspaceTimeline.maximumEmptyOlderPagesFollowed
        #expect(limit == 3)
        prependEmptyPages(limit, to: &timeline)
        #expect(timeline.olderPageStop == nil, "\(limit) empty pages in a row are followed")
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-\(limit)")
        prependEmptyPages(1, to: &timeline, numberedFrom: limit + 1)
        #expect(timeline.olderPageStop == .tooManyEmptyPages, "one more empty page stops")
        #expect(!timeline.hasOlderEntries)
        #expect(timeline.rows.map(\.id) == ["row:c", "row:d"])
    }

    @Test func aPageWithNewRowsOrANewWindowStartsTheCountAgain() {
        var timeline = windowWithOlderRows()
        let limit = WorkspaceTimeline.maximumEmptyOlderPagesFollowed
        prependEmptyPages(limit, to: &timeline)
        timeline.prependOlderPage(page(["b"], cursor: "cur-b"), requestedWith: "cur-\(limit)")
        prependEmptyPages(limit, to: &timeline, numberedFrom: 10)
        #expect(timeline.olderPageStop == nil)
        timeline.apply(F.snapshot([F.canonical("c"), F.canonical("d")], hasOlder: true, cursor: "cur-c"))
        prependEmptyPages(limit, to: &timeline, numberedFrom: 20)
        #expect(timeline.olderPageStop == nil)
        #expect(timeline.hasOlderEntries)
    }

    @Test func anEmptyLastPageIsTheEndNotAStop() {
        var timeline = windowWithOlderRows()
        timeline.prependOlderPage(page([], hasOlder: false, cursor: nil), requestedWith: "cur-c")
        #expect(timeline.olderPageStop == nil)
        #expect(!timeline.hasOlderEntries)
    }

    @Test func aPageWithRowsButAnUnmovedCursorIsAskedOnceMore() {
        // The rows are new, so the page is no repeat yet; the same page asked again is.
        var timeline = windowWithOlderRows()
        timeline.prependOlderPage(page(["b"], cursor: "cur-c"), requestedWith: "cur-c")
        #expect(timeline.olderPageStop == nil && timeline.hasOlderEntries)
        timeline.prependOlderPage(page(["b"], cursor: "cur-c"), requestedWith: "cur-c")
        #expect(timeline.olderPageStop == .cursorDidNotMove)
        #expect(timeline.rows.map(\.id) == ["row:b", "row:c", "row:d"])
    }
}
