import SybilTimeline
import SybilWire

/// Envelopes and pages for host tests.
enum Envelopes {
    static func row(_ id: String, _ type: TimelineRowType = .agentReply, operationId: String? = nil) -> TimelineBlock {
        TimelineBlock(
            type: type, id: id, origin: .canonical, sourceOrder: [1], timestamp: 0, text: "text \(id)",
            operationId: operationId)
    }

    static func envelope(
        _ ids: [String], state: WorkspaceChatLoadState = .ready, hasOlder: Bool = false, cursor: String? = nil,
        overlay: LiveOverlay = .empty, activeRun: String? = nil
    ) -> WorkspaceChatLoadEnvelope {
        WorkspaceChatLoadEnvelope(
            boundaryToken: "b", codexSessionId: nil, loadState: state, loadedEntries: Int64(ids.count),
            hasOlderEntries: hasOlder, oldestCursor: cursor, timeline: ids.map { row($0) }, liveOverlay: overlay,
            runtime: nil, activeRun: activeRun.map(WorkspaceActiveRun.init(runId:)))
    }

    static func page(_ ids: [String], thread: String? = nil, hasOlder: Bool = false, cursor: String? = nil)
        -> WorkspaceChatPage
    {
        WorkspaceChatPage(
            threadId: thread, timeline: ids.map { row($0) }, hasOlderEntries: hasOlder, oldestCursor: cursor)
    }
}
