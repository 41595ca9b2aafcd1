import SybilStore

/// Why the Agent room outbox refused a change or could not read its file. A refused change
/// was not made: nothing is sent that is not saved, and the caller keeps its draft.
public enum AgentOutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The API base URL is not an `http` or `https` URL with a host.
    case invalidBaseURL(String)
    /// The outbox file could not be written or read; the change was not made.
    case storage(StorageError)
    /// The stored outbox (or some of its entries) could not be read. The original bytes were
    /// kept at `keptAt`; `reason` names the JSON path and rule.
    case unreadable(path: String, keptAt: String, reason: String)
    /// A message needs text or at least one attachment.
    case emptyMessage
    /// More attachments than the v1 contract allows on one message.
    case tooManyAttachments(count: Int, limit: Int)
    /// The same upload is attached twice.
    case duplicateAttachment(String)
    /// The outbox holds its maximum number of entries.
    case full(limit: Int)
    /// The text is longer than a message may be (``AgentRoomSubmission/maxTextBytes``).
    case textTooLong(bytes: Int, limit: Int)
    /// The stored outbox would grow past what it can read back (``AgentOutboxDocument/maxBytes``).
    case storeFull(bytes: Int, limit: Int)
    /// The draft was already handed to the outbox and its entry has left it (confirmed and
    /// removed, or discarded): queuing it again would send it twice.
    case draftAlreadySent(String)
    /// No entry has this request id.
    case unknownEntry(String)
    /// The entry is not in a state that allows the change (e.g. Retry on a message that did
    /// not fail, Discard while it is being sent).
    case wrongState(requestId: String, state: AgentOutboxEntry.State, change: String)
    /// The entry failed in a way Retry cannot fix (a final refusal): Discard it.
    case notRetryable(requestId: String)

    /// One sentence for a person or a log: what happened and what to do.
    public var description: String {
        switch self {
        case .invalidBaseURL(let url):
            return "The Agent room URL \(url.debugDescription) is not an http(s) URL with a host; fix it in Settings."
        case .storage(let error):
            return "The outbox could not be saved (\(error)); nothing was sent and the draft was kept."
        case .unreadable(let path, let keptAt, let reason):
            return "The saved outbox \(path) could not be read (\(reason)); it was kept at \(keptAt)."
        case .emptyMessage:
            return "The message is empty; write some text or attach a file."
        case .tooManyAttachments(let count, let limit):
            return "The message has \(count) attachments; at most \(limit) are allowed. Remove some."
        case .duplicateAttachment(let id):
            return "Upload \(id) is attached twice; remove one."
        case .full(let limit):
            return "The outbox already holds \(limit) messages; wait until some are delivered."
        case .textTooLong(let bytes, let limit):
            return
                "The message is \(bytes) bytes long; at most \(limit) fit in one message. Shorten it or attach it as a file."
        case .storeFull(let bytes, let limit):
            return
                "The waiting messages would take \(bytes) bytes, more than the outbox keeps (\(limit)); wait until some are delivered."
        case .draftAlreadySent(let draftId):
            return "Draft \(draftId) was already sent; it is not sent again."
        case .unknownEntry(let requestId):
            return "No queued message has request id \(requestId)."
        case .wrongState(let requestId, let state, let change):
            return "Message \(requestId) is \(state.rawValue); it cannot be \(change) now."
        case .notRetryable(let requestId):
            return "Message \(requestId) was refused for good; sending it again cannot succeed. Discard it."
        }
    }
}
