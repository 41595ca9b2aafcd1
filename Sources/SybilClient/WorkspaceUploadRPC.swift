import SybilTimeline
import SybilWire

/// What `<upload key>:begin` tells the desktop.
public struct AttachmentUploadRequest: Sendable, Hashable {
    /// The chat the attachment is for.
    public var chat: WorkspaceChatKey
    /// The name shown (after any conversion, e.g. `photo.jpg`).
    public var fileName: String
    /// The MIME type sent (after any conversion).
    public var mimeType: String
    /// The original file's path on the phone.
    public var path: String
    /// Bytes that will be sent.
    public var size: Int64

    /// Creates a request.
    public init(chat: WorkspaceChatKey, fileName: String, mimeType: String, path: String, size: Int64) {
        self.chat = chat
        self.fileName = fileName
        self.mimeType = mimeType
        self.path = path
        self.size = size
    }
}

/// The desktop's answer to `begin`.
public struct AttachmentUploadBegin: Sendable, Hashable {
    /// The upload's id on the desktop.
    public var uploadId: String
    /// The chunk size it wants (the phone sends at most 1 MiB per chunk).
    public var chunkSize: Int
    /// Chunks it already has (a restarted upload resumes after them).
    public var receivedChunks: Int

    /// Creates an answer.
    public init(uploadId: String, chunkSize: Int, receivedChunks: Int = 0) {
        self.uploadId = uploadId
        self.chunkSize = chunkSize
        self.receivedChunks = receivedChunks
    }
}

/// The desktop's answer to `finish`.
public struct AttachmentUploadResult: Sendable, Hashable {
    /// The finished upload's id (what the message lists).
    public var uploadId: String
    /// Bytes the desktop received.
    public var size: Int64

    /// Creates a result.
    public init(uploadId: String, size: Int64) {
        self.uploadId = uploadId
        self.size = size
    }
}

/// `files.chatAttachmentUpload` by call key (docs/api/workspaces.md). The desktop runs each
/// call key at most once.
public protocol WorkspaceUploadRPC: Sendable {
    /// `<upload key>:begin`.
    func beginUpload(callKey: String, _ request: AttachmentUploadRequest) async throws -> AttachmentUploadBegin
    /// `<upload key>:chunk:<n>` with the chunk's bytes in base64.
    func uploadChunk(callKey: String, uploadId: String, index: Int, base64: String) async throws
    /// `<upload key>:finish`.
    func finishUpload(callKey: String, uploadId: String, chunkCount: Int) async throws -> AttachmentUploadResult
    /// `<upload key>:cancel`.
    func cancelUpload(callKey: String, uploadId: String) async throws
}
