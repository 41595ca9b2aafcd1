extension TerminalApp {
    /// The key hints of the status line when nothing else is to be said.
    static let keyHints = "Tab focus · Ctrl+K search · F1 keys · Ctrl+D quit"
    /// The fewest columns the header is drawn in (else it is left out, the title whole).
    static let headerMinimumColumns = 10

    /// Draws the whole screen for `size` and says where the cursor goes (`nil`: hidden). The
    /// frame depends only on the state (the timeline's layout cache and scroll position are
    /// updated as a side effect of laying out, never of the clock).
    public mutating func render(size newSize: TerminalSize) -> (CellGrid, CursorPlacement?) {
        size = newSize
        let composerWidth = AppLayout.composerWidth(size: size)
        // The composer shows at most its tallest height of lines around the cursor.
        let composed = composer.layout(width: max(1, composerWidth), around: AppLayout.maxComposerRows - 1)
        let staged = stagedAttachmentRows(width: composerWidth)
        let layout = AppLayout(size: size, composerLines: composed.lines.count, attachmentLines: staged.count)
        var grid = CellGrid(columns: size.columns, rows: size.rows, style: theme.text)

        sidebarHits = sidebar.draw(
            into: &grid, in: layout.sidebar, theme: theme, focused: focus == .sidebar && overlay == nil)
        sidebarChatsRow =
            !layout.sidebar.isEmpty && sidebar.firstVisibleRow(height: layout.sidebar.rows) == 0
            ? layout.sidebar.row : nil
        for y in layout.border.row..<layout.border.endRow where !layout.border.isEmpty {
            grid.write("│", column: layout.border.column, row: y, style: theme.border)
        }
        drawTitle(into: &grid, layout.title)
        drawTimeline(into: &grid, layout.timeline)
        let separatorStyle = focus == .composer && overlay == nil ? theme.accent : theme.border
        if !layout.separator.isEmpty {
            grid.write(
                String(repeating: "─", count: layout.separator.columns), column: layout.separator.column,
                row: layout.separator.row, style: separatorStyle.subtracting(.bold))
        }
        let cursor = drawComposer(into: &grid, layout: layout, composed: composed)
        for (offset, row) in staged.prefix(layout.attachments.rows).enumerated() {
            grid.write(
                row, column: layout.attachments.column, row: layout.attachments.row + offset, style: theme.secondary,
                clip: layout.attachments)
        }
        drawStatus(into: &grid, layout.status)

        switch overlay {
        case .breathing:
            breathing?.resize(size)
            breathing?.draw(into: &grid, in: grid.bounds, theme: theme)
            return (grid, nil)
        case .webSearch(let prompt):
            let end = prompt.draw(into: &grid, in: WebSearchPrompt.frame(size: size), theme: theme)
            return (grid, CursorPlacement(column: end.column, row: end.row))
        case .meditation:
            meditation?.resize(size)
            meditation?.draw(into: &grid, in: grid.bounds, theme: theme)
            return (grid, nil)
        case .records(let records):
            records.draw(into: &grid, in: RecordsOverlay.frame(size: size), theme: theme)
            return (grid, nil)
        case .attachmentPreview(let preview):
            preview.draw(into: &grid, in: AttachmentPreviewOverlay.frame(size: size), theme: theme)
            return (grid, nil)
        case .help:
            HelpOverlay.draw(into: &grid, in: HelpOverlay.frame(size: size), theme: theme, scroll: helpScroll)
            return (grid, nil)
        case .search(let search):
            let end = search.draw(into: &grid, in: SearchOverlay.frame(size: size), theme: theme)
            return (grid, CursorPlacement(column: end.column, row: end.row))
        case .quickQuestion(let quick):
            let end = quick.draw(into: &grid, in: QuickQuestionOverlay.frame(size: size), theme: theme)
            return (grid, CursorPlacement(column: end.column, row: end.row))
        case nil:
            return (grid, focus == .composer ? cursor : nil)
        }
    }

    private func drawTitle(into grid: inout CellGrid, _ rect: GridRect) {
        guard !rect.isEmpty else { return }
        let marker = focus == .timeline && overlay == nil ? "▌" : " "
        grid.write(marker, column: rect.column, row: rect.row, style: theme.accent, clip: rect)
        // The header (server and model) takes the right of what the whole title leaves, after
        // a gap of 2, when at least ``headerMinimumColumns`` are left; the title is never cut
        // for it.
        let titleColumns = rect.columns - 1
        if let header, !header.isEmpty {
            let room = titleColumns - DisplayWidth.of(title) - 2
            if room >= Self.headerMinimumColumns {
                let shown = DisplayWidth.truncate(header, to: room)
                let width = DisplayWidth.of(shown)
                grid.write(shown, column: rect.endColumn - width, row: rect.row, style: theme.secondary, clip: rect)
            }
        }
        grid.write(
            DisplayWidth.truncate(title, to: max(0, titleColumns)), column: rect.column + 1, row: rect.row,
            style: theme.accent, clip: rect)
    }

    private mutating func drawTimeline(into grid: inout CellGrid, _ rect: GridRect) {
        guard !rect.isEmpty else { return }
        defer {
            if let cover = timelineCover {
                grid.fill(rect, style: theme.text)
                grid.write(
                    DisplayWidth.truncate(cover, to: rect.columns - 1), column: rect.column + 1,
                    row: rect.row + rect.rows / 2, style: theme.secondary, clip: rect)
            }
        }
        if items.isEmpty {
            timelineViewport = .empty(rows: rect.rows)
            grid.fill(rect, style: theme.text)
            let hint =
                sidebar.current == .agent
                ? "Write to Sybil Agent below; Return sends." : "Type a message below and press Return."
            grid.write(
                DisplayWidth.truncate(hint, to: rect.columns - 1), column: rect.column + 1,
                row: rect.row + rect.rows / 2, style: theme.secondary, clip: rect)
            return
        }
        timelineViewport = TimelineView().draw(
            into: &grid, in: rect, items: items, scroll: &scroll, layout: &timelineLayout, theme: theme,
            measuring: timelineMeasuredLines)
    }

    private func drawComposer(into grid: inout CellGrid, layout: AppLayout, composed: ComposerLayout)
        -> CursorPlacement?
    {
        let rect = layout.composer
        guard !rect.isEmpty else { return nil }
        grid.write("› ", column: layout.prompt.column, row: layout.prompt.row, style: theme.accent, clip: layout.prompt)
        if composer.isEmpty {
            let placeholder =
                switch sidebar.current {
                case .agent: "Message Sybil Agent…"
                case .session: "Message the workspace session…"
                default: "Message Sybil…"
                }
            grid.write(
                DisplayWidth.truncate(placeholder, to: rect.columns), column: rect.column, row: rect.row,
                style: theme.secondary, clip: rect)
            return CursorPlacement(column: rect.column, row: rect.row)
        }
        let first = max(0, min(composed.cursorLine - rect.rows + 1, composed.lines.count - rect.rows))
        for (offset, line) in composed.lines.dropFirst(first).prefix(rect.rows).enumerated() {
            grid.write(line, column: rect.column, row: rect.row + offset, style: theme.text, clip: rect)
        }
        return CursorPlacement(
            column: min(rect.column + composed.cursorColumn, rect.endColumn - 1),
            row: rect.row + composed.cursorLine - first)
    }

    private func drawStatus(into grid: inout CellGrid, _ rect: GridRect) {
        guard !rect.isEmpty else { return }
        if notice == nil, focus == .sidebar, overlay == nil, !sidebar.statusLines.isEmpty {
            // What the sidebar's column cuts is read here in full, on the whole line (F1 still
            // lists the keys).
            let lines = sidebar.statusLines.joined(separator: " · ")
            grid.write(
                DisplayWidth.truncate(lines, to: rect.columns), column: rect.column, row: rect.row,
                style: theme.secondary, clip: rect)
            return
        }
        let style = notice != nil ? theme.warning : theme.secondary
        let left = notice ?? screenStatus ?? ""
        let hints = Self.keyHints
        let room = rect.columns - DisplayWidth.of(hints) - 2
        if room >= 12 || left.isEmpty {
            grid.write(
                DisplayWidth.truncate(left, to: max(0, room)), column: rect.column, row: rect.row, style: style,
                clip: rect)
            if DisplayWidth.of(hints) <= rect.columns {
                grid.write(
                    hints, column: rect.endColumn - DisplayWidth.of(hints), row: rect.row, style: theme.secondary,
                    clip: rect)
            }
        } else {
            grid.write(
                DisplayWidth.truncate(left, to: rect.columns), column: rect.column, row: rect.row, style: style,
                clip: rect)
        }
    }
}

extension CellStyle {
    /// This style without `attributes`.
    func subtracting(_ attributes: CellAttributes) -> CellStyle {
        var copy = self
        copy.attributes.subtract(attributes)
        return copy
    }
}
