import SybilWire

/// The local chat history (seed 003/004): conversations, their messages, and saved web searches,
/// with full-text search. Every write has reached the disk when it returns, so what the person
/// wrote is kept before a request leaves, and a reply saved as it streams survives a crash.
///
/// Implementations: `SQLiteChatHistory` (a file shared safely by several processes) and
/// `InMemoryChatHistory` (tests and `--no-save`). Errors are ``SQLiteError`` or ``StorageError``
/// values carrying context, never the message text.
public protocol ChatHistoryStore: Sendable {
    /// Saves a new conversation.
    func createConversation(_ conversation: ChatConversationRecord) async throws
    /// Saves a new conversation with its first messages, all or nothing (a chat made from a
    /// finished exchange, such as Quick Question's "Open in Chat", is never left half saved).
    func createConversation(_ conversation: ChatConversationRecord, messages: [ChatMessageRecord]) async throws
    /// Changes a conversation's title.
    func renameConversation(id: String, title: String, at time: Int64) async throws
    /// Sets the model conversation `id` asks for (its `updatedAt` is left as it is: choosing a
    /// model is no new message); an unknown id is an error.
    func setConversationModel(id: String, model: String) async throws
    /// Removes a conversation and its messages.
    func deleteConversation(id: String) async throws
    /// The conversation with `id`, if saved.
    func conversation(id: String) async throws -> ChatConversationRecord?
    /// The most recently updated conversations, newest first, at most `limit`.
    func recentConversations(limit: Int) async throws -> [ChatConversationRecord]
    /// A conversation's messages in the order they were added.
    func messages(inConversation id: String) async throws -> [ChatMessageRecord]
    /// Adds a message at the end of its conversation and bumps the conversation's `updatedAt`
    /// to the message's `createdAt`. Adding an id that exists is an error.
    func appendMessage(_ message: ChatMessageRecord) async throws
    /// Replaces a saved message's text, state and end time (a streaming reply's progress), and
    /// its tool calls when `toolCalls` is not `nil` (in the same write), and bumps its
    /// conversation's `updatedAt` to `at`.
    func updateMessage(
        id: String, text: String, state: ChatMessageRecord.State, finishedAt: Int64?, toolCalls: [ChatToolCall]?,
        at time: Int64
    ) async throws
    /// Saves a web search's query, answer and sources.
    func saveWebSearch(_ search: SavedWebSearch) async throws
    /// The web search with `id`, if saved.
    func webSearch(id: String) async throws -> SavedWebSearch?
    /// The most recently saved web searches, newest first, at most `limit`.
    func recentWebSearches(limit: Int) async throws -> [SavedWebSearch]
    /// Searches titles, message text and saved web searches for `query`'s words as word
    /// prefixes; any text the person types is safe (never a syntax error). At most `limit` hits.
    func search(_ query: String, limit: Int) async throws -> ChatSearchResults
}

extension ChatHistoryStore {
    /// Replaces a saved message's text, state and end time, leaving its tool calls as they are.
    public func updateMessage(
        id: String, text: String, state: ChatMessageRecord.State, finishedAt: Int64?, at time: Int64
    ) async throws {
        try await updateMessage(id: id, text: text, state: state, finishedAt: finishedAt, toolCalls: nil, at: time)
    }
}
