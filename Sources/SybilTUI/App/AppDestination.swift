import SybilWire

/// What the main area can show: a chat, the Agent room or a workspace session. The sidebar's
/// selectable rows and the search overlay's hits name one of these.
public enum AppDestination: Sendable, Hashable {
    /// A new, empty chat (saved with its first message).
    case newChat
    /// The saved chat with this id.
    case chat(String)
    /// The Sybil Agent room.
    case agent
    /// A workspace session on a desktop.
    case session(WorkspaceChatKey)

    /// Whether this is a workspace session.
    public var isSession: Bool {
        if case .session = self { true } else { false }
    }
}
