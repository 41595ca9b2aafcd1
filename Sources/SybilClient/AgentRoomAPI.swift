import SybilCore
import SybilWire

/// A file to upload to the Agent room: its stable id, name, MIME type and bytes (at most
/// 8 MiB, staged by the app).
public struct AgentUploadFile: Sendable, Hashable {
    /// The client-chosen upload id (a UUID), the same on every retry.
    public var uploadId: String
    /// The file name shown on the card.
    public var fileName: String
    /// The MIME type.
    public var mimeType: String
    /// The bytes to send.
    public var bytes: [UInt8]

    /// Creates an upload.
    public init(uploadId: String, fileName: String, mimeType: String, bytes: [UInt8]) {
        self.uploadId = uploadId
        self.fileName = fileName
        self.mimeType = mimeType
        self.bytes = bytes
    }
}

/// The Agent room's REST surface (docs/api/agent-room.md), the seam the room, the outbox
/// and the attachment pipeline use. `AgentRoomHTTPClient` implements it over HTTP; tests
/// use fakes.
public protocol AgentRoomAPI: Sendable {
    /// `GET agent/descriptor`.
    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor
    /// `GET agent/messages` (at most one of `after` and `before`; `limit` 1…200).
    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage
    /// `POST agent/messages`: the receipt, which must acknowledge exactly the submission.
    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt
    /// `GET agent/read`.
    func readState() async throws(AgentRoomError) -> AgentReadState
    /// `POST agent/read`.
    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState
    /// `POST agent/uploads`: the stored descriptor (the same for a retry with the same id).
    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment
    /// `GET agent/uploads/{id}/original`: the original bytes, verified against `attachment`'s
    /// size and SHA-256; redirects are refused.
    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8]
}
