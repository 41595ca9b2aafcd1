/// One block of a Markdown document, holding inline runs or nested blocks.
public enum MarkdownBlock: Sendable, Hashable {
    /// An ATX (`## x`) or setext heading; `level` is 1 to 6.
    case heading(level: Int, runs: [MarkdownRun])
    /// A paragraph.
    case paragraph([MarkdownRun])
    /// A fenced or indented code block: the fence's info string (empty when none) and the
    /// code with its final newline removed.
    case codeBlock(info: String, code: String)
    /// A bullet or ordered list.
    case list(MarkdownList)
    /// A block quote and the blocks inside it.
    case blockQuote([MarkdownBlock])
    /// A GFM table.
    case table(MarkdownTable)
    /// A thematic break (`---`).
    case thematicBreak
    /// Raw HTML kept as text (never interpreted), its final newline removed.
    case html(String)
}

/// A bullet or ordered list.
public struct MarkdownList: Sendable, Hashable {
    /// What marks the items.
    public enum Kind: Sendable, Hashable {
        /// `-`, `*` or `+` items.
        case bullet
        /// Numbered items counting up from `start` (0 to 999,999,999 per CommonMark).
        case ordered(start: Int)
    }

    /// Bullet or ordered, with its first number.
    public var kind: Kind
    /// Whether the items are tight (no blank lines between them).
    public var isTight: Bool
    /// Each item's blocks.
    public var items: [[MarkdownBlock]]

    /// Creates a list.
    public init(kind: Kind, isTight: Bool, items: [[MarkdownBlock]]) {
        self.kind = kind
        self.isTight = isTight
        self.items = items
    }
}

/// A GFM table: a header row, body rows and one alignment per column.
public struct MarkdownTable: Sendable, Hashable {
    /// How a column's cells are aligned.
    public enum Alignment: Sendable, Hashable {
        /// No colon in the delimiter row (drawn left-aligned).
        case none
        /// `:--`.
        case left
        /// `:-:`.
        case center
        /// `--:`.
        case right
    }

    /// One alignment per column.
    public var alignments: [Alignment]
    /// The header cells, one run list per column.
    public var header: [[MarkdownRun]]
    /// The body rows; every row has one cell per column (GFM pads short rows).
    public var rows: [[[MarkdownRun]]]

    /// Creates a table.
    public init(alignments: [Alignment], header: [[MarkdownRun]], rows: [[[MarkdownRun]]]) {
        self.alignments = alignments
        self.header = header
        self.rows = rows
    }
}
