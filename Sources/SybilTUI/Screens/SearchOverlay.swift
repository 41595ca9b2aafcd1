import SybilTimeline

/// The search overlay (Ctrl+K): a query field over the saved chats, the hits with their
/// matching words highlighted, the selected hit (Enter opens it), and what the search model
/// says (searching, "refine the query", an error). Pure: the app edits the query, the runner
/// feeds in the hits.
public struct SearchOverlay: Sendable, Hashable {
    /// One hit as listed.
    public struct Hit: Sendable, Hashable {
        /// What Enter opens.
        public var destination: AppDestination
        /// The chat's title.
        public var title: String
        /// The excerpt: runs of text, the matching ones marked.
        public var excerpt: [SearchExcerpt.Run]

        /// Creates a hit.
        public init(destination: AppDestination, title: String, excerpt: [SearchExcerpt.Run] = []) {
            self.destination = destination
            self.title = title
            self.excerpt = excerpt
        }
    }

    /// The query as typed.
    public var query = ""
    /// The hits (or the recent chats while the query is blank), best first.
    public var hits: [Hit] = []
    /// The selected hit's index.
    public var selected = 0
    /// A line under the field: "Searching…", "More than 100 match; refine the query.", an error.
    public var notice: String?
    /// Whether the hits are not yet the current query's (a search is under way).
    public var isPending = false
    /// Whether Return was pressed before the hits arrived: the best hit opens when they do.
    public var opensFirstHit = false

    /// An empty search.
    public init() {}

    /// The selected hit, if any.
    public var selectedHit: Hit? { hits.indices.contains(selected) ? hits[selected] : nil }

    /// Replaces the hits, keeping the selection in range.
    public mutating func show(_ hits: [Hit], notice: String?) {
        self.hits = hits
        self.notice = notice
        selected = min(selected, max(0, hits.count - 1))
    }

    /// Moves the selection by `steps`, stopping at the ends.
    public mutating func move(by steps: Int) {
        guard !hits.isEmpty else { return }
        selected = min(max(selected + steps, 0), hits.count - 1)
    }

    /// The box the overlay takes on a screen of `size`.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = min(size.columns - 4, 80)
        let height = min(size.rows - 2, 20)
        return GridRect(column: (size.columns - width) / 2, row: 1, columns: width, rows: height)
    }

    /// Draws the overlay in `rect` (a bordered box) and returns where the cursor goes (the end
    /// of the query).
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) -> (column: Int, row: Int) {
        Box.draw(into: &grid, rect, title: "Search chats", theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 0, inner.columns > 2 else { return (inner.column, inner.row) }
        let field = DisplayWidth.truncate(query, to: inner.columns - 3)
        grid.write("⌕ ", column: inner.column, row: inner.row, style: theme.accent, clip: inner)
        let end = grid.write(field, column: inner.column + 2, row: inner.row, style: theme.text, clip: inner)
        var y = inner.row + 1
        if let notice, y < inner.endRow {
            grid.write(
                DisplayWidth.truncate(notice, to: inner.columns), column: inner.column, row: y, style: theme.secondary,
                clip: inner)
            y += 1
        }
        if hits.isEmpty, y < inner.endRow, notice == nil {
            let empty = query.allSatisfy(\.isWhitespace) ? "No saved chats yet" : "No chat matches"
            grid.write(empty, column: inner.column, row: y, style: theme.secondary, clip: inner)
        }
        let perHit = 2
        let visible = max(1, (inner.endRow - y) / perHit)
        let first = max(0, min(selected - visible + 1, hits.count - visible))
        for (offset, hit) in hits.dropFirst(first).prefix(visible).enumerated() {
            let index = first + offset
            let top = y + offset * perHit
            let isSelected = index == selected
            let titleStyle = isSelected ? theme.selection.adding(.bold) : theme.text.adding(.bold)
            if isSelected {
                grid.fill(GridRect(column: inner.column, row: top, columns: inner.columns, rows: 1), style: titleStyle)
            }
            grid.write(
                DisplayWidth.truncate(hit.title, to: inner.columns), column: inner.column, row: top, style: titleStyle,
                clip: inner)
            var x = inner.column + 2
            for run in hit.excerpt where top + 1 < inner.endRow {
                x = grid.write(
                    run.text, column: x, row: top + 1, style: run.isMatch ? theme.highlight : theme.secondary,
                    clip: inner)
            }
        }
        return (min(end, inner.endColumn - 1), inner.row)
    }
}
