import SybilClient
import SybilWire

/// An Agent room that never loads: every call fails as a room that cannot be reached, except
/// `submit`, which throws `submitError` (the transport failure, or a refusal for good), and
/// whose stream stays silent (open, or finished at once with `streamFinishes`).
struct UnreachableAgentRoom: AgentRoomAPI, AgentRoomStreamSource {
    static let failure = AgentRoomError.transport("not connected")
    /// What `submit` throws.
    var submitError = Self.failure
    /// Whether the stream finishes at once instead of staying open without a word.
    var streamFinishes = true

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { throw Self.failure }
    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError)
        -> AgentRoomPage
    { throw Self.failure }
    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        throw submitError
    }
    func readState() async throws(AgentRoomError) -> AgentReadState { throw Self.failure }
    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState { throw Self.failure }
    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment { throw Self.failure }
    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] { throw Self.failure }
    func updates(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AsyncStream<AgentRoomStreamUpdate> {
        let finishes = streamFinishes
        return AsyncStream { if finishes { $0.finish() } }
    }
}
