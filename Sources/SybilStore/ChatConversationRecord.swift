/// One saved chat conversation. Times are milliseconds since 1970 from the caller's injected clock.
public struct ChatConversationRecord: Sendable, Hashable, Identifiable {
    /// A stable id chosen by the client (a UUID string).
    public var id: String
    /// The title shown in the list (the first question, shortened, until renamed).
    public var title: String
    /// When it was created.
    public var createdAt: Int64
    /// When a message was last added or changed (the list is newest first by this).
    public var updatedAt: Int64
    /// The system prompt the conversation was started with (`ask --system`, a profile's
    /// `system`), sent again before its messages when it is continued; `nil` for none.
    public var systemPrompt: String?
    /// The model the conversation asks for (chosen for it, or the one it was started with),
    /// asked again when it is continued; `nil` for a conversation saved before models were
    /// kept with conversations.
    public var model: String?

    /// Creates a record.
    public init(
        id: String, title: String, createdAt: Int64, updatedAt: Int64, systemPrompt: String? = nil,
        model: String? = nil
    ) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.systemPrompt = systemPrompt
        self.model = model
    }
}
