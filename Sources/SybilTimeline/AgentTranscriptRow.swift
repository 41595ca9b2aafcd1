import SybilWire

/// One row of the Agent transcript: a date separator or a visible message.
public enum AgentTranscriptRow: Sendable, Hashable, Identifiable {
    /// A row's identity: stable across updates, so a list keeps its cells and scroll anchors.
    public enum ID: Sendable, Hashable {
        /// The separator before the first message of a day.
        case day(AgentTranscriptDay)
        /// A message, by its canonical id.
        case message(String)
    }

    /// The separator before the first visible message of `day`.
    case day(AgentTranscriptDay)
    /// A visible message.
    case message(AgentRoomMessage)

    /// The row's identity.
    public var id: ID {
        switch self {
        case .day(let day): .day(day)
        case .message(let message): .message(message.messageId)
        }
    }

    /// The message, for a message row.
    public var message: AgentRoomMessage? {
        if case .message(let message) = self { message } else { nil }
    }
}
