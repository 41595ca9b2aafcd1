/// What one draw of a ``TimelineView`` showed, in lines: which items are on screen and where
/// their first lines are, and how many lines lie above and below the viewport, measured up to
/// a limit (a virtualized view never lays out the whole history). A screen model that decides
/// scrolling (the workspace chat's) is told these facts after each draw.
public struct TimelineDrawReport: Sendable, Hashable {
    /// An item on screen: its id and the row of its first line, counted from the viewport's
    /// top (negative when the item starts above it).
    public struct Item: Sendable, Hashable {
        /// The item's id.
        public var id: String
        /// The row of its first line relative to the viewport's top.
        public var row: Int

        /// An item whose first line is at `row`.
        public init(id: String, row: Int) {
            self.id = id
            self.row = row
        }
    }

    /// The viewport's height in rows.
    public var rows: Int
    /// The items drawn, top first.
    public var items: [Item]
    /// Lines above the viewport's top, at most ``limit`` (more are not counted).
    public var linesAbove: Int
    /// Lines of content in the viewport: `rows`, or fewer when the content ends above the
    /// bottom row.
    public var linesShown: Int
    /// Lines below the viewport's bottom row, at most ``limit``.
    public var linesBelow: Int
    /// How far above and below was measured.
    public var limit: Int

    /// A measurement.
    public init(rows: Int, items: [Item], linesAbove: Int, linesShown: Int, linesBelow: Int, limit: Int) {
        self.rows = rows
        self.items = items
        self.linesAbove = linesAbove
        self.linesShown = linesShown
        self.linesBelow = linesBelow
        self.limit = limit
    }

    /// An empty timeline in a viewport `rows` high.
    public static func empty(rows: Int) -> TimelineDrawReport {
        TimelineDrawReport(rows: rows, items: [], linesAbove: 0, linesShown: 0, linesBelow: 0, limit: 0)
    }
}
