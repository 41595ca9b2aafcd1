/// The text attributes a cell can carry (SGR 1, 2, 3, 4, 7, 9).
public struct CellAttributes: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: UInt8

    /// Creates an attribute set from raw bits.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Bold (SGR 1).
    public static let bold = CellAttributes(rawValue: 1 << 0)
    /// Dim, or faint (SGR 2).
    public static let dim = CellAttributes(rawValue: 1 << 1)
    /// Italic (SGR 3).
    public static let italic = CellAttributes(rawValue: 1 << 2)
    /// Underlined (SGR 4).
    public static let underline = CellAttributes(rawValue: 1 << 3)
    /// Foreground and background swapped (SGR 7).
    public static let inverse = CellAttributes(rawValue: 1 << 4)
    /// Struck through (SGR 9).
    public static let strikethrough = CellAttributes(rawValue: 1 << 5)
}
