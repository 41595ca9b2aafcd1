import SybilCore

/// Lays out a ``MarkdownTable`` in box lines: each column as wide as its widest cell, the
/// widest columns shrunk (to 3 columns at least) when the table is wider than the width, and
/// cells wrapped inside their column, aligned as the delimiter row says. The header is bold.
struct TableLayout {
    let table: MarkdownTable
    let width: Int
    let style: TerminalStyle

    /// The narrowest a column is shrunk to.
    static let minimumColumnWidth = 3

    func lines() -> [TerminalLine] {
        let columns = table.alignments.count
        guard columns > 0 else { return [] }
        let rows = [table.header] + table.rows
        let flat = rows.map { row in (0..<columns).map { $0 < row.count ? singleLine(row[$0]) : [] } }
        let widths = table.columnWidths(fitting: width)
        var result: [TerminalLine] = [border("┌", "┬", "┐", widths)]
        for (index, row) in flat.enumerated() {
            result.append(contentsOf: rowLines(row, widths: widths, isHeader: index == 0))
            if index == 0 { result.append(border("├", "┼", "┤", widths)) }
        }
        result.append(border("└", "┴", "┘", widths))
        return result
    }

    /// Hard breaks inside a cell become spaces; the cell is one paragraph.
    private func singleLine(_ runs: [MarkdownRun]) -> [MarkdownRun] {
        runs.map { $0.isLineBreak ? MarkdownRun(" ", style: $0.style, link: $0.link) : $0 }
    }

    /// Shrinks the widest columns until the total fits `available` (or every wide column is at
    /// ``minimumColumnWidth``), the same widths as taking one column at a time off the leftmost
    /// widest, but found by a binary search on the level: a table of thousands of columns a peer
    /// sent lays out in O(n log n), not O(n²).
    static func shrink(_ widths: inout [Int], toFit available: Int) {
        guard widths.reduce(0, +) > available, let widest = widths.max(), widest > minimumColumnWidth else { return }
        func total(cappedAt level: Int) -> Int { widths.reduce(0) { $0 + min($1, level) } }
        // The highest level at which the capped total fits, at least the minimum width.
        var low = minimumColumnWidth
        var high = widest
        while low < high {
            let middle = low + (high - low + 1) / 2
            if total(cappedAt: middle) <= available { low = middle } else { high = middle - 1 }
        }
        let level = low
        var slack = max(available - total(cappedAt: level), 0)
        // Columns over the level end there; the rightmost of them keep one more while room is left.
        for index in widths.indices.reversed() where widths[index] > level {
            widths[index] = slack > 0 ? level + 1 : level
            if slack > 0 { slack -= 1 }
        }
    }

    private func border(_ left: String, _ middle: String, _ right: String, _ widths: [Int]) -> TerminalLine {
        let text = left + widths.map { String(repeating: "─", count: $0 + 2) }.joined(separator: middle) + right
        return TerminalLine(text: style.dim(text), width: widths.reduce(0, +) + 3 * widths.count + 1)
    }

    private func rowLines(_ row: [[MarkdownRun]], widths: [Int], isHeader: Bool) -> [TerminalLine] {
        let cells = row.enumerated().map { column, runs in
            InlineWrapper(width: widths[column], style: style).wrap(runs, extra: isHeader ? ["1"] : [])
        }
        let height = cells.map(\.count).max() ?? 1
        let bar = style.dim("│")
        var lines: [TerminalLine] = []
        for lineIndex in 0..<height {
            var text = bar
            for (column, cell) in cells.enumerated() {
                let line = lineIndex < cell.count ? cell[lineIndex] : .empty
                let (left, right) = table.alignments[column].padding(room: widths[column] - line.width)
                text += " " + String(repeating: " ", count: left) + line.text + String(repeating: " ", count: right)
                text += " " + bar
            }
            lines.append(TerminalLine(text: text, width: widths.reduce(0, +) + 3 * widths.count + 1))
        }
        return lines
    }
}
