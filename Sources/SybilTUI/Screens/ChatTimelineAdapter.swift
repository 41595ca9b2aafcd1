import Foundation
import SybilClient
import SybilCore
import SybilWire

/// A chat's messages as timeline entries: a date separator before each day's first message,
/// the person's messages, the replies (Markdown) each followed by a card per tool call it made,
/// a reply still arriving marked as such, a stopped or failed one with its reason and what to
/// do. System prompts are not shown. Pure.
public enum ChatTimelineAdapter {
    /// The entries for `messages`; `lastError` (the model's sentence) is shown under the last
    /// entry when no failed reply already says it. Days are counted in `timeZone`.
    public static func items(
        _ messages: [ChatTranscriptMessage], lastError: String? = nil, timeZone: TimeZone = .autoupdatingCurrent
    ) -> [TimelineItem] {
        var items: [TimelineItem] = []
        let calendar = calendar(in: timeZone)
        var lastDay: DateComponents?
        for message in messages {
            append(message, to: &items, lastDay: &lastDay, calendar: calendar)
        }
        if let error = errorItem(after: messages, lastError: lastError) { items.append(error) }
        return items
    }

    /// A Gregorian calendar counting days in `timeZone`.
    static func calendar(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// Appends `message`'s entries: a date separator when its day differs from `lastDay`
    /// (updated), then the message itself; a system prompt adds nothing.
    static func append(
        _ message: ChatTranscriptMessage, to items: inout [TimelineItem], lastDay: inout DateComponents?,
        calendar: Calendar
    ) {
        switch message.role {
        case .system:
            return
        case .user, .assistant:
            let date = Date(timeIntervalSince1970: Double(message.createdAt) / 1000)
            let day = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            if day != lastDay {
                lastDay = day
                let label = dayLabel(day)
                items.append(TimelineItem(id: "day-\(label)", role: .dateSeparator, body: label))
            }
        }
        switch message.role {
        case .system:
            return
        case .user:
            var item = TimelineItem(
                id: message.id, role: .user, author: "You", body: message.text, revision: revision(message.text, 0))
            if !message.attachments.isEmpty {
                let status = attachedStatus(message.attachments)
                item.status = status
                item.revision = revision(message.text + status, 5)
            }
            items.append(item)
        case .assistant:
            var item = TimelineItem(
                id: message.id, role: .assistant, author: "Sybil", body: message.text, isMarkdown: true)
            switch message.state {
            case .complete:
                item.revision = revision(message.text, 0)
            case .streaming:
                item.status = "Sybil is typing… (Ctrl+C stops)"
                item.revision = revision(message.text, 1)
            case .stopped:
                item.status = "Stopped"
                item.tone = .warning
                item.revision = revision(message.text, 2)
            case .failed(let reason):
                item.status = "Failed: \(reason) (r retries)"
                item.tone = .error
                item.revision = revision(message.text + reason, 3)
            }
            items.append(item)
            items += toolCallItems(message.toolCalls, of: message.id)
        }
    }

    /// "Attached: notes.txt (text, 9 bytes), cat.png (image, 15 bytes)", safe on one line.
    static func attachedStatus(_ attachments: [ChatAttachment]) -> String {
        "Attached: "
            + attachments.map { attachment in
                let name = TerminalText.oneLine(String(attachment.name.prefix(80)))
                let size = attachment.size == 1 ? "1 byte" : "\(attachment.size) bytes"
                return "\(name) (\(attachment.kind.rawValue), \(size))"
            }.joined(separator: ", ")
    }

    /// A card per tool call a reply made (Sybil shows them and never runs them): the call's
    /// name and arguments, made safe and cut to one line of at most 200 characters. The cards
    /// of a saved reply (`of` its message id, drawn under it) and those of the reply still
    /// arriving (no id) have ids of their own.
    public static func toolCallItems(_ calls: [ChatToolCall], of messageId: String? = nil) -> [TimelineItem] {
        calls.map { call in
            let body = call.summary(width: 200)
            return TimelineItem(
                id: "tool-call-" + (messageId.map { "\($0)-" } ?? "") + "\(call.index)", role: .activity,
                author: "Tool call", body: body,
                status: "Not run: Sybil does not run tools" + (call.truncated ? " (arguments cut)" : ""),
                revision: revision(body, 6))
        }
    }

    /// The entry for `lastError` under the last message, unless a failed reply says it.
    static func errorItem(after messages: [ChatTranscriptMessage], lastError: String?) -> TimelineItem? {
        guard let lastError else { return nil }
        if let last = messages.last, case .failed = last.state { return nil }
        return TimelineItem(
            id: "chat-error", role: .system, body: lastError, status: nil, tone: .error,
            revision: revision(lastError, 4))
    }

    /// "Monday, 30 November 2026".
    static func dayLabel(_ day: DateComponents) -> String {
        let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        let weekday = weekdays[((day.weekday ?? 1) - 1 + 7) % 7]
        let month = months[((day.month ?? 1) - 1 + 12) % 12]
        return "\(weekday), \(day.day ?? 1) \(month) \(day.year ?? 1970)"
    }

    /// A revision that changes with what is drawn.
    static func revision(_ text: String, _ kind: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(text)
        hasher.combine(kind)
        return hasher.finalize()
    }
}
