import SybilCore
import SybilTimeline
import SybilWire
import Testing

private typealias F = Fixtures

/// Row ids stay unique whatever a desktop sends (SPEC §4.4: a row's identity is its id string;
/// a list keyed by it cannot hold one twice). Pages are decoded by the shared page decoder, so
/// each case is one the decoder lets through.
@Suite("Workspace timeline row identity", .timeLimit(.minutes(2)))
struct WorkspaceTimelineRowIdentityTests {
    /// Rows decoded from JSON by the page decoder.
    private func decoded(_ json: String) throws -> [TimelineBlock] {
        try TimelinePageDecoder.decodeBlocks(try JSONReader().parse(Array(json.utf8)), at: .root)
    }

    private func expectUniqueIds(_ timeline: WorkspaceTimeline, sourceLocation: SourceLocation = #_sourceLocation) {
        let ids = timeline.rows.map(\.id)
        #expect(Set(ids).count == ids.count, "row ids repeat: \(ids)", sourceLocation: sourceLocation)
        let display = DisplayRows(timeline: timeline.rows, activeRunId: nil).rows.map(\.id)
        #expect(Set(display).count == display.count, "display ids repeat: \(display)", sourceLocation: sourceLocation)
    }

    @Test func aRowAWindowCarriesBothSettledAndLiveIsShownOnceAsSettled() throws {
        let rows = try decoded(
            """
            [{"type": "agent-reply", "id": "x", "origin": "canonical", "sourceOrder": [1], "timestamp": 1,
              "text": "settled", "runId": "r"},
             {"type": "agent-reply", "id": "x", "origin": "live", "sourceOrder": [2], "timestamp": 2,
              "text": "still live", "runId": "r"}]
            """)
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot(rows))
        expectUniqueIds(timeline)
        #expect(timeline.rows.map(\.text) == ["settled"], "the settled row completes the live one")
        #expect(timeline.rows.map(\.state) == [.confirmed])
    }

    @Test func aLiveRowBeforeItsSettledRowIsCompletedInItsPlace() throws {
        let rows = try decoded(
            """
            [{"type": "agent-reply", "id": "x", "origin": "live", "sourceOrder": [1], "timestamp": 1,
              "text": "still live", "runId": "r"},
             {"type": "system", "id": "y", "origin": "canonical", "sourceOrder": [2], "timestamp": 2, "text": "note"},
             {"type": "agent-reply", "id": "x", "origin": "canonical", "sourceOrder": [3], "timestamp": 3,
              "text": "settled", "runId": "r"}]
            """)
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot(rows))
        expectUniqueIds(timeline)
        #expect(timeline.rows.map(\.text) == ["settled", "note"])
        #expect(timeline.rows.first?.id == "run:r/row:x", "the row keeps the key it was shown under")
    }

    @Test func aLiveUserRowAnOlderPageRepeatsIsShownOnce() throws {
        let window = try decoded(
            """
            [{"type": "user", "id": "u2", "origin": "live", "sourceOrder": [5], "timestamp": 5, "text": "hi",
              "runId": "r", "operationId": "op-1"}]
            """)
        let older = try decoded(
            """
            [{"type": "user", "id": "u1", "origin": "live", "sourceOrder": [1], "timestamp": 1, "text": "hi",
              "runId": "r", "operationId": "op-1"}]
            """)
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot(window, hasOlder: true, cursor: "c1"))
        timeline.prependOlderPage(
            WorkspaceChatPage(threadId: nil, timeline: older, hasOlderEntries: false, oldestCursor: nil),
            requestedWith: "c1")
        expectUniqueIds(timeline)
        #expect(timeline.rows.count == 1)
    }

    @Test func runAndRowIdsThatSpellTheSeparatorGiveDistinctIds() throws {
        let rows = try decoded(
            """
            [{"type": "activity", "id": "c", "origin": "live", "sourceOrder": [1], "timestamp": 1, "text": "one",
              "runId": "a/row:b"},
             {"type": "activity", "id": "b/row:c", "origin": "live", "sourceOrder": [2], "timestamp": 2,
              "text": "two", "runId": "a"}]
            """)
        var timeline = WorkspaceTimeline()
        timeline.apply(F.snapshot(rows))
        expectUniqueIds(timeline)
        #expect(timeline.rows.map(\.text) == ["one", "two"], "two rows, both shown")
    }

    @Test func ordinaryIdsKeepTheirForm() {
        #expect(TimelineRowIdentity.runRow(runId: "run-1", rowId: "l1").description == "run:run-1/row:l1")
        #expect(TimelineRowIdentity.row("a/b").description == "row:a/b")
        #expect(TimelineRowIdentity.operation("op-1").description == "operation:op-1")
    }
}
