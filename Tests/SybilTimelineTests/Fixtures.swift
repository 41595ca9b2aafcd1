import SybilTimeline
import SybilWire

/// Small builders for timeline tests.
enum Fixtures {
    static func canonical(
        _ id: String, _ type: TimelineRowType = .agentReply, text: String = "text", at timestamp: Int64 = 0,
        runId: String? = nil, operationId: String? = nil, thread: String? = nil
    ) -> TimelineBlock {
        TimelineBlock(
            type: type, id: id, origin: .canonical, sourceOrder: [1], timestamp: timestamp, text: text, runId: runId,
            operationId: operationId, subagentThreadId: thread)
    }

    static func live(
        _ id: String, _ type: TimelineRowType = .agentReply, run: String = "run-1", text: String = "text",
        at timestamp: Int64 = 0, operationId: String? = nil, thread: String? = nil
    ) -> TimelineBlock {
        TimelineBlock(
            type: type, id: id, origin: .live, sourceOrder: [1], timestamp: timestamp, text: text, runId: run,
            operationId: operationId, subagentThreadId: thread)
    }

    static func snapshot(
        _ rows: [TimelineBlock], state: WorkspaceChatLoadState = .ready, hasOlder: Bool = false,
        cursor: String? = nil, overlay: LiveOverlay = .empty, activeRun: String? = nil
    ) -> TimelineSnapshot {
        TimelineSnapshot(
            loadState: state, rows: rows, hasOlderEntries: hasOlder, oldestCursor: cursor, overlay: overlay,
            activeRunId: activeRun)
    }

    static func overlay(epoch: Int64, revision: Int64, _ blocks: [TimelineBlock]) -> LiveOverlay {
        LiveOverlay(settlementEpoch: epoch, revision: revision, blocks: blocks)
    }
}
