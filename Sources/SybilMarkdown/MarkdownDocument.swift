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
    /// characters other than tab and line ends become U+FFFD (see ``displaySafe(_:)``).
    public static func parse(_ text: String, limits: MarkdownLimits = .standard) throws(MarkdownError)
        -> MarkdownDocument
    {
        var text = displaySafe(text)
        let byteCount = text.utf8.count
        guard byteCount <= limits.maximumInputBytes else {
            throw .inputTooLarge(bytes: byteCount, limit: limits.maximumInputBytes)
        }
        let blocks = try text.withUTF8 { CMarkParser.parse($0, maximumNestingDepth: limits.maximumNestingDepth) }.get()
        return MarkdownDocument(blocks: blocks)
    }

    /// `text` with every C0 and C1 control character except tab and line feed replaced by
    /// U+FFFD, and CR LF made a line feed: a reply is drawn, never obeyed, so an escape sequence
    /// in it cannot restyle, move or retitle the person's terminal, and a lone carriage return
    /// cannot send the cursor back over what was shown. Returns `text` itself when it holds none.
    public static func displaySafe(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            return (value < 0x20 && value != 0x09 && value != 0x0A) || (0x7F...0x9F).contains(value)
        }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for character in text {
            if character == "\r\n" {
                result.append("\n")
            } else if character.unicodeScalars.contains(where: isControl) {
                for scalar in character.unicodeScalars {
                    result.unicodeScalars.append(isControl(scalar) ? "\u{FFFD}" : scalar)
                }
            } else {
                result.append(character)
            }
        }
        return result
    }
}
