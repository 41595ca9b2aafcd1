import SybilClient
import SybilTimeline

/// A workspace session's display rows (as its screen model decided them) as timeline entries,
/// then the composer's messages history does not carry yet, then the pinned live status. Pure:
/// nothing is re-decided here.
public enum WorkspaceTimelineAdapter {
    /// The entries for `display` and the composer's `deliveries`.
    public static func items(_ display: DisplayRows, deliveries: [WorkspaceChatComposer.Delivery] = [])
        -> [TimelineItem]
    {
        var items: [TimelineItem] = display.rows.map(item)
        for delivery in deliveries {
            let (status, tone): (String, TimelineItem.Tone) =
                switch delivery.state {
                case .pending: ("Sending…", .warning)
                case .accepted: ("Accepted by the desktop", .success)
                case .failed(let reason): ("Failed: \(reason) (r retries)", .error)
                }
            items.append(
                TimelineItem(
                    id: "delivery-\(delivery.id)", role: .user, author: "You", body: delivery.text, status: status,
                    tone: tone, revision: ChatTimelineAdapter.revision(delivery.text + status, 0)))
        }
        if let pinned = display.pinnedStatus {
            items.append(
                TimelineItem(
                    id: "pinned-\(pinned.id)", role: .thinking, body: pinned.text,
                    revision: ChatTimelineAdapter.revision(pinned.text, 0)))
        }
        return items
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
