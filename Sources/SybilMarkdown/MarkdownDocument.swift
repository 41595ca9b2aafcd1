import SybilCore

/// A parsed Markdown text: a value any front end can draw. Parsing uses cmark-gfm with the
/// GFM table, strikethrough and autolink extensions; raw HTML is kept as text.
public struct MarkdownDocument: Sendable, Hashable {
    /// The top-level blocks in order.
    public var blocks: [MarkdownBlock]

    /// Creates a document from blocks.
    public init(blocks: [MarkdownBlock]) {
        self.blocks = blocks
    }

    /// Parses `text` within `limits`. Never crashes on hostile input: the size is checked
    /// before cmark-gfm sees the text, nesting deeper than the limit is flattened, and control
    /// characters other than tab and line ends become U+FFFD (see ``TerminalText/safe(_:)``).
    public static func parse(_ text: String, limits: MarkdownLimits = .standard) throws(MarkdownError)
        -> MarkdownDocument
    {
        var text = TerminalText.safe(text)
        let byteCount = text.utf8.count
        guard byteCount <= limits.maximumInputBytes else {
            throw .inputTooLarge(bytes: byteCount, limit: limits.maximumInputBytes)
        }
        let blocks = try text.withUTF8 { CMarkParser.parse($0, maximumNestingDepth: limits.maximumNestingDepth) }.get()
        return MarkdownDocument(blocks: blocks)
    }
}
