import Foundation
import SybilStore

/// What the commands know about where their standard output goes: whether it is a terminal,
/// whether styling is wanted there (a terminal and no non-empty `NO_COLOR`,
/// https://no-color.org), and its size — `$COLUMNS` / `$LINES` when set and in range, else the
/// terminal's own, else 80×24. Every command that lays text out or styles it asks this one
/// place, so `ask`, `search`, `history` and `breathe` agree.
struct TerminalOutput: Equatable {
    /// Whether standard output is a terminal.
    var isTerminal: Bool
    /// Whether terminal styling (SGR sequences) is written.
    var isStyled: Bool
    /// The width in columns (10…1,000).
    var columns: Int
    /// The height in rows (5…500).
    var rows: Int

    /// Columns and rows together.
    var size: (columns: Int, rows: Int) { (columns, rows) }

    /// The accepted `$COLUMNS` values.
    static let columnRange = 10...1_000
    /// The accepted `$LINES` values.
    static let rowRange = 5...500

    /// The output of `io`.
    init(io: CommandIO) {
        self.init(environment: io.environment, isTerminal: io.outputIsTerminal, size: io.terminalSize())
    }

    /// The output for an environment, a terminal check and the terminal's reported size.
    init(environment: [String: String], isTerminal: Bool, size: (columns: Int, rows: Int)?) {
        self.isTerminal = isTerminal
        isStyled = isTerminal && (environment["NO_COLOR"].map(\.isEmpty) ?? true)
        var columns = 80
        var rows = 24
        if isTerminal, let size {
            columns = size.columns
            rows = size.rows
        }
        if let value = environment["COLUMNS"].flatMap({ Int($0) }), Self.columnRange.contains(value) { columns = value }
        if let value = environment["LINES"].flatMap({ Int($0) }), Self.rowRange.contains(value) { rows = value }
        self.columns = min(max(columns, Self.columnRange.lowerBound), Self.columnRange.upperBound)
        self.rows = min(max(rows, Self.rowRange.lowerBound), Self.rowRange.upperBound)
    }
}

extension TerminalOutput {
    /// A terminal's raw stream for transient status lines.
    struct StatusLine: Sendable {
        /// Writes `text` as is, control sequences included.
        var write: @Sendable (String) -> Void
    }

    /// Where transient status (the spinner while a reply has not started) is drawn: standard
    /// error when it is a terminal, written as is, because ``CommandIO/writeError`` shows the
    /// carriage return and CSI sequences a redraw needs as U+FFFD; `nil` when standard error is
    /// not a terminal. Tests bind their own.
    @TaskLocal static var statusLine: StatusLine? = standardErrorStatusLine()

    private static func standardErrorStatusLine() -> StatusLine? {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        return StatusLine { text in StandardStream.error.write(text) }
    }
}
