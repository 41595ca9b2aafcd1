/// Where the terminal's cursor goes once a frame is drawn, and whether it shows.
public struct CursorPlacement: Sendable, Hashable {
    /// The column, from 0 (clamped to the frame).
    public var column: Int
    /// The row, from 0 (clamped to the frame).
    public var row: Int
    /// Whether the cursor is shown (`CSI ? 25 h`) or hidden (`CSI ? 25 l`).
    public var visible: Bool

    /// Creates a placement, shown by default.
    public init(column: Int, row: Int, visible: Bool = true) {
        self.column = column
        self.row = row
        self.visible = visible
    }
}
