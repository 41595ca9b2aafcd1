import SybilTimeline

/// How text from the history is written to a terminal: marked runs in bold (`ESC[1m`…`ESC[22m`)
/// when standard output is a terminal and `NO_COLOR` is not set, plain otherwise; and stored
/// text never carries control characters (an escape sequence in a saved reply cannot restyle
/// or move the person's terminal).
struct TerminalStyle {
    /// Whether bold is written.
    let isStyled: Bool

    /// The style for `io`: styled only on a terminal without a non-empty `NO_COLOR`
    /// (https://no-color.org).
    init(io: CommandIO) {
        isStyled = TerminalOutput(environment: io.environment, isTerminal: io.outputIsTerminal, size: nil).isStyled
    }

    /// `excerpt` with its marked runs in bold (when styled).
    func render(_ excerpt: SearchExcerpt) -> String {
        excerpt.runs.map { run in
            run.isMatch && isStyled ? "\u{1B}[1m\(run.text)\u{1B}[22m" : run.text
        }.joined()
    }
}
