/// Which timeline a viewport shows: the chat itself or one subagent thread. Part of the
/// display epoch's fence, so that scroll assumptions never cross from one to the other.
public enum TimelineViewport: Sendable, Hashable, CustomStringConvertible {
    /// The session's own chat.
    case parentChat
    /// A subagent thread opened from the chat.
    case subagent(threadId: String)

    /// `parent-chat` or `subagent-<thread ID>`.
    public var description: String {
        switch self {
        case .parentChat: "parent-chat"
        case .subagent(let threadId): "subagent-\(threadId)"
        }
    }
}
