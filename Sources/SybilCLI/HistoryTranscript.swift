import SybilCore
import SybilStore
import SybilTimeline
import SybilWire

/// What `sybil history show` prints for a saved conversation: its title and times, the system
/// prompt it was started with (when there is one), then each message under a role label,
/// replies as stored (Markdown as written), a reply that did not finish marked with how it
/// ended, and a line per attached file and per tool call a reply made (never run). Stored text
/// never carries control characters out.
enum HistoryTranscript {
    /// The whole transcript; `time` formats milliseconds since 1970, `reply` lays out an
    /// assistant's text (rendered Markdown on a terminal; by default the text as saved, made safe).
    static func text(
        _ conversation: ChatConversationRecord, messages: [ChatMessageRecord], time: (Int64) -> String,
        reply: (String) -> String = { TerminalText.safe($0) + "\n" }
    ) -> String {
        var output = "\(line(conversation.title, width: 200))\n"
        output += "id \(TerminalText.safe(conversation.id)), created \(time(conversation.createdAt)), "
        output += "updated \(time(conversation.updatedAt)), \(count(messages.count))\n"
        if let system = conversation.systemPrompt {
            output += "\nSystem prompt:\n\(TerminalText.safe(system))\n"
        }
        for message in messages {
            output += "\n\(label(message)):\n"
            if !message.text.isEmpty {
                output += message.role == .assistant ? reply(message.text) : TerminalText.safe(message.text) + "\n"
            }
            if let mark = mark(message.state) { output += mark + "\n" }
            for attachment in message.attachments { output += self.attachment(attachment) + "\n" }
            for call in message.toolCalls { output += toolCall(call) + "\n" }
        }
        return output
    }

    /// One tool call a reply made, on one line without control characters:
    /// `[tool call, not run: get_weather({"city":"Paris"})]` (cut to 200 characters).
    static func toolCall(_ call: ChatToolCall) -> String {
        "[tool call, not run: \(call.summary(width: 200))" + (call.truncated ? " (arguments cut)]" : "]")
    }

    /// One attached file as a line: `[attached notes.txt, text/plain; charset=utf-8, 1234 bytes]`.
    static func attachment(_ attachment: ChatAttachment) -> String {
        "[attached \(line(attachment.name, width: 80)), \(TerminalText.safe(attachment.mimeType)), "
            + (attachment.size == 1 ? "1 byte]" : "\(attachment.size) bytes]")
    }

    /// A saved web search as `sybil history show` prints it: the query on one line, its id,
    /// time and source count, then the answer and its sources (``answer(_:reply:)``).
    static func webSearch(
        _ search: SavedWebSearch, time: (Int64) -> String, reply: (String) -> String = { TerminalText.safe($0) + "\n" }
    ) -> String {
        var output = "\(line(search.query, width: 200))\n"
        output += "web search \(TerminalText.safe(search.id)), saved \(time(search.createdAt)), "
        output += (search.sources.count == 1 ? "1 source" : "\(search.sources.count) sources") + "\n\n"
        return output + answer(search, reply: reply)
    }

    /// What `sybil ask --web` prints: the answer (laid out by `reply`), then a blank line and
    /// `Sources:` with one numbered entry per source, its title and below it its URL as text,
    /// each on one line without control characters; `Sources: none` when there are none.
    static func answer(_ search: SavedWebSearch, reply: (String) -> String = { TerminalText.safe($0) + "\n" })
        -> String
    {
        var output = reply(search.answer)
        guard !search.sources.isEmpty else { return output + "\nSources: none\n" }
        output += "\nSources:\n"
        let width = String(search.sources.count).count
        for (index, source) in search.sources.enumerated() {
            let number = String(index + 1)
            let label = String(repeating: " ", count: width - number.count) + number + ". "
            let title = source.title.allSatisfy(\.isWhitespace) ? "(untitled)" : line(source.title, width: 200)
            output += "\(label)\(title)\n"
            output += String(repeating: " ", count: label.count) + TerminalText.oneLine(source.url) + "\n"
        }
        return output
    }

    /// `text` on one line without control characters, cut in the middle to `width` columns.
    static func line(_ text: String, width: Int) -> String {
        SearchExcerpt(text: text, terms: [], width: width).text
    }

    /// `You`, `Assistant (MODEL)` or `System`.
    static func label(_ message: ChatMessageRecord) -> String {
        let model = message.model.map { " (\(line($0, width: 60)))" } ?? ""
        switch message.role {
        case .user: return "You"
        case .assistant: return "Assistant" + model
        case .system: return "System"
        }
    }

    /// How an unfinished reply ended, or `nil` for a whole message.
    static func mark(_ state: ChatMessageRecord.State) -> String? {
        switch state {
        case .complete: return nil
        case .streaming: return "[incomplete: the reply was still arriving when it was last saved]"
        case .stopped: return "[stopped]"
        case .failed(let reason): return "[failed: \(line(reason, width: 200))]"
        }
    }

    private static func count(_ messages: Int) -> String {
        messages == 1 ? "1 message" : "\(messages) messages"
    }
}
