/// The composer's text wrapped for a width: the visual lines to draw and where the cursor is.
public struct ComposerLayout: Sendable, Hashable {
    /// The visual lines, top to bottom, each at most the width in display columns (a single
    /// grapheme wider than the width stands alone on its line). Never empty: empty text lays
    /// out as one empty line.
    public var lines: [String]
    /// The visual line the cursor is on, an index into ``lines``.
    public var cursorLine: Int
    /// The cursor's display column on its line (0-based). It can equal the width when the
    /// cursor follows a line that fills it; reserve a column for it or draw it at the edge.
    public var cursorColumn: Int

    /// Creates a layout.
    public init(lines: [String], cursorLine: Int, cursorColumn: Int) {
        self.lines = lines
        self.cursorLine = cursorLine
        self.cursorColumn = cursorColumn
    }
}
