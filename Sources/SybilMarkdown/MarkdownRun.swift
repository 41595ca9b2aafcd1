/// The inline styles a run of text can carry; a run inside `**_x_**` has both
/// ``strong`` and ``emphasis``.
public struct MarkdownStyle: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8

    /// Creates a style set from raw bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `*emphasis*` or `_emphasis_`.
    public static let emphasis = MarkdownStyle(rawValue: 1 << 0)
    /// `**strong**`.
    public static let strong = MarkdownStyle(rawValue: 1 << 1)
    /// `` `code` `` (a code span).
    public static let code = MarkdownStyle(rawValue: 1 << 2)
    /// `~~strikethrough~~` (GFM).
    public static let strikethrough = MarkdownStyle(rawValue: 1 << 3)
    /// Text inside a link or an image's description; the run's ``MarkdownRun/link`` holds
    /// the destination.
    public static let link = MarkdownStyle(rawValue: 1 << 4)
}

/// A stretch of inline text with one style set. A hard line break is a run whose text is
/// `"\n"`; a soft break becomes a single space.
public struct MarkdownRun: Sendable, Hashable {
    /// The text, without Markdown syntax.
    public var text: String
    /// The styles in effect.
    public var style: MarkdownStyle
    /// The link destination when ``style`` contains ``MarkdownStyle/link``, else `nil`.
    public var link: String?

    /// Creates a run.
    public init(_ text: String, style: MarkdownStyle = [], link: String? = nil) {
        self.text = text
        self.style = style
        self.link = link
    }

    /// Whether this run is a hard line break.
    public var isLineBreak: Bool { text == "\n" }
}

extension Array where Element == MarkdownRun {
    /// The runs' text joined, without styles (hard breaks as newlines).
    public var plainText: String {
        map(\.text).joined()
    }
}
