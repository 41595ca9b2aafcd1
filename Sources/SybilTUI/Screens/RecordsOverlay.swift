import SybilClient
import SybilWire

/// The records overlay (F4): the device's records newest first with whether each is synced,
/// the unsynced count and the last sync's outcome; 1–5 logs a mood, `s` syncs. Pure: the
/// runner copies in what the records model publishes.
public struct RecordsOverlay: Sendable, Hashable {
    /// One record as listed.
    public struct Row: Sendable, Hashable {
        /// `mood 4`, `breathing 120 s, 12 cycles`.
        public var summary: String
        /// `synced`, `unsynced`, `rejected: …`.
        public var state: String
        /// Whether it is synced.
        public var isSynced: Bool
    }

    /// The records, newest first.
    public var rows: [Row] = []
    /// How many are not synced.
    public var unsynced = 0
    /// The last sync's outcome or an error.
    public var status: String?

    /// An empty overlay.
    public init() {}

    /// The overlay's content for `model`'s state.
    @MainActor
    public static func showing(_ model: RecordsModel) -> RecordsOverlay {
        var overlay = RecordsOverlay()
        overlay.rows = model.records.map { stored in
            Row(summary: summary(stored.record), state: state(stored), isSynced: stored.isSynced)
        }
        overlay.unsynced = model.unsyncedCount
        switch model.syncState {
        case .idle: overlay.status = model.lastError
        case .syncing: overlay.status = "Syncing…"
        case .finished: overlay.status = model.lastError ?? "Synced."
        case .failed: overlay.status = model.lastError ?? "The sync failed."
        }
        return overlay
    }

    /// `mood 4 "slept well"`, `breathing 120 s, 12 cycles`, `meditation 600 s`, `profile Ana`.
    static func summary(_ record: Record) -> String {
        switch record.payload {
        case .user(let name): "profile \(name)"
        case .mood(let score, let note): "mood \(score)" + (note.map { " “\($0)”" } ?? "")
        case .breathing(let seconds, let cycles): "breathing \(seconds) s, \(cycles) cycles"
        case .meditation(let seconds): "meditation \(seconds) s"
        }
    }

    static func state(_ stored: RecordListItem) -> String {
        if stored.isSynced { return "synced" }
        if let rejection = stored.rejection { return "rejected: \(rejection.message)" }
        return "unsynced"
    }

    /// The box the overlay takes on a screen of `size`.
    public static func frame(size: TerminalSize) -> GridRect {
        let width = min(size.columns - 4, 70)
        let height = min(size.rows - 2, 20)
        return GridRect(column: (size.columns - width) / 2, row: 1, columns: width, rows: height)
    }

    /// Draws the overlay in `rect`.
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) {
        Box.draw(into: &grid, rect, title: "Records · \(unsynced) unsynced", theme: theme)
        let inner = rect.inset(by: 1)
        guard inner.rows > 2 else { return }
        var y = inner.row
        if rows.isEmpty {
            grid.write("Nothing recorded yet.", column: inner.column, row: y, style: theme.secondary, clip: inner)
            y += 1
        }
        for row in rows.prefix(max(0, inner.rows - 2)) {
            let stateWidth = min(DisplayWidth.of(row.state), inner.columns / 2)
            grid.write(
                DisplayWidth.truncate(row.summary, to: inner.columns - stateWidth - 1), column: inner.column, row: y,
                style: theme.text, clip: inner)
            grid.write(
                DisplayWidth.truncate(row.state, to: stateWidth), column: inner.endColumn - stateWidth, row: y,
                style: row.isSynced ? theme.success : theme.warning, clip: inner)
            y += 1
        }
        if let status {
            grid.write(
                DisplayWidth.truncate(status, to: inner.columns), column: inner.column, row: inner.endRow - 2,
                style: theme.secondary, clip: inner)
        }
        grid.write(
            DisplayWidth.truncate("1–5 logs a mood · s syncs · Esc closes", to: inner.columns), column: inner.column,
            row: inner.endRow - 1, style: theme.secondary, clip: inner)
    }
}
