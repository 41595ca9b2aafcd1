/// One cell of the screen: a grapheme and its style. A wide grapheme (CJK, most emoji) takes
/// two cells: the first holds it with ``width`` 2, the second is a continuation with width 0.
public struct Cell: Sendable, Hashable {
    /// The grapheme drawn in this cell; a space for an empty cell, ignored for a continuation.
    public var grapheme: Character
    /// The columns the grapheme takes: 1, 2 for a wide grapheme, 0 for the right half of one.
    public var width: UInt8
    /// Colours and attributes.
    public var style: CellStyle

    /// Creates a cell.
    public init(_ grapheme: Character, width: UInt8 = 1, style: CellStyle = .plain) {
        self.grapheme = grapheme
        self.width = width
        self.style = style
    }

    /// An empty cell with `style` (its background shows).
    public static func blank(_ style: CellStyle = .plain) -> Cell {
        Cell(" ", width: 1, style: style)
    }

    /// The right half of a wide grapheme.
    public static func continuation(_ style: CellStyle) -> Cell {
        Cell(" ", width: 0, style: style)
    }

    /// Whether this cell is the right half of a wide grapheme.
    public var isContinuation: Bool { width == 0 }
}
