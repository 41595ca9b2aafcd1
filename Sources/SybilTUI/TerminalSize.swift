/// The terminal's size in cells.
public struct TerminalSize: Sendable, Hashable {
    /// Columns.
    public var columns: Int
    /// Rows.
    public var rows: Int

    /// Creates a size; values below 1 become 1.
    public init(columns: Int, rows: Int) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }

    /// The size assumed when the terminal does not say (80 × 24).
    public static let fallback = TerminalSize(columns: 80, rows: 24)
}
