/// A rectangle of cells: the region a view draws into.
public struct GridRect: Sendable, Hashable {
    /// The left column, from 0.
    public var column: Int
    /// The top row, from 0.
    public var row: Int
    /// The width in columns (never negative).
    public var columns: Int
    /// The height in rows (never negative).
    public var rows: Int

    /// Creates a rectangle; negative sizes become 0.
    public init(column: Int, row: Int, columns: Int, rows: Int) {
        self.column = column
        self.row = row
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// The column after the right edge.
    public var endColumn: Int { column + columns }
    /// The row after the bottom edge.
    public var endRow: Int { row + rows }
    /// Whether the rectangle has no cells.
    public var isEmpty: Bool { columns == 0 || rows == 0 }

    /// This rectangle shrunk by `amount` cells on every side.
    public func inset(by amount: Int) -> GridRect {
        GridRect(column: column + amount, row: row + amount, columns: columns - 2 * amount, rows: rows - 2 * amount)
    }

    /// The part of this rectangle inside `other`.
    public func intersection(_ other: GridRect) -> GridRect {
        let left = max(column, other.column)
        let top = max(row, other.row)
        let right = min(endColumn, other.endColumn)
        let bottom = min(endRow, other.endRow)
        return GridRect(column: left, row: top, columns: right - left, rows: bottom - top)
    }
}
