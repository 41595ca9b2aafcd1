import SybilCore
import SybilMarkdown

/// Writes a reply to standard output as it streams. On a terminal the Markdown is rendered
/// block by block as each block completes (styled unless `NO_COLOR`, wrapped to the terminal's
/// width); elsewhere, or with `--raw`, the text goes out exactly as it arrives, so a script gets
/// the model's Markdown. Either way a reply never writes a control character to a terminal.
final class ReplyPrinter: Sendable {
    private enum Mode {
        /// Rendered Markdown.
        case rendered(MarkdownStreamRenderer)
        /// The text as it arrives; made display-safe when `safe`.
        case raw(safe: Bool)
    }

    private let output: @Sendable (String) -> Void
    private let state: Locked<(mode: Mode, wroteText: Bool, finished: Bool)>

    /// A printer for `terminal`, writing through `write`; `raw` keeps the text as it arrives.
    init(terminal: TerminalOutput, raw: Bool, write: @escaping @Sendable (String) -> Void) {
        output = write
        let mode: Mode =
            terminal.isTerminal && !raw
            ? .rendered(
                MarkdownStreamRenderer(
                    renderer: TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled)))
            : .raw(safe: terminal.isTerminal)
        state = Locked((mode, false, false))
    }

    /// Writes what `delta` completes (rendered mode) or `delta` itself (raw mode); nothing once
    /// the reply is finished (a delta a stopped stream still delivers is not shown unsaved).
    func write(_ delta: String) {
        let text = state.withLock { state -> String in
            guard !state.finished else { return "" }
            state.wroteText = state.wroteText || !delta.isEmpty
            switch state.mode {
            case .rendered(var renderer):
                state.mode = .raw(safe: true)  // the enum lets go, so feeding does not copy the buffer
                let text = renderer.feed(delta)
                state.mode = .rendered(renderer)
                return text
            case .raw(let safe):
                return safe ? TerminalText.safe(delta) : delta
            }
        }
        if !text.isEmpty { output(text) }
    }

    /// Writes the rest of the reply and ends it with a line break (nothing when no text came).
    func finish() {
        let text = state.withLock { state -> String in
            guard !state.finished else { return "" }
            state.finished = true
            guard state.wroteText else { return "" }
            switch state.mode {
            case .rendered(var renderer):
                state.mode = .raw(safe: true)
                let rest = renderer.finish()
                state.mode = .rendered(renderer)
                return rest.isEmpty || rest.hasSuffix("\n") ? rest : rest + "\n"
            case .raw:
                return "\n"
            }
        }
        if !text.isEmpty { output(text) }
    }
}
