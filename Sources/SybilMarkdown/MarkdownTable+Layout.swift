import SybilCore

extension MarkdownTable {
    /// The narrowest a column is shrunk to when a table is wider than its width.
    public static var minimumColumnWidth: Int { TableLayout.minimumColumnWidth }

    /// The content width of each column for a table drawn in box lines (`│ a │ b │`, so
    /// `3 × columns + 1` columns go to borders and padding) within `width` display columns:
    /// each column as wide as its widest cell (hard breaks counted as spaces, at least 1), and
    /// when the total is too wide, the widest columns shrunk level by level down to
    /// ``minimumColumnWidth``. A table with very many columns may still be wider than `width`;
    /// the caller clips it. Every front end lays tables out with these widths.
    public func columnWidths(fitting width: Int) -> [Int] {
        let columns = alignments.count
        guard columns > 0 else { return [] }
        var widths = [Int](repeating: 1, count: columns)
        for row in [header] + rows {
            for column in 0..<min(columns, row.count) {
                let text = row[column].reduce(into: "") { $0 += $1.isLineBreak ? " " : $1.text }
                widths[column] = max(widths[column], DisplayWidth.columns(of: text))
            }
        }
        TableLayout.shrink(&widths, toFit: width - (3 * columns + 1))
        return widths
    }
}

extension MarkdownTable.Alignment {
    /// The blank columns left and right of a cell's text that is `room` columns narrower than
    /// its column: right-aligned text takes all on the left, centred text splits it (the odd
    /// column on the right), left and unaligned text takes all on the right.
    public func padding(room: Int) -> (left: Int, right: Int) {
        let room = max(room, 0)
        switch self {
        case .right: return (room, 0)
        case .center: return (room / 2, room - room / 2)
        case .left, .none: return (0, room)
        }
    }
}
