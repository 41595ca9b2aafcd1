/// Where an ordinary chat's message was written, for the messages kept undelivered
/// (``ChatUndeliveredMessages``): the new chat not saved yet, or a saved conversation.
public enum ChatPlace: Sendable, Hashable {
    /// The new chat, before its first message was saved.
    case newChat
    /// The saved conversation with this id.
    case conversation(String)

    /// The place of the conversation `conversationId` (`nil`: the new chat not saved yet).
    public init(conversationId: String?) {
        self = conversationId.map(ChatPlace.conversation) ?? .newChat
    }
}
