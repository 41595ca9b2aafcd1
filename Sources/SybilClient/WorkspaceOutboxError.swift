/// Why the outbox copy refused a change.
public enum WorkspaceOutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation completed in this process; a writer holding an older view cannot change
    /// or resurrect it.
    case operationCompleted(String)
    /// The desktop accepted the operation; a writer holding an older view cannot mark it
    /// unaccepted.
    case operationAccepted(String)
    /// No pending operation has this id in this chat.
    case unknownOperation(String)
    /// An operation with this id is already queued.
    case duplicateOperation(String)
    /// The outbox could not be saved; the change was not made (nothing is sent unsaved).
    case storage(String)
    /// The entry keeps more attachments waiting than one entry may
    /// (``WorkspaceOutboxEntry/maximumStagedAttachments``); it would not read back.
    case tooManyStagedAttachments(count: Int, limit: Int)

    /// One sentence for logs and for the user.
    public var description: String {
        switch self {
        case .operationCompleted(let id): "Operation \(id) already completed; the change was ignored."
        case .operationAccepted(let id): "The desktop accepted operation \(id) already; the change was ignored."
        case .unknownOperation(let id): "No pending operation \(id) in this chat."
        case .duplicateOperation(let id): "Operation \(id) is already in the outbox."
        case .storage(let reason): "The outbox could not be saved (\(reason)); nothing was sent."
        case .tooManyStagedAttachments(let count, let limit):
            "A message can keep at most \(limit) attachments waiting in the outbox, and this one has \(count); nothing was saved."
        }
    }
}
