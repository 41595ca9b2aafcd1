import SybilTimeline
import SybilWire
import Testing

@Suite("Pending look-back before the newest window")
struct PendingLookBackTests {
    private static let minute: Int64 = 60_000

    /// A confirmed timeline whose window's oldest row is at `oldest` ms, with older rows
    /// before it at cursor `c-1`, and the given pending messages.
    private func timeline(oldest: Int64, pending: [PendingMessage], hasOlder: Bool = true) -> WorkspaceTimeline {
        var timeline = WorkspaceTimeline()
        timeline.apply(
            Fixtures.snapshot(
                [Fixtures.canonical("r-2", at: oldest + 10), Fixtures.canonical("r-1", at: oldest)],
                hasOlder: hasOlder, cursor: hasOlder ? "c-1" : nil))
        for message in pending { timeline.addPending(message) }
        return timeline
    }

    private func page(_ rows: [TimelineBlock], next: String?) -> WorkspaceChatPage {
        WorkspaceChatPage(threadId: nil, timeline: rows, hasOlderEntries: next != nil, oldestCursor: next)
    }

    @Test func aMessageWrittenBeforeTheWindowIsLookedForOnce() {
        let oldest = 100 * Self.minute
        let message = PendingMessage(operationId: "op-1", text: "hi", createdAt: oldest - Self.minute)
        var lookBack = PendingLookBack()
        let timeline = timeline(oldest: oldest, pending: [message])
        let plan = lookBack.plan(for: timeline)
        #expect(plan?.cursor == "c-1")
        #expect(plan?.operationIds == ["op-1"])
        #expect(plan?.stopBefore == oldest - Self.minute - PendingLookBack.clockAllowance)
        // The same window again (a poll): nothing more to read.
        #expect(lookBack.plan(for: timeline) == nil)
    }

    @Test func theClockAllowanceIsTheBoundary() {
        let oldest = 100 * Self.minute
        let inside = PendingMessage(
            operationId: "inside", text: "a", createdAt: oldest + PendingLookBack.clockAllowance - 1)
        let outside = PendingMessage(
            operationId: "outside", text: "b", createdAt: oldest + PendingLookBack.clockAllowance)
        var lookBack = PendingLookBack()
        #expect(lookBack.plan(for: timeline(oldest: oldest, pending: [inside, outside]))?.operationIds == ["inside"])
        var other = PendingLookBack()
        #expect(other.plan(for: timeline(oldest: oldest, pending: [outside])) == nil)
    }

    @Test func nothingIsReadWithoutOlderRowsOrPendingMessages() {
        var lookBack = PendingLookBack()
        let message = PendingMessage(operationId: "op-1", text: "hi", createdAt: 0)
        #expect(lookBack.plan(for: timeline(oldest: Self.minute, pending: [message], hasOlder: false)) == nil)
        #expect(lookBack.plan(for: timeline(oldest: Self.minute, pending: [])) == nil)
        #expect(lookBack.plan(for: WorkspaceTimeline()) == nil)
    }

    @Test func aMovedWindowIsLookedBehindAgain() {
        let message = PendingMessage(operationId: "op-1", text: "hi", createdAt: 0)
        var lookBack = PendingLookBack()
        var timeline = timeline(oldest: Self.minute, pending: [message])
        #expect(lookBack.plan(for: timeline) != nil)
        timeline.apply(
            Fixtures.snapshot([Fixtures.canonical("r-9", at: 2 * Self.minute)], hasOlder: true, cursor: "c-5"))
        #expect(lookBack.plan(for: timeline)?.cursor == "c-5")
    }

    @Test func aLookBackCutShortIsTriedAgainFromTheSamePlace() throws {
        let message = PendingMessage(operationId: "op-1", text: "hi", createdAt: 0)
        var lookBack = PendingLookBack()
        let timeline = timeline(oldest: Self.minute, pending: [message])
        let planned = lookBack.plan(for: timeline)
        let plan = try #require(planned)
        lookBack.forget(plan)
        #expect(lookBack.plan(for: timeline) == plan)
    }

    @Test func readingStopsWhenEverythingIsFound() {
        let plan = PendingLookBack.Plan(cursor: "c-1", operationIds: ["op-1", "op-2"], stopBefore: 0)
        var progress = PendingLookBack.Progress(plan)
        let first = page(
            [Fixtures.canonical("u-2", .user, at: 50, operationId: "op-2"), Fixtures.canonical("x", at: 60)],
            next: "c-2")
        #expect(progress.read(first) == "c-2")
        // A live row's or a reply's operation id is not a user row: only user rows confirm.
        let second = page(
            [
                Fixtures.canonical("u-1", .user, at: 40, operationId: "op-1"),
                Fixtures.canonical("a", .agentReply, at: 41, operationId: "op-3"),
            ], next: "c-3")
        #expect(progress.read(second) == nil)
        #expect(progress.found == ["op-2", "op-1"])
        #expect(progress.pagesRead == 2)
    }

    @Test func readingStopsPastTheMessagesTimeOrAtTheOldestPage() {
        let plan = PendingLookBack.Plan(cursor: "c-1", operationIds: ["op-1"], stopBefore: 1_000)
        var progress = PendingLookBack.Progress(plan)
        #expect(progress.read(page([Fixtures.canonical("a", at: 1_000)], next: "c-2")) == "c-2")
        #expect(progress.read(page([Fixtures.canonical("b", at: 999)], next: "c-3")) == nil)
        var last = PendingLookBack.Progress(plan)
        #expect(last.read(page([Fixtures.canonical("c", at: 5_000)], next: nil)) == nil)
        #expect(last.found.isEmpty)
    }

    @Test func readingStopsAfterTheMostPages() {
        let plan = PendingLookBack.Plan(cursor: "c-0", operationIds: ["op-1"], stopBefore: .min)
        var progress = PendingLookBack.Progress(plan)
        for index in 1..<PendingLookBack.maximumPages {
            #expect(progress.read(page([Fixtures.canonical("r-\(index)")], next: "c-\(index)")) == "c-\(index)")
        }
        #expect(progress.read(page([Fixtures.canonical("r-last")], next: "c-last")) == nil)
        #expect(progress.pagesRead == PendingLookBack.maximumPages)
    }

    @Test func readingStopsAtAPageThatLeavesTheCursorWhereItWas() {
        // A desktop that says older rows exist but answers with nothing before the same cursor
        // would give the same page again: reading ends instead of asking up to the most pages.
        let plan = PendingLookBack.Plan(cursor: "c-1", operationIds: ["op-1"], stopBefore: .min)
        var first = PendingLookBack.Progress(plan)
        #expect(first.read(page([], next: "c-1")) == nil)
        var later = PendingLookBack.Progress(plan)
        #expect(later.read(page([Fixtures.canonical("a")], next: "c-2")) == "c-2")
        #expect(later.read(page([], next: "c-2")) == nil)
        #expect(later.pagesRead == 2)
    }

    @Test func extremeTimestampsDoNotOverflow() {
        let late = PendingMessage(operationId: "late", text: "a", createdAt: .min)
        var lookBack = PendingLookBack()
        var timeline = WorkspaceTimeline()
        timeline.apply(Fixtures.snapshot([Fixtures.canonical("r", at: .max)], hasOlder: true, cursor: "c"))
        timeline.addPending(late)
        let plan = lookBack.plan(for: timeline)
        #expect(plan?.operationIds == ["late"])
        #expect(plan?.stopBefore == .min)
    }

    @Test func confirmingFromOlderHistoryCompletesOnlyPendingMessages() {
        var timeline = timeline(
            oldest: Self.minute, pending: [PendingMessage(operationId: "op-1", text: "hi", createdAt: 0)])
        let revision = timeline.revision
        let outcome = timeline.confirmFromOlderHistory(["op-1", "someone-else"])
        #expect(outcome.confirmedOperations == ["op-1"])
        #expect(outcome.changed)
        #expect(timeline.pending.isEmpty)
        #expect(timeline.revision == revision + 1)
        #expect(timeline.confirmFromOlderHistory(["op-1"]) == .unchanged)
    }
}
