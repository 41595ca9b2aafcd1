import Foundation
import SybilClient
import SybilCore
import SybilTimeline
import SybilWire

/// Turns the Agent room's transcript rows into terminal lines: each row once, in order (day
/// separators, then `[HH:mm] role: text` with attachment cards indented), every line made safe
/// for a terminal (``TerminalText``): what room members and the agent wrote is shown, never
/// obeyed. Pure, so what `sybil agent tail` prints is tested without a server.
struct AgentTranscriptPrinter {
    private var printed: Set<AgentTranscriptRow.ID> = []
    private let timeZone: TimeZone

    init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    /// Marks `rows` as printed without printing them (older than what is shown).
    mutating func skip(_ rows: some Sequence<AgentTranscriptRow>) {
        for row in rows { printed.insert(row.id) }
    }

    /// The lines for rows not printed before.
    mutating func lines(for rows: [AgentTranscriptRow]) -> [String] {
        var lines: [String] = []
        for row in rows where printed.insert(row.id).inserted {
            switch row {
            case .day(let day): lines.append("── \(day) ──")
            case .message(let message): lines += self.lines(for: message)
            }
        }
        return lines.map(TerminalText.safe)
    }

    private func lines(for message: AgentRoomMessage) -> [String] {
        let time = Self.clock(message.createdAt, timeZone: timeZone)
        let text = message.text.split(separator: "\n", omittingEmptySubsequences: false)
        var lines = ["[\(time)] \(message.role.rawValue): \(text.first.map(String.init) ?? "")"]
        lines += text.dropFirst().map { "    \($0)" }
        for attachment in message.attachments {
            var card =
                "    attachment: \(attachment.fileName) (\(attachment.mimeType), \(attachment.size) bytes) id \(attachment.uploadId)"
            if let path = attachment.workspacePath { card += " at \(path)" }
            lines.append(card)
        }
        return lines
    }

    /// A message still in the outbox: `[queued] text`, `[failed: reason] text`.
    static func line(for entry: AgentOutboxEntry) -> String {
        let state =
            switch entry.state {
            case .failed:
                "failed: \(entry.failure.map(\.description) ?? "unknown reason"); retry with sybil agent retry \(entry.requestId)"
            case .awaitingEcho: "sent, awaiting echo"
            default: entry.state.rawValue
            }
        return TerminalText.safe("[\(state)] you: \(entry.label)")
    }

    /// The agent's activity as a status line.
    static func describe(_ activity: AgentRoomModel.Activity) -> String {
        switch activity {
        case .idle: "the agent is idle"
        case .working(let detail):
            detail.isEmpty ? "the agent is working" : "the agent is working: \(TerminalText.oneLine(detail))"
        }
    }

    /// `HH:mm` of `milliseconds` since 1970 in `timeZone`.
    static func clock(_ milliseconds: Int64, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }
}
