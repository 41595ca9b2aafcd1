import SybilNet

/// `sybil ask`'s reply printer as it runs on a terminal (rendered Markdown, each completed
/// block written once, the growing block redrawn in place), for use outside the command:
/// `sybil-bench reply-render` times it per token over a long reply.
public final class TerminalReplyRendering: Sendable {
    private let printer: ReplyPrinter

    /// The printer for a terminal `columns` wide (styled unless `styled` is `false`), writing
    /// what a terminal would receive through `write`.
    public init(columns: Int, styled: Bool = true, write: @escaping @Sendable (String) -> Void) {
        let terminal = TerminalOutput(
            environment: styled ? [:] : ["NO_COLOR": "1"], isTerminal: true, size: (columns, 24))
        printer = ReplyPrinter(terminal: terminal, raw: false, write: write)
    }

    /// One delta of the reply's text.
    public func receive(_ text: String) {
        printer.write(text)
    }

    /// The reply ended: the growing block is drawn as complete.
    public func finish() {
        printer.finish()
    }
}
