import SybilStore
import SybilWire

/// One message of a chat as its screen shows it: who wrote it, its text, where it stands, when
/// it was written and ended, its inline attachments and a reply's tool calls. View state that
/// ``ChatConversationModel`` publishes, made from the saved message (a front end never sees the
/// store's rows).
public struct ChatTranscriptMessage: Sendable, Hashable, Identifiable {
    /// Who wrote a message.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// A system instruction (not shown).
        case system
        /// The person.
        case user
        /// The model.
        case assistant
    }

    /// Where a message stands.
    public enum State: Sendable, Hashable {
        /// Whole: a person's message, or a reply that ended well.
        case complete
        /// A reply still arriving.
        case streaming
        /// The person stopped the reply; the text is what arrived.
        case stopped
        /// The reply failed; the text is what arrived, the reason is for the person.
        case failed(reason: String)
    }

    /// The message's id.
    public var id: String
    /// Who wrote it.
    public var role: Role
    /// The text (Markdown for replies).
    public var text: String
    /// The model asked, if known.
    public var model: String?
    /// Where it stands.
    public var state: State
    /// When it was written, in milliseconds since 1970.
    public var createdAt: Int64
    /// When a reply ended, or `nil` while it streams.
    public var finishedAt: Int64?
    /// The files attached inline to a person's message, in order.
    public var attachments: [ChatAttachment]
    /// The tool calls a reply made, in order (Sybil shows them and never runs them).
    public var toolCalls: [ChatToolCall]

    /// Creates a message.
    public init(
        id: String, role: Role, text: String, model: String? = nil, state: State = .complete, createdAt: Int64,
        finishedAt: Int64? = nil, attachments: [ChatAttachment] = [], toolCalls: [ChatToolCall] = []
    ) {
        self.id = id
        self.role = role
        self.text = text
        self.model = model
        self.state = state
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.attachments = attachments
        self.toolCalls = toolCalls
    }

    /// The message as shown, from its saved row.
    public init(_ row: ChatMessageRecord) {
        self.init(
            id: row.id, role: Role(row.role), text: row.text, model: row.model, state: State(row.state),
            createdAt: row.createdAt, finishedAt: row.finishedAt, attachments: row.attachments,
            toolCalls: row.toolCalls)
    }
}

extension ChatTranscriptMessage.Role {
    /// The role of a saved row.
    init(_ role: ChatMessageRecord.Role) {
        switch role {
        case .system: self = .system
        case .user: self = .user
        case .assistant: self = .assistant
        }
    }
}

extension ChatTranscriptMessage.State {
    /// The state of a saved row.
    init(_ state: ChatMessageRecord.State) {
        switch state {
        case .complete: self = .complete
        case .streaming: self = .streaming
        case .stopped: self = .stopped
        case .failed(let reason): self = .failed(reason: reason)
        }
    }

    /// The state as saved.
    var stored: ChatMessageRecord.State {
        switch self {
        case .complete: .complete
        case .streaming: .streaming
        case .stopped: .stopped
        case .failed(let reason): .failed(reason: reason)
        }
    }
}
