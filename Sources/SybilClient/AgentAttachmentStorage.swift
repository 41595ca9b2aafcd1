/// Where the Agent room draft is kept between launches: the manifest and the staged prepared
/// bytes, scoped to one API base URL. ``AgentAttachmentFileStore`` keeps them in files; tests
/// wrap it to fail on purpose. Every call returns once its change reached the disk, or throws.
public protocol AgentAttachmentStorage: Sendable {
    /// The saved manifest's bytes, or `nil` when none is saved.
    func readManifest() async throws -> [UInt8]?
    /// Replaces the manifest atomically.
    func writeManifest(_ bytes: [UInt8]) async throws
    /// Keeps a manifest that could not be read beside the manifest, for a person to inspect.
    func keepAside(_ bytes: [UInt8]) async throws
    /// Stages prepared bytes for `uploadId` (replacing any staged before). Refuses more than
    /// ``AgentAttachmentFileStore/maxStagedFileBytes`` per file or
    /// ``AgentAttachmentFileStore/maxStagedDraftBytes`` for the draft.
    func stage(_ bytes: [UInt8], uploadId: String) async throws
    /// The staged bytes of `uploadId`, or `nil` when none are staged.
    func readStaged(uploadId: String) async throws -> [UInt8]?
    /// Removes the staged bytes of `uploadId` (none is fine).
    func removeStaged(uploadId: String) async throws
    /// The upload ids with staged bytes.
    func stagedUploadIds() async throws -> [String]
    /// Removes the manifest, then every staged file.
    func removeAll() async throws
}
