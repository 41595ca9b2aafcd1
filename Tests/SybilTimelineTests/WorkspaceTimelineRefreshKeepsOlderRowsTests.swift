import SybilTimeline
import SybilWire
import Testing

/// A newest window (polled every 60 s, or 10 s while a run is pending) must not throw away
/// the older pages a reader loaded: the rows they read would vanish and be loaded again.
@Suite("Workspace timeline: a newest window keeps the older pages loaded", .timeLimit(.minutes(2)))
struct WorkspaceTimelineRefreshKeepsOlderRowsTests {
    typealias F = Fixtures

    /// A confirmed row whose place in history is `order`.
    private func row(_ id: String, _ order: UInt64, origin: TimelineOrigin = .canonical) -> TimelineBlock {
        TimelineBlock(
            type: .agentReply, id: id, origin: origin, sourceOrder: [order], timestamp: Int64(order), text: id,
            runId: origin == .live ? "run-1" : nil)
    }

    private func page(_ rows: [TimelineBlock], hasOlder: Bool = true, cursor: String?) -> WorkspaceChatPage {
        WorkspaceChatPage(threadId: nil, timeline: rows, hasOlderEntries: hasOlder, oldestCursor: cursor)
    }

    /// Rows c (3) and d (4) as the newest window, with a page of a (1) and b (2) loaded before
    /// them and more before that.
    private func windowWithAnOlderPage() -> WorkspaceTimeline {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([row("c", 3), row("d", 4)], hasOlder: true, cursor: "cur-c"))
        timeline.prependOlderPage(page([row("a", 1), row("b", 2)], cursor: "cur-a"), requestedWith: "cur-c")
        #expect(timeline.window.map(\.id) == ["a", "b", "c", "d"])
        return timeline
    }

    @Test func anOverlappingNewestWindowKeepsTheOlderRowsAndTheirPagination() {
        var timeline = windowWithAnOlderPage()
        let epoch = timeline.displayEpoch
        let outcome = timeline.apply(F.snapshot([row("d", 4), row("e", 5)], hasOlder: true, cursor: "cur-d"))
        #expect(outcome.changed && !outcome.displayEpochAdvanced)
        #expect(timeline.window.map(\.id) == ["a", "b", "c", "d", "e"])
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-a", "the older part's cursor, not cur-d")
        #expect(timeline.displayEpoch == epoch)
        // The next older page continues from the kept rows.
        timeline.prependOlderPage(page([row("z", 0)], hasOlder: false, cursor: nil), requestedWith: "cur-a")
        #expect(timeline.window.map(\.id) == ["z", "a", "b", "c", "d", "e"])
    }

    @Test func theSnapshotDecidesItsOwnRangeAndNoRowIdIsShownTwice() {
        var timeline = windowWithAnOlderPage()
        // d (4) is in the snapshot's range but no longer in it: gone. b is carried by the
        // snapshot under a newer place: shown once, where the snapshot has it. A live row
        // before the snapshot's range describes a run that has settled since: gone.
        timeline.prependOlderPage(
            page([row("live-0", 0, origin: .live)], cursor: "cur-0"), requestedWith: "cur-a")
        let outcome = timeline.apply(F.snapshot([row("c", 3), row("b", 6)], hasOlder: true, cursor: "cur-c"))
        #expect(!outcome.displayEpochAdvanced)
        #expect(timeline.window.map(\.id) == ["a", "c", "b"])
        #expect(timeline.rows.map(\.id) == ["row:a", "row:c", "row:b"])
        // The oldest page (the live row) kept nothing: older rows load again from the cursor
        // that followed the oldest page kept.
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-a")
    }

    @Test func anEqualNewestWindowChangesNothingVisible() {
        var timeline = windowWithAnOlderPage()
        let revision = timeline.revision
        let snapshot = F.snapshot([row("c", 3), row("d", 4)], hasOlder: true, cursor: "cur-c")
        #expect(!timeline.apply(snapshot).changed)
        #expect(!timeline.apply(snapshot).changed)
        #expect(timeline.revision == revision)
        #expect(timeline.window.map(\.id) == ["a", "b", "c", "d"])
        #expect(timeline.oldestCursor == "cur-a")
    }

    @Test func theOlderPartsStopStaysWhileItsRowsAreKept() {
        var timeline = windowWithAnOlderPage()
        timeline.prependOlderPage(page([], cursor: "cur-a"), requestedWith: "cur-a")
        #expect(timeline.olderPageStop == .cursorDidNotMove)
        timeline.apply(F.snapshot([row("d", 4), row("e", 5)], hasOlder: true, cursor: "cur-d"))
        #expect(timeline.window.map(\.id) == ["a", "b", "c", "d", "e"])
        #expect(timeline.olderPageStop == .cursorDidNotMove, "the newest window says nothing about the older end")
        #expect(!timeline.hasOlderEntries && timeline.oldestCursor == "cur-a")
        // A newest window from the start of the loaded rows keeps nothing older: its own
        // pagination, and the stop is lifted.
        timeline.apply(F.snapshot([row("a", 1), row("b", 2), row("e", 5)], hasOlder: true, cursor: "cur-a2"))
        #expect(timeline.window.map(\.id) == ["a", "b", "e"])
        #expect(timeline.olderPageStop == nil)
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-a2")
    }

    @Test func aNewestWindowThatDoesNotOverlapStillReplacesTheWindow() {
        var timeline = windowWithAnOlderPage()
        let outcome = timeline.apply(F.snapshot([row("x", 10), row("y", 11)], hasOlder: true, cursor: "cur-x"))
        #expect(outcome.displayEpochAdvanced)
        #expect(timeline.window.map(\.id) == ["x", "y"], "older rows are not kept across a jump")
        #expect(timeline.oldestCursor == "cur-x")
        // An overlapping window after that keeps older rows again.
        timeline.apply(F.snapshot([row("y", 11), row("z", 12)], hasOlder: true, cursor: "cur-y"))
        #expect(timeline.window.map(\.id) == ["x", "y", "z"])
        #expect(timeline.oldestCursor == "cur-x")
    }

    @Test func keptRowsAreBoundedAndTheDroppedPagesCanBeLoadedAgain() {
        let limit = WorkspaceTimeline.maximumWindowRows
        let pageSize = 1_000
        let pages = limit / pageSize + 2
        // Newest window: rows n-0 … (orders above every page), then `pages` older pages of
        // `pageSize` rows each, page k before cursor cur-k.
        let base = UInt64(pages * pageSize)
        func pageRows(_ k: Int) -> [TimelineBlock] {
            let first = base - UInt64((k + 1) * pageSize)
            return (0..<pageSize).map { row("p\(k)-\($0)", first + UInt64($0)) }
        }
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([row("n-0", base), row("n-1", base + 1)], hasOlder: true, cursor: "cur-0"))
        for k in 0..<pages {
            timeline.prependOlderPage(page(pageRows(k), cursor: "cur-\(k + 1)"), requestedWith: "cur-\(k)")
        }
        #expect(timeline.window.count == pages * pageSize + 2, "pages the reader loads are never dropped")
        // Stop older loading at the old end: the stop goes with the pages dropped.
        timeline.prependOlderPage(page([], cursor: "cur-\(pages)"), requestedWith: "cur-\(pages)")
        #expect(timeline.olderPageStop != nil)

        let outcome = timeline.apply(
            F.snapshot([row("n-1", base + 1), row("n-2", base + 2)], hasOlder: true, cursor: "cur-n1"))
        #expect(!outcome.displayEpochAdvanced)
        // n-0 and the newest pages that fit: limit - 2 rows of the snapshot leave room for the
        // 1 row of n-0 and (limit - 3) / pageSize whole pages.
        let keptPages = (limit - 3) / pageSize
        #expect(timeline.window.count == 3 + keptPages * pageSize)
        #expect(timeline.window.count <= limit)
        #expect(timeline.window.first?.id == "p\(keptPages - 1)-0")
        #expect(timeline.window.suffix(3).map(\.id) == ["n-0", "n-1", "n-2"])
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-\(keptPages)")
        #expect(timeline.olderPageStop == nil)
        // The first dropped page loads again from that cursor and joins in place.
        timeline.prependOlderPage(
            page(pageRows(keptPages), cursor: "cur-\(keptPages + 1)"), requestedWith: "cur-\(keptPages)")
        #expect(timeline.window.first?.id == "p\(keptPages)-0")
        #expect(timeline.oldestCursor == "cur-\(keptPages + 1)")
        // A newest window as large as the bound is kept whole and keeps nothing older.
        let big = (0..<limit).map { row($0 == 0 ? "n-2" : "m\($0)", base + 2 + UInt64($0)) }
        timeline.apply(F.snapshot(big, hasOlder: true, cursor: "cur-n2"))
        #expect(timeline.window.count == limit)
        #expect(timeline.window.first?.id == "n-2")
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "cur-n2")
    }
}
