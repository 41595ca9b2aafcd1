/// The key list (F1): every binding the app has, by where it works. Esc, F1, q or Return
/// closes it.
public enum HelpOverlay {
    /// The bindings: section titles (keys empty) and key → what it does.
    public static let bindings: [(keys: String, action: String)] = [
        ("", "Everywhere"),
        ("Tab / Shift+Tab", "Move focus: sidebar, timeline, composer"),
        ("Ctrl+K", "Search the saved chats"),
        ("Ctrl+Q, F2", "Quick Question (Esc hides, Ctrl+O opens in a chat)"),
        ("F1", "This key list"),
        ("F3, Ctrl+B", "Breathe along with the sky-and-water scene"),
        ("F4", "Records: log a mood (1–5), sync (s)"),
        ("Ctrl+Alt+N", "New web search: the answer with sources, saved to history"),
        ("F5, Alt+1 twice", "Meditate: a timer saved as a record (Esc ends early)"),
        ("Alt+1, click Chats", "To the sidebar's chats"),
        ("PgUp / PgDn, wheel", "Scroll the timeline"),
        ("Ctrl+C", "Stop the reply; twice within 2 s quits"),
        ("Ctrl+D", "Quit (on an empty composer)"),
        ("Ctrl+Z", "Suspend (fg brings it back)"),
        ("Esc", "Close an overlay; back to the sidebar"),
        ("", "Composer"),
        ("Return", "Send"),
        ("Alt+Enter, Ctrl+J, Shift+Enter", "New line"),
        ("Ctrl+A / Ctrl+E, Home / End", "Start / end of the line"),
        ("Ctrl+W, Ctrl+U", "Delete a word / to the line start"),
        ("/steer TEXT", "Steer the running workspace turn"),
        ("/attach PATH", "Attach a file to the next message, Agent room or session (a line each)"),
        ("/attachments", "List the Agent room draft's attachments with their state"),
        ("/detach N, /detach all", "Remove attachment N (or all) from the Agent room draft"),
        ("", "Sidebar"),
        ("↑ / ↓, Home / End", "Move the selection"),
        ("Return, click", "Open the chat, the Agent room or a session"),
        ("", "Timeline"),
        ("↑ / ↓, Home / End", "Scroll; top; bottom (follow)"),
        ("r", "Retry the failed message"),
        ("R", "Resend all failed messages"),
        ("d", "Discard the message refused for good (text back in the composer)"),
        ("x", "Remove the draft's last failed attachment"),
        ("t", "Open the newest subagent thread (Esc goes back)"),
    ]

    /// The box the key list takes on a screen of `size`.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = min(size.columns - 2, 72)
        let height = min(size.rows - 1, bindings.count + 3)
        return GridRect(
            column: (size.columns - width) / 2, row: max(0, (size.rows - height) / 2), columns: width, rows: height)
    }

    /// Draws the key list in `rect`.
    public static func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) {
        Box.draw(into: &grid, rect, title: "Keys (Esc closes)", theme: theme)
        let inner = rect.inset(by: 1)
        let keyWidth = min(32, inner.columns / 2)
        for (offset, binding) in bindings.prefix(inner.rows).enumerated() {
            let y = inner.row + offset
            if binding.keys.isEmpty {
                grid.write(binding.action, column: inner.column, row: y, style: theme.accent, clip: inner)
            } else {
                grid.write(
                    DisplayWidth.truncate(binding.keys, to: keyWidth - 1), column: inner.column + 1, row: y,
                    style: theme.text.adding(.bold), clip: inner)
                grid.write(binding.action, column: inner.column + keyWidth + 1, row: y, style: theme.text, clip: inner)
            }
        }
    }
}
