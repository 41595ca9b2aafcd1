/// Why the draft cannot be handed to the outbox now.
public enum AgentAttachmentDraftError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An item is not ready, or there is nothing to send (no items and a blank caption).
    case notReady
    /// A handoff is already under way.
    case handoffInProgress
    /// The draft could not be saved first; nothing was handed over and the draft is kept.
    case storage(String)

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .notReady: "Wait until every attachment is uploaded (or remove the ones that failed), then send."
        case .handoffInProgress: "This message is already being sent."
        case .storage(let reason):
            "The draft could not be saved (\(reason)); it was not sent and is kept. Free some space and try again."
        }
    }
}
