/// Why the draft cannot be handed to the outbox now.
public enum AgentAttachmentDraftError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An item is still being prepared or uploaded (named); a send waits for it.
    case notReady([String])
    /// Nothing to send: a blank caption and no uploaded attachment. `waiting` names the items
    /// that failed or were interrupted (they are never sent until retried).
    case nothingToSend(waiting: [String])
    /// A handoff is already under way.
    case handoffInProgress
    /// The draft could not be saved first; nothing was handed over and the draft is kept.
    case storage(String)

    /// One sentence for a person.
    public var description: String {
        switch self {
        case .notReady(let names):
            "Wait until \(names.isEmpty ? "every attachment" : names.joined(separator: ", ")) is uploaded (or remove it), then send."
        case .nothingToSend(let waiting) where waiting.isEmpty:
            "There is nothing to send: write a message or attach a file."
        case .nothingToSend(let waiting):
            "There is nothing to send: \(waiting.joined(separator: ", ")) did not upload; retry or remove it, or write a message."
        case .handoffInProgress: "This message is already being sent."
        case .storage(let reason):
            "The draft could not be saved (\(reason)); it was not sent and is kept. Free some space and try again."
        }
    }
}
