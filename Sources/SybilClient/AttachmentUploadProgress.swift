import Observation

/// Upload progress for the UI: bytes sent of the total.
@MainActor
@Observable
public final class AttachmentUploadProgress {
    /// Bytes the desktop has acknowledged.
    public private(set) var bytesSent: Int64 = 0
    /// Bytes to send.
    public private(set) var totalBytes: Int64 = 0

    /// Progress at zero.
    public init() {}

    /// `bytesSent / totalBytes`, 0 when there is nothing to send.
    public var fraction: Double {
        totalBytes > 0 ? Double(bytesSent) / Double(totalBytes) : 0
    }

    /// Records progress.
    public func update(sent: Int64, of total: Int64) {
        bytesSent = sent
        totalBytes = total
    }
}
