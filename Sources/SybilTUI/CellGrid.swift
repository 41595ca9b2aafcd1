/// A screen's worth of cells, row by row: what a renderer draws and the output layer compares
/// with the previous frame. Writing keeps wide graphemes whole: a grapheme that would straddle
/// the right edge of the clip is left out (the cell is blanked), and overwriting either half
/// of a wide grapheme blanks the other half.
public struct CellGrid: Sendable, Hashable {
    /// The width in columns.
    public let columns: Int
    /// The height in rows.
    public let rows: Int
    /// The cells, `rows` × `columns`, row-major.
    public private(set) var cells: [Cell]

    /// A grid of blank cells with `style`; negative sizes become 0.
    public init(columns: Int, rows: Int, style: CellStyle = .plain) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
        self.cells = Array(repeating: .blank(style), count: self.columns * self.rows)
    }

    /// The whole grid as a rectangle.
    public var bounds: GridRect { GridRect(column: 0, row: 0, columns: columns, rows: rows) }

    /// The cell at `column`, `row` (both in range).
    public subscript(column: Int, row: Int) -> Cell {
        precondition(contains(column: column, row: row), "cell (\(column), \(row)) is outside the grid")
        return cells[row * columns + column]
    }

    /// Whether `column`, `row` is inside the grid.
    public func contains(column: Int, row: Int) -> Bool {
        column >= 0 && row >= 0 && column < columns && row < rows
    }

    /// Sets one cell, keeping wide graphemes whole; ignores positions outside the grid.
    public mutating func set(_ cell: Cell, column: Int, row: Int) {
        guard contains(column: column, row: row) else { return }
        let index = row * columns + column
        let old = cells[index]
        // A continuation written after its own new lead (as `write` does) keeps that lead.
        if old.isContinuation, column > 0, !(cell.isContinuation && cells[index - 1].width == 2) {
            cells[index - 1] = .blank(cells[index - 1].style)
        }
        if old.width == 2, column + 1 < columns, cell.width != 2 {
            cells[index + 1] = .blank(cells[index + 1].style)
        }
        cells[index] = cell
    }

    /// Writes `text` on `row` from `column`, clipped to `clip` (the whole grid by default),
    /// and returns the column after the last grapheme written. Control characters and marks
    /// standing alone are skipped; a wide grapheme that does not fit is left out and the rest
    /// of the clip stays as it was.
    @discardableResult
    public mutating func write(
        _ text: some StringProtocol, column: Int, row: Int, style: CellStyle, clip: GridRect? = nil
    ) -> Int {
        let area = (clip ?? bounds).intersection(bounds)
        guard row >= area.row, row < area.endRow else { return column }
        var x = column
        for character in text {
            let width = DisplayWidth.of(character)
            if width == 0 { continue }
            if x + width > area.endColumn {
                if x < area.endColumn, x >= area.column { set(.blank(style), column: x, row: row) }
                return area.endColumn
            }
            if x >= area.column {
                set(Cell(character, width: UInt8(width), style: style), column: x, row: row)
                if width == 2 { set(.continuation(style), column: x + 1, row: row) }
            }
            x += width
        }
        return x
    }

    /// Writes styled spans on `row` from `column`, clipped like ``write(_:column:row:style:clip:)``.
    @discardableResult
    public mutating func write(_ line: StyledLine, column: Int, row: Int, clip: GridRect? = nil) -> Int {
        var x = column
        for span in line.spans {
            x = write(span.text, column: x, row: row, style: span.style, clip: clip)
        }
        return x
    }

    /// Fills `rect` (clipped to the grid) with blank cells of `style`.
    public mutating func fill(_ rect: GridRect, style: CellStyle) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.row..<area.endRow {
            for x in area.column..<area.endColumn {
                set(.blank(style), column: x, row: y)
            }
        }
    }

    /// The text of one row, trailing spaces removed (for tests and snapshots).
    public func text(row: Int) -> String {
        guard row >= 0, row < rows else { return "" }
        var line = ""
        for x in 0..<columns {
            let cell = cells[row * columns + x]
            if !cell.isContinuation { line.append(cell.grapheme) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// All rows' text joined with newlines (a snapshot of what a person would read).
    public var text: String {
        (0..<rows).map { text(row: $0) }.joined(separator: "\n")
    }
}
