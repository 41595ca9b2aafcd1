/// Why a Markdown text was not parsed.
public enum MarkdownError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is longer than the parser accepts (``MarkdownLimits/maximumInputBytes``).
    case inputTooLarge(bytes: Int, limit: Int)
    /// cmark-gfm could not create a parser or returned no document (out of memory).
    case parserUnavailable

    /// One sentence naming the limit and the value.
    public var description: String {
        switch self {
        case .inputTooLarge(let bytes, let limit):
            return
                "Markdown input is \(bytes) bytes, over the limit of \(limit) bytes; render it as plain text instead."
        case .parserUnavailable:
            return "cmark-gfm could not create a parser (out of memory?)."
        }
    }
}
