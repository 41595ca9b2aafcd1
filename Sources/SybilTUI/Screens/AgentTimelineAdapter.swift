import Foundation
import SybilClient
import SybilTimeline
import SybilWire

/// The Agent room as timeline entries: its transcript rows (day separators, the "new" marker
/// above the first unread reply, messages with their attachment cards, the selected card marked), then the outbox's messages not confirmed yet with where they are
/// (queued, sending, awaiting the room's echo, failed with what to do), then the messages kept
/// undelivered (failed rows whose text d takes back), then the agent's activity pinned at the
/// bottom. Pure.
public enum AgentTimelineAdapter {
    /// The entries for the room's `rows`, the outbox's `pending` entries, the composer's
    /// messages kept `undelivered` and `activity`.
    public static func items(
        rows: [AgentTranscriptRow], pending: [AgentOutboxEntry], activity: AgentRoomModel.Activity,
        roomError: String? = nil, unreadMarker: String? = nil, selectedAttachment: String? = nil,
        undelivered: [AgentUndeliveredMessages.Message] = []
    ) -> [TimelineItem] {
        var items: [TimelineItem] = []
        for row in rows {
            switch row {
            case .day(let day):
                items.append(TimelineItem(id: "day-\(day.dayNumber)", role: .dateSeparator, body: dayLabel(day)))
            case .message(let message):
                if message.messageId == unreadMarker {
                    items.append(TimelineItem(id: "unread-marker", role: .unreadMarker, body: "new"))
                }
                var body = message.text
                for attachment in message.attachments {
                    // The selected card is marked and names its keys.
                    let selected = attachment.uploadId == selectedAttachment
                    body +=
                        (selected ? "\n▸ 📎 " : "\n📎 ")
                        + "\(attachment.fileName) (\(attachment.mimeType), \(attachment.size) bytes)"
                        + (selected ? " · v previews, e exports" : "")
                }
                let isUser = message.role == .user
                items.append(
                    TimelineItem(
                        id: "message-\(message.messageId)", role: isUser ? .user : .assistant,
                        author: isUser ? "You" : "Sybil Agent", body: body, isMarkdown: !isUser,
                        revision: ChatTimelineAdapter.revision(body, 0)))
            }
        }
        for entry in pending where entry.state != .confirmed {
            let (status, tone) = describe(entry)
            items.append(
                TimelineItem(
                    id: "outbox-\(entry.requestId)", role: .user, author: "You", body: entry.label, status: status,
                    tone: tone, revision: ChatTimelineAdapter.revision(entry.label + status, 0)))
        }
        // d discards a refused message first; only then does it take a kept one back.
        let refused = pending.contains { $0.state == .failed && $0.failure?.kind == .refused }
        items += UndeliveredRows.items(undelivered, wording: .agentRoom, namesTakeBackKey: !refused)
        if let roomError {
            items.append(
                TimelineItem(
                    id: "room-error", role: .system, body: roomError, tone: .error,
                    revision: ChatTimelineAdapter.revision(roomError, 0)))
        }
        if case .working(let detail) = activity {
            let text = detail.isEmpty ? "The agent is working…" : "The agent is working: \(detail)"
            items.append(
                TimelineItem(
                    id: "agent-activity", role: .thinking, body: text, revision: ChatTimelineAdapter.revision(text, 0)))
        }
        return items
    }

    /// The status line and tone of an outbox entry.
    public static func describe(_ entry: AgentOutboxEntry) -> (String, TimelineItem.Tone) {
        switch entry.state {
        case .queued: ("Queued", .warning)
        case .sending: ("Sending…", .warning)
        case .awaitingEcho: ("Sent, waiting for the room", .normal)
        case .confirmed: ("Confirmed", .success)
        case .failed where entry.failure?.kind == .refused:
            // Retry cannot help a final refusal: the sentence names the discard key instead.
            ("Failed: \(entry.failure.map { AgentRefusalAdvice.describe($0, discard: "press d") } ?? "")", .error)
        case .failed:
            (
                "Failed: \(entry.failure.map(\.description) ?? "unknown reason") (r retries, R resends all)",
                .error
            )
        }
    }

    /// The day as every timeline names it ("Friday, 4 October 2024", as a chat's separators).
    static func dayLabel(_ day: AgentTranscriptDay) -> String {
        var components = DateComponents(year: day.year, month: day.month, day: day.day)
        // 1970-01-01 was a Thursday; weekdays count from Sunday = 1.
        components.weekday = Int((day.dayNumber % 7 + 7 + 4) % 7) + 1
        return ChatTimelineAdapter.dayLabel(components)
    }
}
