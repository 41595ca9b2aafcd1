import SybilStore

/// A saved chat as a list, a search overlay or a chat's title shows it: its id, title, times and
/// model. View state that ``ChatConversationModel``, ``ChatListModel`` and ``ChatSearchModel``
/// publish, made from the saved conversation.
public struct ChatConversationSummary: Sendable, Hashable, Identifiable {
    /// The conversation's id.
    public var id: String
    /// The title shown.
    public var title: String
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When a message was last added or changed (lists are newest first by this).
    public var updatedAt: Int64
    /// The model it asks for; `nil` for a conversation saved before models were kept with them.
    public var model: String?

    /// Creates a summary.
    public init(id: String, title: String, createdAt: Int64, updatedAt: Int64, model: String? = nil) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.model = model
    }

    /// The summary of a saved conversation.
    public init(_ row: ChatConversationRecord) {
        self.init(id: row.id, title: row.title, createdAt: row.createdAt, updatedAt: row.updatedAt, model: row.model)
    }
}
