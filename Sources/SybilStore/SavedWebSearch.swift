import SybilWire

/// A saved web search: the query the person asked, the answer they got and the sources it
/// listed, searchable with the chats by query and answer (SPEC §5.4).
public struct SavedWebSearch: Sendable, Hashable, Identifiable {
    /// A stable id chosen by the client (a UUID string).
    public var id: String
    /// What was searched for.
    public var query: String
    /// The answer shown.
    public var answer: String
    /// The sources the answer listed, best first (not searched; empty for searches saved
    /// before sources were kept).
    public var sources: [WebSearchSource]
    /// When it was saved (milliseconds since 1970).
    public var createdAt: Int64

    /// Creates a record.
    public init(id: String, query: String, answer: String, sources: [WebSearchSource] = [], createdAt: Int64) {
        self.id = id
        self.query = query
        self.answer = answer
        self.sources = sources
        self.createdAt = createdAt
    }
}
