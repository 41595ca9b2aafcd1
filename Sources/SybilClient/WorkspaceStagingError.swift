/// Why an attachment could not be kept in the outbox, or why a kept copy cannot be sent.
public enum WorkspaceStagingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is over the attachment limit (``AttachmentUploader/maximumFileBytes``).
    case tooLarge(fileName: String, size: Int64, limit: Int64)
    /// The user's file could not be read.
    case unreadable(path: String, reason: String)
    /// The copy could not be written (disk full, permissions).
    case cannotStage(path: String, reason: String)
    /// A staged copy is missing or no longer matches its recorded size and SHA-256.
    case damaged(fileName: String, reason: String)
    /// A staged copy could not be opened or read right now (too many open files, permissions,
    /// an I/O error); it is not known to be damaged, so the message waits for a later retry.
    case unavailable(fileName: String, reason: String)
    /// A stored entry names a copy outside the staging folder of its own message (or behind a
    /// symbolic link): the entry is not trusted and is kept aside, nothing is uploaded.
    case outsideStaging(fileName: String, path: String)

    /// One sentence for the user.
    public var description: String {
        switch self {
        case .tooLarge(let name, let size, let limit):
            "\(name) is at least \(AttachmentUploadError.format(size)) (\(size) bytes); attachments may be at most \(AttachmentUploadError.format(limit)) (\(limit) bytes), the attachment size limit."
        case .unreadable(let path, let reason): "Cannot read \(path): \(reason)."
        case .cannotStage(let path, let reason):
            "The attachment could not be kept in the outbox (\(path): \(reason)); free some space and send again."
        case .damaged(let name, let reason): "\(name) cannot be sent: \(reason); attach it again."
        case .unavailable(let name, let reason): "\(name) is not uploaded yet: \(reason); it is tried again later."
        case .outsideStaging(let name, let path):
            "\(name) cannot be sent: the outbox names \(path) as its copy, which is not inside the outbox's folder for this message"
        }
    }
}
