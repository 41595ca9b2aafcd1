/// A stretch of text in one style.
public struct StyledSpan: Sendable, Hashable {
    /// The text (one line: no newlines).
    public var text: String
    /// How it is drawn.
    public var style: CellStyle

    /// Creates a span.
    public init(_ text: String, style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// One line of styled text, laid out for a given width before it is drawn.
public struct StyledLine: Sendable, Hashable {
    /// The spans, left to right.
    public var spans: [StyledSpan]

    /// Creates a line from spans.
    public init(_ spans: [StyledSpan] = []) {
        self.spans = spans
    }

    /// A line of one span.
    public init(_ text: String, style: CellStyle = .plain) {
        self.spans = [StyledSpan(text, style: style)]
    }

    /// The columns the line takes.
    public var width: Int { spans.reduce(0) { $0 + DisplayWidth.of($1.text) } }

    /// The text without styles.
    public var plainText: String { spans.map(\.text).joined() }

    /// An empty line.
    public static let empty = StyledLine()
}
