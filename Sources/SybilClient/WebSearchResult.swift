import SybilStore
import SybilWire

/// A web search as a front end shows it once asked: its id in history, the query, the answer
/// and its sources, and when it was saved. View state that ``WebSearchAsker`` hands back,
/// made from the saved web search.
public struct WebSearchResult: Sendable, Hashable, Identifiable {
    /// Its id in history.
    public var id: String
    /// What was searched for.
    public var query: String
    /// The answer.
    public var answer: String
    /// The sources the answer listed, best first.
    public var sources: [WebSearchSource]
    /// When it was saved (milliseconds since 1970).
    public var createdAt: Int64

    /// Creates a result.
    public init(id: String, query: String, answer: String, sources: [WebSearchSource], createdAt: Int64) {
        self.id = id
        self.query = query
        self.answer = answer
        self.sources = sources
        self.createdAt = createdAt
    }

    /// The result of a saved web search.
    public init(_ row: SavedWebSearch) {
        self.init(id: row.id, query: row.query, answer: row.answer, sources: row.sources, createdAt: row.createdAt)
    }
}
