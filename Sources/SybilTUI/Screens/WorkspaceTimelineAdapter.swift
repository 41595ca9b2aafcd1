import SybilClient
import SybilTimeline

/// A workspace session's display rows (as its screen model decided them) as timeline entries,
/// then the composer's messages that no display row shows, then the messages kept undelivered
/// (failed rows whose text d takes back), then the pinned live status. Pure: nothing is
/// re-decided here.
///
/// A message on its way is one entry: the display row the host shows for it (by operation id)
/// carries its delivery's state; only a delivery without such a row gets an entry of its own.
public enum WorkspaceTimelineAdapter {
    /// The entries for `display`, the composer's `deliveries` and the messages it keeps
    /// `undelivered`.
    public static func items(
        _ display: DisplayRows, deliveries: [WorkspaceChatComposer.Delivery] = [],
        undelivered: [WorkspaceUndeliveredMessages.Message] = []
    ) -> [TimelineItem] {
        var byOperation: [String: WorkspaceChatComposer.Delivery] = [:]
        for delivery in deliveries where byOperation[delivery.id] == nil { byOperation[delivery.id] = delivery }
        var shown = Set<String>()
        var items: [TimelineItem] = []
        items.reserveCapacity(display.rows.count + deliveries.count + undelivered.count + 1)
        for row in display.rows {
            var entry = item(row)
            if row.type == .user, let operationId = row.operationId, let delivery = byOperation[operationId] {
                shown.insert(operationId)
                if row.state == .sending {
                    let (status, tone) = deliveryStatus(delivery)
                    entry.status = status
                    entry.tone = tone
                    entry.revision = ChatTimelineAdapter.revision(row.text + status, 0)
                }
            }
            items.append(entry)
        }
        for delivery in deliveries where !shown.contains(delivery.id) {
            let (status, tone) = deliveryStatus(delivery)
            items.append(
                TimelineItem(
                    id: "delivery-\(delivery.id)", role: .user, author: "You", body: delivery.text, status: status,
                    tone: tone, revision: ChatTimelineAdapter.revision(delivery.text + status, 0)))
        }
        items += UndeliveredRows.items(undelivered, wording: .workspace)
        if let pinned = display.pinnedStatus {
            items.append(
                TimelineItem(
                    id: "pinned-\(pinned.id)", role: .thinking, body: pinned.text,
                    revision: ChatTimelineAdapter.revision(pinned.text, 0)))
        }
        return items
    }

    /// What a message on its way says, and in which tone.
    static func deliveryStatus(_ delivery: WorkspaceChatComposer.Delivery) -> (String, TimelineItem.Tone) {
        switch delivery.state {
        case .pending: ("Sending…", .warning)
        case .accepted: ("Accepted by the desktop", .success)
        case .failed(let reason): ("Failed: \(reason) (r retries)", .error)
        }
    }

    /// One display row.
    static func item(_ row: TimelineRow) -> TimelineItem {
        let role: TimelineItem.Role
        let author: String?
        switch row.type {
        case .user: (role, author) = (.user, "You")
        case .agentReply: (role, author) = (row.subagentThreadId == nil ? .assistant : .subagent, "Codex")
        case .activity: (role, author) = (.activity, nil)
        case .system: (role, author) = (.system, nil)
        case .thinking: (role, author) = (.thinking, nil)
        }
        var status: String?
        var tone = TimelineItem.Tone.normal
        switch row.state {
        case .confirmed: break
        case .live: status = "live"
        case .sending:
            status = "Sending…"
            tone = .warning
        }
        return TimelineItem(
            id: row.id, role: role, author: author, body: row.text, isMarkdown: row.type == .agentReply, status: status,
            tone: tone, revision: ChatTimelineAdapter.revision(row.text + (status ?? ""), 0))
    }
}
