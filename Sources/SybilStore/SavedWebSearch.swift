/// A saved web search: the query the person asked and the answer they got, searchable with the
/// chats (SPEC §5.4).
public struct SavedWebSearch: Sendable, Hashable, Identifiable {
    /// A stable id chosen by the client (a UUID string).
    public var id: String
    /// What was searched for.
    public var query: String
    /// The answer shown.
    public var answer: String
    /// When it was saved (milliseconds since 1970).
    public var createdAt: Int64

    /// Creates a record.
    public init(id: String, query: String, answer: String, createdAt: Int64) {
        self.id = id
        self.query = query
        self.answer = answer
        self.createdAt = createdAt
    }
}
