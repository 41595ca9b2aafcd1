import SybilCore

/// `run.codexChatStop` (docs/api/workspaces.md): stops a running run (it ends `stopped`) or
/// cancels a queued one (`cancelled`). The call key is `run.codexChatStop:<runId>`.
public struct WorkspaceRunStop: Sendable, Hashable {
    /// The chat the run belongs to.
    public var chat: WorkspaceChatKey
    /// The run to stop.
    public var runId: String

    /// Creates a stop request.
    public init(chat: WorkspaceChatKey, runId: String) {
        self.chat = chat
        self.runId = runId
    }

    /// The RPC method.
    public static let method = "run.codexChatStop"

    /// `run.codexChatStop:<runId>`.
    public var callKey: String { "\(Self.method):\(runId)" }

    /// The whole RPC request.
    public var request: WorkspaceRPCRequest {
        WorkspaceRPCRequest(
            method: Self.method, callKey: callKey,
            params: JSONObject(chat.paramsMembers + [JSONMember("runId", .string(runId))]))
    }

    /// Decodes params: exactly the chat and `runId`.
    public static func decode(params reader: JSONObjectReader) throws(JSONError) -> WorkspaceRunStop {
        try reader.requireExactKeys(["desktopId", "projectId", "sessionId", "runId"])
        return WorkspaceRunStop(
            chat: try WorkspaceChatKey.decode(params: reader),
            runId: try WorkspaceSubmission.callKeyPart(reader, "runId"))
    }

    /// The answer: the run and how it ended (its earlier ending when it had already ended).
    public struct Result: Sendable, Hashable {
        /// The run.
        public var runId: String
        /// Its ending.
        public var state: WorkspaceRunState

        /// Creates a result; `state` must be an ending.
        public init(runId: String, state: WorkspaceRunState) {
            precondition(state.isEnding, "a stopped run's state is an ending, not \(state)")
            self.runId = runId
            self.state = state
        }

        /// Decodes `{runId, state}`; the state must be an ending.
        public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Result {
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["runId", "state"])
            let state = try reader.decode("state", WorkspaceRunState.decode)
            guard state.isEnding else {
                throw .contract(path.appending(key: "state"), "a stopped run's state must be an ending")
            }
            return Result(runId: try reader.nonEmptyString("runId"), state: state)
        }

        /// The result as contract JSON.
        public var jsonValue: JSONValue { ["runId": .string(runId), "state": .string(state.rawValue)] }
    }
}
