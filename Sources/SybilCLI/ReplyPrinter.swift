import SybilCore
import SybilMarkdown
import SybilNet

/// Writes a reply to standard output as it streams. On a terminal the Markdown is rendered as
/// it arrives (styled unless `NO_COLOR`, wrapped to the terminal's width): each completed block
/// is written once, and the block still growing is drawn below it and redrawn in place with
/// every delta (back to its first row with CSI A, cleared to the end of the screen with CSI J),
/// so the screen ends as the rendering of the whole text. Elsewhere, or with `--raw`, the text
/// goes out exactly as it arrives, so a script gets the model's Markdown. Either way a reply
/// never writes a control character of its own text to a terminal.
///
/// Reasoning shows on a terminal as one dimmed "thinking…" line, erased when the answer starts;
/// with `showReasoning` the reasoning itself is printed before the answer (dimmed on a
/// terminal), with a blank line between them.
///
/// Public for `sybil-bench reply-render`, which times it per token over a long reply through
/// ``init(columns:styled:write:)``.
public final class ReplyPrinter: Sendable {
    /// The largest growing block redrawn in place: a longer one (an unclosed code fence) is
    /// shown when it completes, so the work per delta stays bounded.
    static let maximumLiveBlockBytes = 16 << 10
    /// The line shown while the model reasons and the reasoning is not printed.
    static let thinkingText = "thinking…"

    private enum Mode {
        /// Rendered Markdown.
        case rendered(MarkdownStreamRenderer)
        /// The text as it arrives; made display-safe when `safe`.
        case raw(safe: Bool)
    }

    private struct State {
        var mode: Mode
        var wroteText = false
        var finished = false
        /// How many rows the drawn growing block moved the cursor down; `nil` when none is drawn.
        var liveRows: Int?
        /// The drawn growing block (a delta that does not change it, such as a trailing space,
        /// redraws nothing).
        var liveText = ""
        /// Whether the "thinking…" line is on screen.
        var thinkingShown = false
        /// Whether reasoning was printed, and whether it ended a line.
        var reasoningShown = false
        var reasoningEndsLine = false
    }

    private let output: @Sendable (String) -> Void
    private let terminal: TerminalOutput
    private let showReasoning: Bool
    private let state: Locked<State>

    /// A printer for `terminal`, writing through `write`; `raw` keeps the text as it arrives;
    /// `showReasoning` prints the model's reasoning before the answer.
    init(
        terminal: TerminalOutput, raw: Bool, showReasoning: Bool = false,
        write: @escaping @Sendable (String) -> Void
    ) {
        output = write
        self.terminal = terminal
        self.showReasoning = showReasoning
        let mode: Mode =
            terminal.isTerminal && !raw
            ? .rendered(
                MarkdownStreamRenderer(
                    renderer: TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled)))
            : .raw(safe: terminal.isTerminal)
        state = Locked(State(mode: mode))
    }

    /// The printer `sybil ask` uses on a terminal `columns` wide (styled unless `styled` is
    /// `false`), writing what the terminal would receive through `write`.
    public convenience init(columns: Int, styled: Bool = true, write: @escaping @Sendable (String) -> Void) {
        let terminal = TerminalOutput(
            environment: styled ? [:] : ["NO_COLOR": "1"], isTerminal: true, size: (columns, 24))
        self.init(terminal: terminal, raw: false, write: write)
    }

    /// Writes one step of a reply: its reasoning, then its text.
    func receive(_ delta: ChatDelta) {
        if !delta.reasoning.isEmpty { writeReasoning(delta.reasoning) }
        if !delta.text.isEmpty { write(delta.text) }
    }

    /// Shows that the model reasons: the "thinking…" line once on a terminal, or the reasoning
    /// itself with `showReasoning`. Nothing once the answer started.
    func writeReasoning(_ reasoning: String) {
        let text = state.withLock { state -> String in
            guard !state.finished, !state.wroteText, !reasoning.isEmpty else { return "" }
            if showReasoning {
                state.reasoningShown = true
                state.reasoningEndsLine = reasoning.hasSuffix("\n")
                guard terminal.isTerminal else { return reasoning }
                return dimmed(TerminalText.safe(reasoning))
            }
            guard terminal.isTerminal, !state.thinkingShown else { return "" }
            state.thinkingShown = true
            return dimmed(Self.thinkingText)
        }
        if !text.isEmpty { output(text) }
    }

    /// Writes what `delta` completes and redraws the growing block (rendered mode) or `delta`
    /// itself (raw mode); nothing once the reply is finished (a delta a stopped stream still
    /// delivers is not shown unsaved).
    public func write(_ delta: String) {
        let text = state.withLock { state -> String in
            guard !state.finished, !delta.isEmpty else { return "" }
            var text = state.wroteText ? "" : answerStart(&state)
            state.wroteText = true
            switch state.mode {
            case .rendered(var renderer):
                state.mode = .raw(safe: true)  // the enum lets go, so feeding does not copy the buffer
                let completed = renderer.feed(delta)
                let live = liveDrawing(renderer)
                let unchanged = completed.isEmpty && state.liveRows != nil && live?.text == state.liveText
                if !unchanged, !completed.isEmpty || live != nil {
                    // A block that cannot be redrawn keeps its last drawing until it completes.
                    text += eraseLive(&state) + completed
                    if let live {
                        text += live.text
                        state.liveRows = live.rows
                        state.liveText = live.text
                    }
                }
                state.mode = .rendered(renderer)
            case .raw(let safe):
                text += safe ? TerminalText.safe(delta) : delta
            }
            return text
        }
        if !text.isEmpty { output(text) }
    }

    /// Writes the rest of the reply and ends it with a line break (nothing when no text came,
    /// beyond erasing the "thinking…" line and ending printed reasoning's line).
    public func finish() {
        let text = state.withLock { state -> String in
            guard !state.finished else { return "" }
            state.finished = true
            guard state.wroteText else {
                if state.thinkingShown { return Self.eraseLine }
                return state.reasoningShown && !state.reasoningEndsLine ? "\n" : ""
            }
            switch state.mode {
            case .rendered(var renderer):
                state.mode = .raw(safe: true)
                let erase = eraseLive(&state)
                let rest = renderer.finish()
                state.mode = .rendered(renderer)
                return erase + (rest.isEmpty || rest.hasSuffix("\n") ? rest : rest + "\n")
            case .raw:
                return "\n"
            }
        }
        if !text.isEmpty { output(text) }
    }

    // MARK: Drawing

    /// Back to the start of the line, and the line cleared.
    static let eraseLine = "\r\u{1B}[2K"

    /// What goes before the answer's first text: the "thinking…" line erased, or a blank line
    /// after printed reasoning.
    private func answerStart(_ state: inout State) -> String {
        if state.thinkingShown {
            state.thinkingShown = false
            return Self.eraseLine
        }
        guard state.reasoningShown else { return "" }
        return state.reasoningEndsLine ? "\n" : "\n\n"
    }

    /// Takes the cursor back to where the growing block's drawing began and clears from there
    /// to the end of the screen.
    private func eraseLive(_ state: inout State) -> String {
        guard let rows = state.liveRows else { return "" }
        state.liveRows = nil
        return "\r" + (rows > 0 ? "\u{1B}[\(rows)A" : "") + "\u{1B}[J"
    }

    /// The growing block's rendering and the rows it takes, when it is small enough and fits on
    /// the screen (else the cursor could not get back to its top).
    private func liveDrawing(_ renderer: MarkdownStreamRenderer) -> (text: String, rows: Int)? {
        guard renderer.pendingByteCount <= Self.maximumLiveBlockBytes else { return nil }
        let preview = renderer.preview()
        guard !preview.isEmpty else { return nil }
        let rows = Self.rowsAdvanced(by: preview, columns: terminal.columns)
        guard rows < terminal.rows else { return nil }
        return (preview, rows)
    }

    /// How many rows writing `text` from the first column moves the cursor down on a terminal
    /// `columns` wide: one per line break, plus one per wrap of a line wider than the terminal
    /// (a line exactly as wide leaves the cursor on its row). SGR and other CSI sequences take
    /// no columns.
    static func rowsAdvanced(by text: String, columns: Int) -> Int {
        var rows = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let width = DisplayWidth.columns(of: withoutControlSequences(line))
            if width > 0 { rows += (width - 1) / columns }
        }
        return rows + text.utf8.count(where: { $0 == 0x0A })
    }

    /// `line` without its CSI sequences (ESC [, parameters, one final byte).
    private static func withoutControlSequences(_ line: Substring) -> String {
        guard line.utf8.contains(0x1B) else { return String(line) }
        var result = ""
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else {
                result.unicodeScalars.append(scalar)
                continue
            }
            guard scalars.next() == "[" else { continue }
            while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
        }
        return result
    }

    /// `text` dimmed when the terminal is styled.
    private func dimmed(_ text: String) -> String {
        terminal.isStyled ? "\u{1B}[2m" + text + "\u{1B}[0m" : text
    }
}
