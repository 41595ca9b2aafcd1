import SybilTimeline
import SybilWire
import Testing

/// Ported from seed 000: a live row is completed only through a shared typed identity
/// (operation id, run id, row id), never by matching text or timestamp.
@Suite("WorkspaceChatLiveTimelineConfirmationTests", .timeLimit(.minutes(2)))
struct WorkspaceChatLiveTimelineConfirmationTests {
    typealias F = Fixtures

    @Test func liveUserRowIsCompletedByTheCanonicalRowWithItsOperationId() {
        var timeline = WorkspaceTimeline()
        let live = F.live("u-live", .user, run: "r1", text: "Fix it", at: 100, operationId: "op-1")
        timeline.apply(F.snapshot([], overlay: F.overlay(epoch: 1, revision: 1, [live])))
        #expect(timeline.rows.map(\.state) == [.live])
        timeline.apply(
            F.snapshot(
                [F.canonical("e-9", .user, text: "Fix it", at: 100, operationId: "op-1")],
                overlay: F.overlay(epoch: 1, revision: 1, [live])))
        #expect(timeline.rows.count == 1)
        #expect(timeline.rows[0].state == .confirmed)
        #expect(timeline.rows[0].id == "operation:op-1", "the display key survives confirmation")
    }

    @Test func liveReplyIsCompletedByTheCanonicalRowOfTheSameRunAndRow() {
        var timeline = WorkspaceTimeline()
        let live = F.live("l-3", .agentReply, run: "r1", text: "Done")
        timeline.apply(
            F.snapshot(
                [F.canonical("l-3", .agentReply, text: "Done", runId: "r1")],
                overlay: F.overlay(epoch: 1, revision: 2, [live])))
        #expect(timeline.rows.map(\.id) == ["run:r1/row:l-3"])
        #expect(timeline.rows.map(\.state) == [.confirmed])
    }

    @Test func sameTextAndTimestampUnderAnotherIdentityStaysLive() {
        var timeline = WorkspaceTimeline()
        let live = F.live("u-live", .user, run: "r1", text: "Fix it", at: 100, operationId: "op-1")
        timeline.apply(
            F.snapshot(
                [F.canonical("e-9", .user, text: "Fix it", at: 100, operationId: "op-other")],
                overlay: F.overlay(epoch: 1, revision: 1, [live])))
        #expect(timeline.rows.map(\.state) == [.confirmed, .live])
        // Same row id, other run: still not the same row.
        var replies = WorkspaceTimeline()
        replies.apply(
            F.snapshot(
                [F.canonical("l-3", .agentReply, text: "Done", at: 5, runId: "r0")],
                overlay: F.overlay(epoch: 1, revision: 1, [F.live("l-3", .agentReply, run: "r1", text: "Done", at: 5)]))
        )
        #expect(replies.rows.map(\.state) == [.confirmed, .live])
        // A canonical row without run or operation never completes a live row, whatever its text.
        var bare = WorkspaceTimeline()
        bare.apply(
            F.snapshot(
                [F.canonical("l-3", .agentReply, text: "Done", at: 5)],
                overlay: F.overlay(epoch: 1, revision: 1, [F.live("l-3", .agentReply, run: "r1", text: "Done", at: 5)]))
        )
        #expect(bare.rows.map(\.state) == [.confirmed, .live])
    }

    @Test func pendingMessageIsConfirmedOnlyByItsOperationId() {
        var timeline = WorkspaceTimeline()
        timeline.addPending(PendingMessage(operationId: "op-1", text: "Hallo", createdAt: 100))
        let lookalike = timeline.apply(F.snapshot([F.canonical("e-1", .user, text: "Hallo", at: 100)]))
        #expect(lookalike.confirmedOperations.isEmpty)
        #expect(timeline.rows.map(\.state) == [.confirmed, .sending])
        let echoed = timeline.applyOverlay(
            F.overlay(epoch: 1, revision: 1, [F.live("u", .user, run: "r", text: "different", operationId: "op-1")]))
        #expect(echoed.confirmedOperations == ["op-1"])
        #expect(timeline.pending.isEmpty)
        #expect(timeline.rows.map(\.id) == ["row:e-1", "operation:op-1"])
        #expect(timeline.rows.map(\.state) == [.confirmed, .live])
    }
}
