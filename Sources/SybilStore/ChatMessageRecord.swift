import SybilWire

/// One saved message of a conversation: the user's question or the assistant's reply, with the
/// model that answered and its timing. A reply is saved when it starts and updated as it streams,
/// so a crash keeps what arrived.
public struct ChatMessageRecord: Sendable, Hashable, Identifiable {
    /// Who wrote a message.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// A system instruction.
        case system
        /// The person.
        case user
        /// The model.
        case assistant
    }

    /// Where a message stands.
    public enum State: Sendable, Hashable {
        /// Whole: a user's message, or a reply that ended with `[DONE]`.
        case complete
        /// A reply still arriving (after a crash: what arrived before it).
        case streaming
        /// The person stopped the reply; the text is what arrived.
        case stopped
        /// The reply failed; the text is what arrived, the reason is for the person.
        case failed(reason: String)
    }

    /// A stable id chosen by the client (a UUID string).
    public var id: String
    /// The conversation it belongs to.
    public var conversationId: String
    /// Who wrote it.
    public var role: Role
    /// The text (Markdown for replies).
    public var text: String
    /// The model asked (replies, and the user's message that asked it), if known.
    public var model: String?
    /// Where it stands.
    public var state: State
    /// When it was written (a reply: when the request left).
    public var createdAt: Int64
    /// When a reply ended (any ending), or `nil` while it streams.
    public var finishedAt: Int64?
    /// The files attached inline to a person's message, in order (seed 003); empty for most.
    public var attachments: [ChatAttachment]
    /// The tool calls a reply made, in order (Sybil shows them and never runs them); empty for
    /// most, and for every message saved before migration `chat-history-10-message-tool-calls`.
    public var toolCalls: [ChatToolCall]

    /// Creates a record.
    public init(
        id: String, conversationId: String, role: Role, text: String, model: String? = nil,
        state: State = .complete, createdAt: Int64, finishedAt: Int64? = nil, attachments: [ChatAttachment] = [],
        toolCalls: [ChatToolCall] = []
    ) {
        self.id = id
        self.conversationId = conversationId
        self.role = role
        self.text = text
        self.model = model
        self.state = state
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.attachments = attachments
        self.toolCalls = toolCalls
    }
}
