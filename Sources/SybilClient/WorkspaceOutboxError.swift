/// Why the outbox copy refused a change.
public enum WorkspaceOutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation completed in this process; a writer holding an older view cannot change
    /// or resurrect it.
    case operationCompleted(String)
    /// No pending operation has this id in this chat.
    case unknownOperation(String)
    /// An operation with this id is already queued.
    case duplicateOperation(String)
    /// The outbox could not be saved; the change was not made (nothing is sent unsaved).
    case storage(String)

    /// One sentence for logs and for the user.
    public var description: String {
        switch self {
        case .operationCompleted(let id): "Operation \(id) already completed; the change was ignored."
        case .unknownOperation(let id): "No pending operation \(id) in this chat."
        case .duplicateOperation(let id): "Operation \(id) is already in the outbox."
        case .storage(let reason): "The outbox could not be saved (\(reason)); nothing was sent."
        }
    }
}
