/// What a history search found (SPEC §5.4): at most the limit asked for, best first, and whether
/// more matched than were returned (then the front end says to refine the query).
public struct ChatSearchResults: Sendable, Hashable {
    /// One match.
    public struct Hit: Sendable, Hashable {
        /// Where the match is.
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
        /// The whole text that matched (the front end builds the one-line excerpt from it).
        public var text: String
        /// The query's words, as typed, that the excerpt marks (each matches as a word prefix).
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
    }

    /// The hits, best first.
    public var hits: [Hit]
    /// Whether more items matched than `hits` holds.
    public var hasMore: Bool

    /// Creates results.
    public init(hits: [Hit], hasMore: Bool) {
        self.hits = hits
        self.hasMore = hasMore
    }

    /// No results.
    public static let empty = ChatSearchResults(hits: [], hasMore: false)
}
