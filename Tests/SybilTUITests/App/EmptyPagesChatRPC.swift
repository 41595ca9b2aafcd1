import SybilClient
import SybilTimeline
import SybilWire

/// A desktop's chat RPC for the terminal app's workspace tests whose chats have nothing older
/// and no subagent threads: every page is empty, so a fake states only its load and its
/// submissions.
protocol EmptyPagesChatRPC: WorkspaceChatRPC {}

extension EmptyPagesChatRPC {
    func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage {
        WorkspaceChatPage(threadId: nil, timeline: [], hasOlderEntries: false, oldestCursor: nil)
    }

    func codexChatLoadThread(_ chat: WorkspaceChatKey, threadId: String) async throws -> WorkspaceChatPage {
        WorkspaceChatPage(threadId: threadId, timeline: [], hasOlderEntries: false, oldestCursor: nil)
    }

    func codexChatLoadThreadPageBefore(
        _ chat: WorkspaceChatKey, threadId: String, cursor: String
    ) async throws -> WorkspaceChatPage {
        WorkspaceChatPage(threadId: threadId, timeline: [], hasOlderEntries: false, oldestCursor: nil)
    }
}

extension WorkspaceChatLoadEnvelope {
    /// A ready chat showing `timeline`, with nothing older and no run.
    static func ready(_ timeline: [TimelineBlock] = []) -> WorkspaceChatLoadEnvelope {
        WorkspaceChatLoadEnvelope(
            boundaryToken: "b", codexSessionId: nil, loadState: .ready, loadedEntries: Int64(timeline.count),
            hasOlderEntries: false, oldestCursor: nil, timeline: timeline, liveOverlay: .empty, runtime: nil,
            activeRun: nil)
    }
}
