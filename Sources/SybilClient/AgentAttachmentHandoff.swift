import SybilWire

/// What the draft hands to the outbox when the user sends: the draft's identity (recorded by
/// the outbox with the message, so a crash during the handoff is recovered without a second
/// send), the caption and the ready descriptors in selection order. No bytes and no token.
public struct AgentAttachmentHandoff: Sendable, Hashable {
    /// The draft's identity.
    public var draftId: String
    /// The caption (may be blank when there are attachments).
    public var caption: String
    /// The descriptors, in selection order.
    public var attachments: [AgentAttachment]
    /// The names of the items left out because they failed or were interrupted: they stay in
    /// the next draft, to retry or remove.
    public var leftOut: [String]

    /// Creates a handoff.
    public init(draftId: String, caption: String, attachments: [AgentAttachment], leftOut: [String] = []) {
        self.draftId = draftId
        self.caption = caption
        self.attachments = attachments
        self.leftOut = leftOut
    }
}
