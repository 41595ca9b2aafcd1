import Observation

/// An attachment of the next workspace message: the file, its upload progress, and the
/// desktop's upload id once the whole file arrived (or why it failed).
@MainActor
@Observable
public final class WorkspaceAttachmentDraft: Identifiable {
    /// This draft's identity in the composer.
    public let id: String
    /// The file.
    public let file: AttachmentUploader.File
    /// Bytes acknowledged by the desktop.
    public let progress = AttachmentUploadProgress()
    /// The finished upload's id (what the message lists).
    public private(set) var uploadId: String?
    /// Why the upload failed; Remove and attach again to retry (it resumes).
    public private(set) var failure: String?
    /// Whether the upload failed only because the desktop could not be reached (or the call
    /// failed in transit): sending then keeps the message and a copy of this file in the
    /// outbox, to be uploaded before the message when the desktop is back.
    public private(set) var canWaitInOutbox = false

    /// A draft whose upload has not finished.
    public init(id: String, file: AttachmentUploader.File) {
        self.id = id
        self.file = file
    }

    func finished(uploadId: String) {
        self.uploadId = uploadId
        failure = nil
        canWaitInOutbox = false
    }

    func failed(_ reason: String, retryable: Bool = false) {
        failure = reason
        canWaitInOutbox = retryable
    }
}
