import SybilCore
import SybilWire

/// The preview of the Agent room's selected attachment card (`v` in the timeline): the text
/// `AgentAttachmentPreviewText` makes of the verified original (HTML and SVG as text, never
/// rendered; an image's type and size), drawn line by line in a box that scrolls. Everything
/// shown is made safe for the terminal again and bounded: at most ``maxLines`` lines, each cut
/// to the box with "…" (tabs become spaces).
public struct AttachmentPreviewOverlay: Sendable, Hashable {
    /// The most lines kept.
    public static let maxLines = 4_000

    /// The attachment shown.
    public var attachment: AgentAttachment
    /// The preview's lines, `nil` while the original downloads.
    public private(set) var lines: [String]?
    /// Why there is no preview (the download or the check failed).
    public var failure: String?
    /// The first line shown.
    public var scroll = 0

    /// A preview of `attachment` waiting for its text.
    public init(attachment: AgentAttachment) {
        self.attachment = attachment
    }

    /// Shows `text`: made safe, tabs as four spaces, cut to ``maxLines`` lines.
    public mutating func show(_ text: String) {
        var result: [String] = []
        for line in TerminalText.safe(text).split(separator: "\n", omittingEmptySubsequences: false) {
            guard result.count < Self.maxLines else {
                result.append("… (more lines than the preview shows; e exports the file)")
                break
            }
            result.append(line.replacingOccurrences(of: "\t", with: "    "))
        }
        if result.last == "" { result.removeLast() }
        lines = result
        failure = nil
        scroll = 0
    }

    /// The box on a screen of `size`: as wide as 100 columns allow, all but two rows high.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = max(0, min(size.columns - 2, 100))
        let height = max(0, size.rows - 2)
        return GridRect(
            column: max(0, (size.columns - width) / 2), row: max(0, (size.rows - height) / 2), columns: width,
            rows: height)
    }

    /// The text rows inside `rect` (the last inner row holds the keys).
    static func textRows(in rect: GridRect) -> Int { max(0, rect.inset(by: 1).rows - 1) }

    /// The furthest the preview scrolls in `rect`.
    public func maximumScroll(in rect: GridRect) -> Int {
        max(0, (lines?.count ?? 0) - Self.textRows(in: rect))
    }

    /// Moves the first line shown by `delta`, within the text.
    public mutating func scroll(by delta: Int, in rect: GridRect) {
        scroll = min(max(0, scroll.addingReportingOverflow(delta).partialValue), maximumScroll(in: rect))
    }

    /// Draws the preview in `rect`.
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) {
        Box.draw(
            into: &grid, rect, title: "Preview · " + TerminalText.oneLine(attachment.fileName) + " (Esc closes)",
            theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 0, inner.columns > 0 else { return }
        let rows = Self.textRows(in: rect)
        if let lines {
            let first = min(max(0, scroll), maximumScroll(in: rect))
            for (offset, line) in lines.dropFirst(first).prefix(rows).enumerated() {
                grid.write(
                    DisplayWidth.truncate(line, to: inner.columns), column: inner.column, row: inner.row + offset,
                    style: theme.text, clip: inner)
            }
        } else {
            let message = failure.map { "No preview: " + TerminalText.oneLine($0) } ?? "Downloading the original…"
            grid.write(
                DisplayWidth.truncate(message, to: inner.columns), column: inner.column, row: inner.row,
                style: failure == nil ? theme.secondary : theme.error, clip: inner)
        }
        grid.write(
            DisplayWidth.truncate("↑/↓, PgUp/PgDn scroll · e exports the original · Esc closes", to: inner.columns),
            column: inner.column, row: inner.endRow - 1, style: theme.secondary, clip: inner)
    }
}
