import SybilWire
import Testing

@Suite("Typed row identities", .timeLimit(.minutes(2)))
struct TimelineRowIdentityTests {
    private func block(
        _ type: TimelineRowType, _ origin: TimelineOrigin, id: String = "r", runId: String? = nil,
        operationId: String? = nil
    )
        -> TimelineBlock
    {
        TimelineBlock(
            type: type, id: id, origin: origin, sourceOrder: [1], timestamp: 0, text: "", runId: runId,
            operationId: operationId)
    }

    @Test func canonicalRowsAreKeyedByRowId() {
        #expect(block(.user, .canonical, operationId: "op").identity == .row("r"))
        #expect(block(.agentReply, .canonical, runId: "run").identity == .row("r"))
    }

    @Test func liveUserRowsAreKeyedByOperation() {
        #expect(block(.user, .live, runId: "run", operationId: "op").identity == .operation("op"))
    }

    @Test func otherLiveRowsAreKeyedByRunAndRow() {
        for type in [TimelineRowType.system, .activity, .agentReply, .thinking] {
            #expect(block(type, .live, runId: "run", operationId: "op").identity == .runRow(runId: "run", rowId: "r"))
        }
    }

    @Test func descriptionsAreDistinctPerKind() {
        #expect(TimelineRowIdentity.row("x").description == "row:x")
        #expect(TimelineRowIdentity.operation("x").description == "operation:x")
        #expect(TimelineRowIdentity.runRow(runId: "a", rowId: "x").description == "run:a/row:x")
    }
}
