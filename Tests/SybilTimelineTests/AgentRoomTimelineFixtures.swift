import SybilCore
import SybilWire

/// Messages, pages and frames for the Agent room timeline tests.
enum AgentRoomTimelineFixtures {
    /// 2026-10-14 09:00 UTC in milliseconds.
    static let morning: Int64 = 1_791_968_400_000

    /// `c-000000042`, the server's cursor for sequence 42.
    static func cursor(_ sequence: Int) -> AgentCursor {
        let digits = String(sequence)
        return AgentCursor("c-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits)!
    }

    /// Message `msg-<sequence>` at `c-<sequence>`, one minute apart from 09:00 UTC by default.
    static func message(
        _ sequence: Int, role: AgentRoomMessage.Role = .assistant, visibility: AgentRoomMessage.Visibility = .public,
        text: String? = nil, createdAt: Int64? = nil
    ) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "msg-\(sequence)", cursor: cursor(sequence), role: role, visibility: visibility,
            text: text ?? "message \(sequence)", createdAt: createdAt ?? (morning + Int64(sequence) * 60_000))
    }

    /// A raw tool call (hidden).
    static func tool(_ sequence: Int) -> AgentRoomMessage {
        message(sequence, role: .tool, visibility: .internal, text: "$ tool \(sequence)")
    }

    /// A page of `sequences`, its `nextCursor` the newest (or `after`).
    static func page(_ sequences: [Int], hasMoreBefore: Bool, after: Int? = nil) -> AgentRoomPage {
        AgentRoomPage(
            messages: sequences.map { message($0) }, nextCursor: (sequences.last ?? after).map { cursor($0) },
            hasMoreBefore: hasMoreBefore)
    }

    /// The stream frame of a message.
    static func frame(_ message: AgentRoomMessage) -> String {
        JSONWriter().string(from: AgentStreamEvent.message(message).jsonValue)
    }

    /// The sequences of `messages`, parsed back from their ids.
    static func sequences(_ messages: [AgentRoomMessage]) -> [Int] {
        messages.map { Int($0.messageId.dropFirst(4))! }
    }
}
