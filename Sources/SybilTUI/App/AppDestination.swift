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
    /// The saved web search with this id (found by Ctrl+K).
    case webSearch(String)

    /// The sidebar's sections, the terminal's tabs: moving between them is a tab switch.
    public enum Section: Sendable, Hashable {
        /// Chats (a new one and the saved ones).
        case chats
        /// The Sybil Agent room.
        case agent
        /// The workspaces' sessions.
        case workspaces
    }

    /// The sidebar section this destination sits in.
    public var section: Section {
        switch self {
        case .newChat, .chat, .webSearch: .chats
        case .agent: .agent
        case .session: .workspaces
        }
    }

    /// Whether this is a workspace session.
    public var isSession: Bool {
        if case .session = self { true } else { false }
    }
}
