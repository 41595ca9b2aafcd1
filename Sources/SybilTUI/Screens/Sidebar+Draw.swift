extension Sidebar {
    /// Draws the rows into `rect`: section titles in the accent, the open destination bold,
    /// the selected row highlighted when the sidebar has focus (else underlined), badges on the
    /// right. Returns the destination of each drawn row by screen row, for mouse clicks.
    @discardableResult
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme, focused: Bool) -> [Int:
        AppDestination]
    {
        grid.fill(rect, style: theme.text)
        let rows = rows
        let first = firstVisibleRow(height: rect.rows)
        var hits: [Int: AppDestination] = [:]
        for (offset, row) in rows.dropFirst(first).prefix(rect.rows).enumerated() {
            let y = rect.row + offset
            switch row {
            case .header(let title):
                grid.write(
                    DisplayWidth.truncate(title, to: rect.columns), column: rect.column, row: y, style: theme.accent,
                    clip: rect)
            case .label(let text, let indent, let tone):
                let style = Self.style(tone, theme: theme)
                let pad = String(repeating: " ", count: indent * 2)
                grid.write(
                    DisplayWidth.truncate(pad + text, to: rect.columns), column: rect.column, row: y, style: style,
                    clip: rect)
            case .item(let destination, let label, let indent, let badge):
                hits[y] = destination
                var style = theme.text
                if destination == current { style = style.adding(.bold) }
                if destination == selection {
                    if focused {
                        style = theme.selection.adding(destination == current ? .bold : [])
                        grid.fill(GridRect(column: rect.column, row: y, columns: rect.columns, rows: 1), style: style)
                    } else {
                        style = style.adding(.underline)
                    }
                }
                let marker = destination == current ? "▸" : " "
                let pad = String(repeating: " ", count: max(0, indent * 2 - 1))
                let badgeText = badge.map { " \($0)" } ?? ""
                let room = rect.columns - DisplayWidth.of(badgeText)
                grid.write(
                    DisplayWidth.truncate(pad + marker + label, to: max(0, room)), column: rect.column, row: y,
                    style: style, clip: rect)
                if let badge {
                    let badgeStyle = destination == selection && focused ? style : theme.warning.adding(.bold)
                    grid.write(
                        badge, column: rect.endColumn - DisplayWidth.of(badge), row: y, style: badgeStyle, clip: rect)
                }
            }
        }
        return hits
    }

    static func style(_ tone: TimelineItem.Tone, theme: Theme) -> CellStyle {
        switch tone {
        case .normal: theme.secondary
        case .warning: theme.warning
        case .error: theme.error
        case .success: theme.success
        }
    }
}
