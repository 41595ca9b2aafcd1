import SybilWire

/// The rows the chat list shows, built from the host's timeline rows (SPEC §4.4): thinking
/// rows leave the list, the active run's live thinking becomes the pinned status, and rows of
/// a subagent's panel are hidden (the thread viewer shows them). A pure function of its input:
/// the list never adds or removes a message on its own.
public struct DisplayRows: Sendable, Hashable {
    /// The rows, in timeline order; identity is ``TimelineRow/id``.
    public var rows: [TimelineRow]
    /// The active run's newest live thinking row, shown pinned under the list.
    public var pinnedStatus: TimelineRow?

    /// Builds the display rows.
    public init(timeline: [TimelineRow], activeRunId: String?) {
        var rows: [TimelineRow] = []
        rows.reserveCapacity(timeline.count)
        var pinned: TimelineRow?
        for row in timeline {
            if row.type == .thinking {
                if row.state == .live, let activeRunId, row.runId == activeRunId { pinned = row }
                continue
            }
            if Self.isSubagentPanelRow(row) { continue }
            rows.append(row)
        }
        self.rows = rows
        self.pinnedStatus = pinned
    }

    /// A row produced inside a subagent's panel: it carries the thread id and is work, not a
    /// message (activity or system). A reply that carries a thread id stays: it opens the thread.
    public static func isSubagentPanelRow(_ row: TimelineRow) -> Bool {
        row.subagentThreadId != nil && (row.type == .activity || row.type == .system)
    }
}
