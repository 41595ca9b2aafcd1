/// Draws a virtualized timeline: only the items that fill the viewport are laid out, from the
/// scroll anchor down or from the bottom up while following, however many items there are.
/// The right-most column shows a scroll indicator when the items do not all fit, and
/// "↓ n new" sits on the bottom row when items arrived while scrolled up.
public struct TimelineView: Sendable {
    /// A timeline view.
    public init() {}

    /// Draws `items` (oldest first) into `rect` of `grid`, resolving and clamping `scroll`,
    /// laying out through `layout`'s cache. Returns what was shown; with `measuring` above 0 it
    /// also counts the lines above and below the viewport up to that many (laying out at most
    /// that many more items each way).
    @discardableResult
    public func draw(
        into grid: inout CellGrid, in rect: GridRect, items: some RandomAccessCollection<TimelineItem>,
        scroll: inout TimelineScroll, layout: inout TimelineLayout, theme: Theme, measuring limit: Int = 0
    ) -> TimelineDrawReport {
        let area = rect.intersection(grid.bounds)
        grid.fill(area, style: theme.text)
        guard !area.isEmpty else { return .empty(rows: 0) }
        let width = max(area.columns - 1, 1)
        let count = items.count
        var frame: [Int: [StyledLine]] = [:]
        func item(_ index: Int) -> TimelineItem { items[items.index(items.startIndex, offsetBy: index)] }
        func lines(_ index: Int) -> [StyledLine] {
            if let lines = frame[index] { return lines }
            let lines = layout.lines(for: item(index), width: width, theme: theme)
            frame[index] = lines
            return lines
        }
        let top = scroll.resolve(count: count, rows: area.rows, id: { item($0).id }, height: { lines($0).count })
        guard count > 0 else { return .empty(rows: area.rows) }
        var row = area.row
        var index = top.index
        var line = top.line
        let clip = GridRect(column: area.column, row: area.row, columns: width, rows: area.rows)
        var lastItemWhole = true
        var shown: [TimelineDrawReport.Item] = []
        var linesLeftInLast = 0
        while row < area.endRow, index < count {
            let itemLines = lines(index)
            shown.append(TimelineDrawReport.Item(id: item(index).id, row: row - area.row - line))
            while line < itemLines.count, row < area.endRow {
                grid.write(itemLines[line], column: area.column, row: row, clip: clip)
                row += 1
                line += 1
            }
            lastItemWhole = line >= itemLines.count
            linesLeftInLast = itemLines.count - line
            index += 1
            line = 0
        }
        var measured = TimelineDrawReport(
            rows: area.rows, items: shown, linesAbove: 0, linesShown: row - area.row, linesBelow: 0, limit: limit)
        if limit > 0 {
            var above = top.line
            var before = top.index
            while above < limit, before > 0 {
                before -= 1
                above += lines(before).count
            }
            var below = linesLeftInLast
            var after = index
            while below < limit, after < count {
                below += lines(after).count
                after += 1
            }
            measured.linesAbove = min(above, limit)
            measured.linesBelow = min(below, limit)
        }
        let everythingFits = top.index == 0 && top.line == 0 && index >= count && lastItemWhole
        if !everythingFits, area.columns > 1 {
            let drawn = (top.index..<index).reduce(0) { $0 + (frame[$1]?.count ?? 0) }
            let averageHeight = Double(max(drawn, 1)) / Double(max(index - top.index, 1))
            drawIndicator(
                into: &grid, area: area, top: top, averageHeight: averageHeight, count: count, scroll: scroll,
                theme: theme)
        }
        if !scroll.isFollowingBottom, scroll.newItemCount > 0 {
            let label = " ↓ \(scroll.newItemCount) new "
            let labelWidth = DisplayWidth.of(label)
            let column = area.column + max((width - labelWidth) / 2, 0)
            grid.write(label, column: column, row: area.endRow - 1, style: theme.accent.adding(.inverse), clip: clip)
        }
        return measured
    }

    /// The track in the border colour and a thumb whose size and place follow the viewport's
    /// share of and position in all lines, estimated from the visible items' average height
    /// (items never laid out have no known height).
    private func drawIndicator(
        into grid: inout CellGrid, area: GridRect, top: (index: Int, line: Int), averageHeight: Double, count: Int,
        scroll: TimelineScroll, theme: Theme
    ) {
        let rows = area.rows
        let total = max(averageHeight * Double(count), Double(rows))
        let size = min(max(1, Int(Double(rows) * Double(rows) / total)), rows)
        let position: Int
        if scroll.isFollowingBottom {
            position = rows - size
        } else if top.index == 0, top.line == 0 {
            position = 0
        } else {
            let above = averageHeight * Double(top.index) + Double(top.line)
            position = min(max(1, Int(Double(rows) * above / total)), rows - size)
        }
        let column = area.endColumn - 1
        for offset in 0..<rows {
            let isThumb = offset >= position && offset < position + size
            grid.write(
                isThumb ? "┃" : "│", column: column, row: area.row + offset,
                style: isThumb ? theme.secondary : theme.border)
        }
    }
}
