/// Why an attachment could not be uploaded; each case says what the user can do.
public enum AttachmentUploadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file is over the 1 GiB limit; nothing was sent.
    case fileTooLarge(fileName: String, size: Int64, limit: Int64)
    /// The file could not be read.
    case unreadable(path: String, reason: String)
    /// The desktop offered a chunk size that cannot be used.
    case invalidChunkSize(Int)
    /// A call to the desktop failed; retrying resumes from the first missing chunk.
    case desktop(String)
    /// The desktop refused the upload for good (too large, unknown session, a conflicting
    /// key): sending the same file again cannot succeed.
    case refused(String)
    /// The upload was cancelled.
    case cancelled

    /// Whether trying again later can succeed (the desktop was unreachable or the call failed
    /// in transit), so a message may wait in the outbox with this file.
    public var isRetryable: Bool {
        if case .desktop = self { return true }
        return false
    }

    /// One sentence for the user.
    public var description: String {
        switch self {
        case .fileTooLarge(let name, let size, let limit):
            "\(name) is \(Self.format(size)) (\(size) bytes); attachments may be at most \(Self.format(limit)) (\(limit) bytes)."
        case .unreadable(let path, let reason): "Cannot read \(path): \(reason)."
        case .invalidChunkSize(let size): "The desktop asked for chunks of \(size) bytes; it must be more than 0."
        case .desktop(let reason): "The upload stopped (\(reason)); try again to resume it."
        case .refused(let reason): "The desktop refused the upload (\(reason)); sending it again cannot succeed."
        case .cancelled: "The upload was cancelled."
        }
    }

    static func format(_ bytes: Int64) -> String {
        if bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        // Two decimals, rounded down, so a file just over a limit never reads as the limit.
        let hundredths = bytes * 100 / (1 << 30)
        return "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100) GiB"
    }
}
