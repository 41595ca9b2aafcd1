/// The "new web search" prompt (Ctrl+Alt+N, the seed's Command+Option+N): a one-line question
/// sent to the server's web-search route on Return; while it is answered the prompt says so,
/// and a failure (or a server without the route) is its status line. The answer opens as a
/// saved web search. Pure.
public struct WebSearchPrompt: Sendable, Hashable {
    /// The question being typed.
    public var prompt = ComposerBuffer()
    /// Whether the question was sent and is being answered.
    public var isSearching = false
    /// Why the last search failed, if it did.
    public var status: String?

    /// An empty prompt.
    public init() {}

    /// The box it takes on a screen of `size`.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = max(1, min(size.columns - 4, 72))
        let height = max(1, min(size.rows - 2, 6))
        return GridRect(
            column: max(0, (size.columns - width) / 2), row: max(0, (size.rows - height) / 3), columns: width,
            rows: height)
    }

    /// Draws it in `rect`; returns where the cursor goes.
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) -> (column: Int, row: Int) {
        Box.draw(into: &grid, rect, title: "New web search", theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 0, inner.columns > 4 else { return (inner.column, inner.row) }
        grid.write("› ", column: inner.column, row: inner.row, style: theme.accent, clip: inner)
        let width = inner.columns - 2
        let layout = prompt.layout(width: max(1, width))
        let line = layout.lines.isEmpty ? "" : layout.lines[min(layout.cursorLine, layout.lines.count - 1)]
        if prompt.isEmpty {
            grid.write("Search the web…", column: inner.column + 2, row: inner.row, style: theme.secondary, clip: inner)
        } else {
            grid.write(line, column: inner.column + 2, row: inner.row, style: theme.text, clip: inner)
        }
        let statusLine = isSearching ? "Searching the web…" : status
        if let statusLine, inner.rows > 2 {
            grid.write(
                DisplayWidth.truncate(statusLine, to: inner.columns), column: inner.column, row: inner.row + 2,
                style: isSearching ? theme.secondary : theme.warning, clip: inner)
        }
        if inner.rows > 1 {
            grid.write(
                DisplayWidth.truncate("Return searches and saves · Esc closes", to: inner.columns),
                column: inner.column, row: inner.endRow - 1, style: theme.secondary, clip: inner)
        }
        return (min(inner.column + 2 + layout.cursorColumn, inner.endColumn - 1), inner.row)
    }
}
