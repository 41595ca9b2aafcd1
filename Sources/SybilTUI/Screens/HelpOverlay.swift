/// The key list (F1): every binding the app has, by where it works. Esc, F1, q or Return
/// closes it.
public enum HelpOverlay {
    /// The bindings: section titles (keys empty) and key → what it does.
    public static let bindings: [(keys: String, action: String)] = [
        ("", "Everywhere"),
        ("Tab / Shift+Tab", "Move focus: sidebar, timeline, composer"),
        ("Ctrl+K", "Search the saved chats"),
        ("Ctrl+R", "Refresh: the open session reloads; the sidebar lists again"),
        ("Ctrl+Q, F2", "Quick Question (Esc hides, Ctrl+O opens in a chat)"),
        ("F1", "This key list"),
        ("F3, Ctrl+B", "Breathe along with the sky-and-water scene"),
        ("F4", "Records: log a mood (1–5), sync (s)"),
        ("Ctrl+Alt+N", "New web search: the answer with sources, saved to history"),
        ("F5, Alt+1 twice", "Meditate: a timer saved as a record (Esc ends early)"),
        ("F6", "Next model of the server's list for this chat (kept with the chat)"),
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
        ("/model, /model NAME", "List the server's models; pick NAME for this chat"),
        ("/steer TEXT", "Steer the running workspace turn"),
        ("/attach PATH", "Attach a file to the next message (a line each); a chat lists it below"),
        ("/attachments", "List the attachments waiting to be sent (Agent room: their state)"),
        ("/detach N, /detach all", "Remove attachment N (or all) before sending"),
        ("", "Sidebar"),
        ("↑ / ↓, Home / End", "Move the selection"),
        ("Return, click", "Open the chat, the Agent room or a session"),
        ("", "Timeline"),
        ("↑ / ↓, Home / End", "Scroll; top; bottom (follow)"),
        ("r", "Retry the failed message"),
        ("R", "Resend all failed messages"),
        ("d", "Agent room: discard the refused message (text into an empty composer, else kept)"),
        ("d", "Session, chat, room: the oldest message kept back into an empty composer"),
        ("x", "Remove the draft's last failed attachment"),
        ("t", "Open the newest subagent thread (Esc goes back)"),
        ("a / A", "Select an older / newer attachment card in the Agent room"),
        ("v", "Preview the selected attachment as text (HTML, SVG never rendered)"),
        ("e", "Export the selected attachment's verified original to a new file"),
    ]

    /// One drawn line of the key list: a section title, or a binding's keys (on its first
    /// line only) and a piece of its action wrapped at words.
    public struct Line: Sendable, Hashable {
        /// The keys (empty on a title and on an action's later lines).
        public var keys: String
        /// The text: the title, or the action's piece.
        public var text: String
        /// Whether this is a section title.
        public var isTitle: Bool
    }

    /// The box the key list takes on a screen of `size`: as wide as 72 columns allow, as tall
    /// as its lines need and the screen allows.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = max(0, min(size.columns - 2, 72))
        let height = max(0, min(size.rows - 1, lines(width: width - 2).count + 2))
        return GridRect(
            column: max(0, (size.columns - width) / 2), row: max(0, (size.rows - height) / 2), columns: width,
            rows: height)
    }

    /// The columns the keys take in an inner width of `width`.
    static func keyWidth(_ width: Int) -> Int { min(32, width / 2) }

    /// The key list laid out for an inner width of `width`: actions wrapped at words (a word
    /// wider than the room is cut with "…"), never cut mid-word.
    public static func lines(width: Int) -> [Line] {
        let room = max(1, width - keyWidth(width) - 1)
        var lines: [Line] = []
        for binding in bindings {
            guard !binding.keys.isEmpty else {
                lines.append(
                    Line(keys: "", text: DisplayWidth.truncate(binding.action, to: max(1, width)), isTitle: true))
                continue
            }
            for (index, piece) in wrap(binding.action, width: room).enumerated() {
                lines.append(Line(keys: index == 0 ? binding.keys : "", text: piece, isTitle: false))
            }
        }
        return lines
    }

    /// `text` wrapped at spaces into lines of at most `width` columns.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let word = DisplayWidth.truncate(word, to: width)
            if current.isEmpty {
                current = word
            } else if DisplayWidth.of(current) + 1 + DisplayWidth.of(word) <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// The furthest the list scrolls in `rect` (0 when it fits).
    public static func maximumScroll(in rect: GridRect) -> Int {
        let inner = rect.inset(by: 1)
        return max(0, lines(width: inner.columns).count - inner.rows)
    }

    /// Draws the key list in `rect` from line `scroll` (clamped); "↑"/"↓ more" in the frame
    /// say that lines are above or below.
    public static func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme, scroll: Int = 0) {
        Box.draw(into: &grid, rect, title: "Keys (Esc closes)", theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 0, inner.columns > 0 else { return }
        let all = lines(width: inner.columns)
        let first = min(max(0, scroll), max(0, all.count - inner.rows))
        let keyWidth = keyWidth(inner.columns)
        for (offset, line) in all.dropFirst(first).prefix(inner.rows).enumerated() {
            let y = inner.row + offset
            if line.isTitle {
                grid.write(line.text, column: inner.column, row: y, style: theme.accent, clip: inner)
            } else {
                grid.write(
                    DisplayWidth.truncate(line.keys, to: keyWidth - 1), column: inner.column + 1, row: y,
                    style: theme.text.adding(.bold), clip: inner)
                grid.write(line.text, column: inner.column + keyWidth + 1, row: y, style: theme.text, clip: inner)
            }
        }
        if first > 0 {
            grid.write(" ↑ more ", column: rect.endColumn - 10, row: rect.row, style: theme.secondary, clip: rect)
        }
        if first + inner.rows < all.count {
            grid.write(
                " ↓ more (↓, PgDn) ", column: max(rect.column + 1, rect.endColumn - 20), row: rect.endRow - 1,
                style: theme.secondary, clip: rect)
        }
    }
}
