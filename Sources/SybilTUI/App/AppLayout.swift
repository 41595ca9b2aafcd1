/// Where each part of the screen goes for a size: the sidebar on the left (about 28 columns,
/// fewer on a narrow screen, none below 40 columns), a one-column border, the main area with
/// its title row, the timeline and the composer at the bottom (with the rows of its staged
/// attachments under it), and the status line on the last row. Pure.
public struct AppLayout: Sendable, Hashable {
    /// The sidebar (empty on a very narrow screen).
    public var sidebar: GridRect
    /// The border column between the sidebar and the main area.
    public var border: GridRect
    /// The title row of the main area.
    public var title: GridRect
    /// The timeline.
    public var timeline: GridRect
    /// The separator row above the composer.
    public var separator: GridRect
    /// The composer's text area (after its prompt).
    public var composer: GridRect
    /// The composer's prompt column(s).
    public var prompt: GridRect
    /// The rows under the composer listing its staged attachments (none when there are none).
    public var attachments: GridRect
    /// The status and key help line.
    public var status: GridRect

    /// The widest the sidebar gets.
    public static let sidebarWidth = 28
    /// The most rows the composer grows to.
    public static let maxComposerRows = 6

    /// The layout for `size` with a composer holding `composerLines` visual lines and
    /// `attachmentLines` rows of staged attachments under it (fewer when the screen is short:
    /// the timeline keeps at least one row).
    public init(size: TerminalSize, composerLines: Int, attachmentLines: Int = 0) {
        let columns = size.columns
        let rows = size.rows
        let sidebarWidth = columns < 40 ? 0 : min(Self.sidebarWidth, columns / 3)
        let borderWidth = sidebarWidth > 0 ? 1 : 0
        let mainColumn = sidebarWidth + borderWidth
        let mainWidth = columns - mainColumn
        let body = max(0, rows - 1)
        sidebar = GridRect(column: 0, row: 0, columns: sidebarWidth, rows: body)
        border = GridRect(column: sidebarWidth, row: 0, columns: borderWidth, rows: body)
        status = GridRect(column: 0, row: rows - 1, columns: columns, rows: 1)
        let composerRows = min(max(1, composerLines), Self.maxComposerRows, max(1, body - 3))
        let attachmentRows = max(0, min(attachmentLines, body - 3 - composerRows))
        attachments = GridRect(
            column: mainColumn + 2, row: body - attachmentRows, columns: max(0, mainWidth - 2), rows: attachmentRows)
        let composerTop = max(0, body - attachmentRows - composerRows)
        prompt = GridRect(column: mainColumn, row: composerTop, columns: min(2, mainWidth), rows: composerRows)
        composer = GridRect(column: mainColumn + 2, row: composerTop, columns: mainWidth - 2, rows: composerRows)
        separator = GridRect(
            column: mainColumn, row: composerTop - 1, columns: mainWidth, rows: composerTop >= 1 ? 1 : 0)
        title = GridRect(column: mainColumn, row: 0, columns: mainWidth, rows: body > 2 ? 1 : 0)
        let timelineTop = title.endRow
        timeline = GridRect(
            column: mainColumn, row: timelineTop, columns: mainWidth, rows: max(0, separator.row - timelineTop))
    }

    /// The width the composer wraps its text at.
    public static func composerWidth(size: TerminalSize) -> Int {
        AppLayout(size: size, composerLines: 1).composer.columns
    }
}
