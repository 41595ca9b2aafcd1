import SybilWire

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
