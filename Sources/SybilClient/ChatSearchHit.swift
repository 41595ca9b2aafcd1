import SybilStore

/// One search match as the search list shows it: where it is, the title, the text that matched
/// and the query's words to mark. View state that ``ChatSearchModel`` publishes, made from the
/// history store's hit.
public struct ChatSearchHit: Sendable, Hashable {
    /// Where a match is.
    public enum Source: Sendable, Hashable {
        /// A conversation's title.
        case title(conversationId: String)
        /// A message's text.
        case message(conversationId: String, messageId: String)
        /// A saved web search's query or answer.
        case webSearch(id: String)
    }

    /// Where the match is.
    public var source: Source
    /// The title to show: the conversation's title, or the web search's query.
    public var title: String
    /// The whole text that matched (the excerpt is built from it).
    public var text: String
    /// The query's words, as typed, that the excerpt marks.
    public var terms: [String]
    /// When the item was last changed (milliseconds since 1970).
    public var updatedAt: Int64

    /// Creates a hit.
    public init(source: Source, title: String, text: String, terms: [String], updatedAt: Int64) {
        self.source = source
        self.title = title
        self.text = text
        self.terms = terms
        self.updatedAt = updatedAt
    }

    /// The hit as shown, from the store's hit.
    public init(_ row: ChatSearchResults.Hit) {
        let source: Source =
            switch row.source {
            case .title(let conversationId): .title(conversationId: conversationId)
            case .message(let conversationId, let messageId):
                .message(conversationId: conversationId, messageId: messageId)
            case .webSearch(let id): .webSearch(id: id)
            }
        self.init(source: source, title: row.title, text: row.text, terms: row.terms, updatedAt: row.updatedAt)
    }
}
