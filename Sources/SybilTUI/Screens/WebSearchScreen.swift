import SybilCore
import SybilWire

/// A saved web search as the app shows it when a Ctrl+K hit opens it: the query as the
/// person's message, the answer as Markdown, and its sources numbered with their addresses.
/// Every piece came from a server: it is made one-line or sanitized before it is drawn. Pure.
public struct WebSearchScreen: Sendable, Hashable {
    /// What was searched for.
    public var query: String
    /// The answer.
    public var answer: String
    /// The sources the answer listed, best first.
    public var sources: [WebSearchSource]

    /// A saved web search's content.
    public init(query: String, answer: String, sources: [WebSearchSource]) {
        self.query = query
        self.answer = answer
        self.sources = sources
    }

    /// The title row: `Web search: QUERY` on one line.
    public var title: String { "Web search: " + TerminalText.oneLine(query) }

    /// The timeline: the query, the answer, the sources (or a line saying there are none).
    public var items: [TimelineItem] {
        let list =
            sources.isEmpty
            ? "No sources were saved with this answer."
            : "Sources:\n"
                + sources.enumerated().map { index, source in
                    "\(index + 1). \(TerminalText.oneLine(source.title)) — \(TerminalText.oneLine(source.url))"
                }.joined(separator: "\n")
        return [
            TimelineItem(id: "web-query", role: .user, body: TerminalText.safe(query)),
            TimelineItem(
                id: "web-answer", role: .assistant, author: "Web search", body: TerminalText.safe(answer),
                isMarkdown: true),
            TimelineItem(id: "web-sources", role: .system, body: list),
        ]
    }
}
