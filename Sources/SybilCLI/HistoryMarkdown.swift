import SybilStore
import SybilWire

/// A saved conversation as Markdown (`history show ID --markdown`, `history export`): a
/// heading with the title, a line with the id and times, the system prompt when there is one,
/// then a `**You**` or `**Assistant**` section per message with its text as written (without
/// trailing line breaks). A reply that did not finish is followed by how it ended, in italics;
/// attached files and a reply's tool calls are listed under their message.
enum HistoryMarkdown {
    /// The separator between conversations in an export.
    static let separator = "\n---\n\n"

    /// The conversation; `time` formats milliseconds since 1970.
    static func text(
        _ conversation: ChatConversationRecord, messages: [ChatMessageRecord], time: (Int64) -> String
    ) -> String {
        let title = conversation.title.split(whereSeparator: \.isNewline).joined(separator: " ")
        var output = "# \(title)\n\n"
        output += "`\(conversation.id)` · created \(time(conversation.createdAt)) · "
        output += "updated \(time(conversation.updatedAt))\n"
        if let system = conversation.systemPrompt {
            output += "\n**System**\n\n\(system)\n"
        }
        for message in messages {
            output += "\n**\(label(message.role))**\n"
            // Trailing line breaks (piped text usually ends with one) would only widen the gap.
            var text = Substring(message.text)
            while text.last?.isNewline == true { text.removeLast() }
            if !text.isEmpty { output += "\n\(text)\n" }
            if let mark = HistoryTranscript.mark(message.state) { output += "\n_\(mark)_\n" }
            if !message.attachments.isEmpty {
                output += "\n" + message.attachments.map { "- " + HistoryTranscript.attachment($0) + "\n" }.joined()
            }
            if !message.toolCalls.isEmpty {
                output += "\n" + message.toolCalls.map { "- " + HistoryTranscript.toolCall($0) + "\n" }.joined()
            }
        }
        return output
    }

    private static func label(_ role: ChatMessageRecord.Role) -> String {
        switch role {
        case .user: "You"
        case .assistant: "Assistant"
        case .system: "System"
        }
    }
}
