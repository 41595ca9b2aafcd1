import SybilTimeline
import SybilWire
import Testing

/// Applying snapshots onto newer live state (SPEC §4.3) and the epochs and revisions of
/// SPEC §4.4.
@Suite("Workspace timeline", .timeLimit(.minutes(2)))
struct WorkspaceTimelineTests {
    typealias F = Fixtures

    @Test func firstReadySnapshotFillsTheWindow() {
        var timeline = WorkspaceTimeline()
        let outcome = timeline.apply(F.snapshot([F.canonical("a"), F.canonical("b")], hasOlder: true, cursor: "c1"))
        #expect(outcome.changed)
        #expect(timeline.isConfirmed)
        #expect(timeline.rows.map(\.id) == ["row:a", "row:b"])
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "c1")
        #expect(timeline.revision == 1)
        #expect(timeline.displayEpoch == 0, "an empty window replaced is not a jump")
    }

    @Test func revisionAdvancesOnlyWhenSomethingChanged() {
        var timeline = WorkspaceTimeline()
        let snapshot = F.snapshot([F.canonical("a")], overlay: F.overlay(epoch: 1, revision: 1, [F.live("l1")]))
        timeline.apply(snapshot)
        #expect(timeline.revision == 1)
        let again = timeline.apply(snapshot)
        #expect(!again.changed)
        #expect(timeline.revision == 1)
        timeline.apply(F.snapshot([F.canonical("a", text: "edited")], overlay: snapshot.overlay))
        #expect(timeline.revision == 2)
        let sameOverlay = timeline.applyOverlay(snapshot.overlay)
        #expect(!sameOverlay.changed, "the same overlay changes nothing")
        #expect(timeline.revision == 2)
    }

    @Test func unavailableHistoryKeepsWindowAndPaginationAndTakesOnlyASameEpochOverlay() {
        var timeline = WorkspaceTimeline()
        timeline.apply(
            F.snapshot(
                [F.canonical("a"), F.canonical("b")], hasOlder: true, cursor: "c1",
                overlay: F.overlay(epoch: 3, revision: 1, [F.live("l1")])))
        let unavailable = WorkspaceChatLoadState.unavailable(reason: "index rebuilding")
        // Same epoch, newer revision: applied; the window and cursor stay.
        let sameEpoch = F.overlay(epoch: 3, revision: 2, [F.live("l1", text: "more")])
        let outcome = timeline.apply(F.snapshot([], state: unavailable, overlay: sameEpoch))
        #expect(outcome.changed)
        #expect(timeline.window.map(\.id) == ["a", "b"])
        #expect(timeline.hasOlderEntries && timeline.oldestCursor == "c1")
        #expect(timeline.overlay == sameEpoch)
        #expect(timeline.loadState == unavailable)
        // Another epoch: ignored, even though it is newer.
        let otherEpoch = F.overlay(epoch: 4, revision: 1, [F.live("l9")])
        timeline.apply(F.snapshot([], state: .loading, overlay: otherEpoch))
        #expect(timeline.overlay == sameEpoch)
        #expect(timeline.window.map(\.id) == ["a", "b"])
        #expect(timeline.displayEpoch == 0)
    }

    @Test func aSnapshotDoesNotRollBackANewerLiveOverlay() {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([F.canonical("a")]))
        let newer = F.overlay(epoch: 2, revision: 5, [F.live("l1", text: "streamed further")])
        timeline.applyOverlay(newer)
        let older = F.overlay(epoch: 2, revision: 3, [F.live("l1", text: "older")])
        timeline.apply(F.snapshot([F.canonical("a")], overlay: older))
        #expect(timeline.overlay == newer)
        let olderUpdate = timeline.applyOverlay(older)
        #expect(!olderUpdate.changed)
    }

    @Test func nonOverlappingRefreshOfANonEmptyWindowAdvancesTheDisplayEpoch() {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([F.canonical("a"), F.canonical("b")]))
        let overlapping = timeline.apply(F.snapshot([F.canonical("b"), F.canonical("c")]))
        #expect(!overlapping.displayEpochAdvanced)
        #expect(timeline.displayEpoch == 0)
        let disjoint = timeline.apply(F.snapshot([F.canonical("x"), F.canonical("y")]))
        #expect(disjoint.displayEpochAdvanced)
        #expect(timeline.displayEpoch == 1)
    }

    @Test func emptyUnconfirmedChatStartingAFreshLoadAdvancesTheEpoch() {
        var timeline = WorkspaceTimeline()
        let first = timeline.beginFreshLoad()
        #expect(first)
        #expect(timeline.displayEpoch == 1)
        timeline.apply(F.snapshot([]))
        let confirmed = timeline.beginFreshLoad()
        #expect(!confirmed, "a confirmed chat, even empty, keeps its epoch")
        #expect(timeline.displayEpoch == 1)
        var unconfirmed = WorkspaceTimeline()
        unconfirmed.apply(F.snapshot([F.canonical("a")], state: .loading))
        let loadingOnly = unconfirmed.beginFreshLoad()
        #expect(loadingOnly, "history never confirmed and no rows")
    }

    @Test func threadChangeAdvancesTheEpochAndClears() {
        var timeline = WorkspaceTimeline(viewport: .subagent(threadId: "t1"))
        timeline.apply(F.snapshot([F.canonical("a")]))
        timeline.switchViewport(to: .subagent(threadId: "t2"))
        #expect(timeline.viewport.description == "subagent-t2")
        #expect(timeline.displayEpoch == 1)
        #expect(timeline.rows.isEmpty && !timeline.isConfirmed)
        timeline.switchViewport(to: .subagent(threadId: "t2"))
        #expect(timeline.displayEpoch == 1, "the same thread is no change")
        #expect(TimelineViewport.parentChat.description == "parent-chat")
    }

    @Test func prependingOlderPagesKeepsIdentityAndOrder() {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([F.canonical("c"), F.canonical("d")], hasOlder: true, cursor: "cur-c"))
        let page = WorkspaceChatPage(
            threadId: nil, timeline: [F.canonical("a"), F.canonical("b"), F.canonical("c")], hasOlderEntries: false,
            oldestCursor: nil)
        let outcome = timeline.prependOlderPage(page, requestedWith: "cur-c")
        #expect(outcome.changed && !outcome.displayEpochAdvanced)
        #expect(timeline.rows.map(\.id) == ["row:a", "row:b", "row:c", "row:d"])
        #expect(!timeline.hasOlderEntries && timeline.oldestCursor == nil)
    }

    @Test func aPageForAnEarlierCursorIsNotPrepended() {
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot([F.canonical("c")], hasOlder: true, cursor: "cur-c"))
        timeline.apply(F.snapshot([F.canonical("x")], hasOlder: true, cursor: "cur-x"))
        let page = WorkspaceChatPage(
            threadId: nil, timeline: [F.canonical("b")], hasOlderEntries: true, oldestCursor: "cur-b")
        let stale = timeline.prependOlderPage(page, requestedWith: "cur-c")
        #expect(!stale.changed)
        #expect(timeline.rows.map(\.id) == ["row:x"])
    }

    @Test func mergedRowsAreWindowThenLiveThenSending() {
        var timeline = WorkspaceTimeline()
        timeline.addPending(PendingMessage(operationId: "op-2", text: "second", createdAt: 5))
        timeline.apply(
            F.snapshot(
                [F.canonical("a")],
                overlay: F.overlay(
                    epoch: 1, revision: 1,
                    [F.live("u1", .user, run: "r", operationId: "op-1"), F.live("l1", .agentReply, run: "r")])))
        #expect(timeline.rows.map(\.id) == ["row:a", "operation:op-1", "run:r/row:l1", "operation:op-2"])
        #expect(timeline.rows.map(\.state) == [.confirmed, .live, .live, .sending])
    }
}
