/// A bordered box with a title, cleared inside: the frame of the overlays.
enum Box {
    /// Clears `rect` and draws its border with `title` in the top edge.
    static func draw(into grid: inout CellGrid, _ rect: GridRect, title: String, theme: Theme) {
        guard rect.columns >= 2, rect.rows >= 2 else { return }
        grid.fill(rect, style: theme.text)
        let horizontal = String(repeating: "─", count: rect.columns - 2)
        grid.write("┌" + horizontal + "┐", column: rect.column, row: rect.row, style: theme.border)
        grid.write("└" + horizontal + "┘", column: rect.column, row: rect.endRow - 1, style: theme.border)
        for y in (rect.row + 1)..<(rect.endRow - 1) {
            grid.write("│", column: rect.column, row: y, style: theme.border)
            grid.write("│", column: rect.endColumn - 1, row: y, style: theme.border)
        }
        let label = DisplayWidth.truncate(" \(title) ", to: rect.columns - 4)
        grid.write(label, column: rect.column + 2, row: rect.row, style: theme.accent)
    }
}
