import SybilCore
import SybilTimeline
import SybilWire

/// Turns a chat's display rows into lines for a terminal log: a row is printed when it
/// appears, again when its text changes (a streaming reply) and once more when history
/// confirms it (a message goes from sending or live to confirmed under the same id); the
/// pinned status when it changes. Every line is made safe for a terminal (``TerminalText``):
/// the desktop's text is shown, never obeyed. Pure, so what `sybil workspaces open` prints is
/// tested without a server.
struct TranscriptPrinter {
    private var printed: [String: (text: String, confirmed: Bool)] = [:]
    private var pinned: String?

    /// The lines for what changed since the last call.
    mutating func lines(for display: DisplayRows) -> [String] {
        var lines: [String] = []
        for row in display.rows {
            let now = (text: row.text, confirmed: row.state == .confirmed)
            if let before = printed[row.id], before.text == now.text, before.confirmed || !now.confirmed { continue }
            printed[row.id] = now
            lines.append(TerminalText.safe(Self.line(for: row)))
        }
        let status = display.pinnedStatus.map { "  … \(TerminalText.oneLine($0.text))" }
        if status != pinned {
            pinned = status
            if let status { lines.append(status) }
        }
        return lines
    }

    /// `[agent] text`, `[user · sending] text`, continuation lines indented; a reply that
    /// opens a subagent thread names it.
    static func line(for row: TimelineRow) -> String {
        let kind =
            switch row.type {
            case .user: "user"
            case .agentReply: "agent"
            case .activity: "activity"
            case .system: "system"
            case .thinking: "thinking"
            }
        let state =
            switch row.state {
            case .confirmed: ""
            case .live: " · live"
            case .sending: " · sending"
            }
        var text = row.text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n  ")
        if let thread = row.subagentThreadId { text += "  [thread \(thread)]" }
        return "[\(kind)\(state)] \(text)"
    }
}
