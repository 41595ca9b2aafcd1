/// The Quick Question overlay (Ctrl+Q or F2): the prompt (selected when the panel opens, so
/// typing replaces it), the question asked and its answer as it streams (Markdown), and what
/// to do next. Hiding keeps the draft and the answer (the model keeps them; an answer in flight
/// goes on). Pure: the app edits the prompt, the runner copies in what the model publishes.
public struct QuickQuestionOverlay: Sendable, Hashable {
    /// The prompt being written.
    public var prompt = ComposerBuffer()
    /// Whether the whole prompt is selected (the first key typed replaces it).
    public var isPromptSelected = false
    /// The model asked.
    public var model = ""
    /// The question of the answer shown, if one was asked.
    public var question: String?
    /// The answer so far.
    public var answer = ""
    /// Whether the answer is still arriving.
    public var isAnswering = false
    /// A line about the answer: stopped, failed, an error.
    public var status: String?

    /// An overlay showing `draft`, selected.
    public init(draft: String = "") {
        prompt = ComposerBuffer(text: draft)
        prompt.cursor = draft.count
        isPromptSelected = !draft.isEmpty
    }

    /// Types `text`, replacing the prompt while it is selected.
    public mutating func type(_ text: String) {
        if isPromptSelected { prompt.clear() }
        isPromptSelected = false
        prompt.insert(text)
    }

    /// The box the overlay takes on a screen of `size`.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = min(size.columns - 4, 90)
        let height = min(size.rows - 2, 24)
        return GridRect(column: (size.columns - width) / 2, row: 1, columns: width, rows: height)
    }

    /// The key hints on the overlay's last row.
    static let hints = "Return asks · Ctrl+O opens in a chat · Esc hides"

    /// Draws the overlay in `rect` and returns where the cursor goes (in the prompt).
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) -> (column: Int, row: Int) {
        Box.draw(into: &grid, rect, title: "Quick Question · \(model)", theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 3, inner.columns > 4 else { return (inner.column, inner.row) }
        let promptWidth = inner.columns - 2
        let layout = prompt.layout(width: max(1, promptWidth))
        let promptRows = min(layout.lines.count, 3)
        let first = max(0, min(layout.cursorLine - promptRows + 1, layout.lines.count - promptRows))
        grid.write("› ", column: inner.column, row: inner.row, style: theme.accent, clip: inner)
        let style = isPromptSelected ? theme.selection : theme.text
        if prompt.isEmpty {
            grid.write("Ask anything…", column: inner.column + 2, row: inner.row, style: theme.secondary, clip: inner)
        }
        for (offset, line) in layout.lines.dropFirst(first).prefix(promptRows).enumerated() {
            grid.write(line, column: inner.column + 2, row: inner.row + offset, style: style, clip: inner)
        }
        let separator = inner.row + promptRows
        grid.write(
            String(repeating: "─", count: inner.columns), column: inner.column, row: separator, style: theme.border,
            clip: inner)
        var y = separator + 1
        let answerBottom = inner.endRow - 2
        if let question, y < answerBottom {
            grid.write(
                DisplayWidth.truncate(
                    "You asked: " + question.replacingOccurrences(of: "\n", with: " "), to: inner.columns),
                column: inner.column, row: y, style: theme.user, clip: inner)
            y += 1
        }
        let lines = MarkdownLines.lines(markdown: answer, width: max(1, inner.columns), theme: theme)
        let room = max(0, answerBottom - y)
        // The newest part of the answer stays in view while it streams.
        for line in lines.suffix(room) {
            grid.write(line, column: inner.column, row: y, clip: inner)
            y += 1
        }
        let statusLine = isAnswering ? "Answering… (Ctrl+C stops)" : status
        if let statusLine {
            grid.write(
                DisplayWidth.truncate(statusLine, to: inner.columns), column: inner.column, row: inner.endRow - 2,
                style: isAnswering ? theme.secondary : theme.warning, clip: inner)
        }
        grid.write(
            DisplayWidth.truncate(Self.hints, to: inner.columns), column: inner.column, row: inner.endRow - 1,
            style: theme.secondary, clip: inner)
        return (
            min(inner.column + 2 + layout.cursorColumn, inner.endColumn - 1),
            inner.row + layout.cursorLine - first
        )
    }
}
