import SybilTimeline
import SybilWire

/// The desktop's chat-loading calls (docs/api/workspaces.md), the seam between workspace view
/// models and the network. Method names follow the RPC methods.
public protocol WorkspaceChatRPC: Sendable {
    /// `run.codexChatLoad`: the newest window of a chat.
    func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope
    /// `run.codexChatLoadPageBefore`: the page before `cursor`.
    func codexChatLoadPageBefore(_ chat: WorkspaceChatKey, cursor: String) async throws -> WorkspaceChatPage
    /// `run.codexChatLoadThread`: the newest page of a subagent thread.
    func codexChatLoadThread(_ chat: WorkspaceChatKey, threadId: String) async throws -> WorkspaceChatPage
    /// `run.codexChatLoadThreadPageBefore`: the thread's page before `cursor`.
    func codexChatLoadThreadPageBefore(
        _ chat: WorkspaceChatKey, threadId: String, cursor: String
    ) async throws -> WorkspaceChatPage
}
