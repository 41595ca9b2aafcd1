import SybilClient
import SybilCore
import SybilWire

/// A desktop that answers at once: the newest window with `envelope`, the page before a cursor
/// with what `pageBefore` makes of it (or the error it throws). It counts what was asked, so a
/// test sees how often the same page is asked for. Subagent threads are empty.
final class OlderPageAnsweringRPC: WorkspaceChatRPC {
    private struct State {
        var loads = 0
        var pageCursors: [String] = []
    }

    private let envelope: WorkspaceChatLoadEnvelope
    private let pageBefore: @Sendable (String) throws -> WorkspaceChatPage
    private let state = Locked(State())

    /// Newest-window loads asked so far.
    var loads: Int { state.withLock { $0.loads } }
    /// The cursors of the older pages asked so far, in order.
    var pageCursors: [String] { state.withLock { $0.pageCursors } }

    init(envelope: WorkspaceChatLoadEnvelope, pageBefore: @escaping @Sendable (String) throws -> WorkspaceChatPage) {
        self.envelope = envelope
        self.pageBefore = pageBefore
    }

    func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope {
        state.withLock { $0.loads += 1 }
        return envelope
    }

    func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage {
        state.withLock { $0.pageCursors.append(cursor) }
        return try pageBefore(cursor)
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
