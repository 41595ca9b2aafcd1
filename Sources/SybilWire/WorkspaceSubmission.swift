import SybilCore

/// The params of `run.codexChatSubmit` (docs/api/workspaces.md): a message, or a new version
/// of one, identified by its operation and mutation ids; sent with the call key
/// ``callKey`` so that a retry never runs twice.
public struct WorkspaceSubmission: Sendable, Hashable {
    /// The chat the message goes to.
    public var chat: WorkspaceChatKey
    /// The submission's identity, stable across retries and relaunches.
    public var operationId: String
    /// This version of the message.
    public var mutationId: String
    /// New turn or steer.
    public var mode: WorkspaceSendMode
    /// What the user wrote (blank only with attachments).
    public var text: String
    /// Finished upload ids, in order.
    public var attachments: [String]

    /// Creates a submission.
    public init(
        chat: WorkspaceChatKey, operationId: String, mutationId: String, mode: WorkspaceSendMode, text: String,
        attachments: [String] = []
    ) {
        self.chat = chat
        self.operationId = operationId
        self.mutationId = mutationId
        self.mode = mode
        self.text = text
        self.attachments = attachments
    }

    /// The RPC method.
    public static let method = "run.codexChatSubmit"

    /// `run.codexChatSubmit:<operationId>:<mutationId>`.
    public var callKey: String { "\(Self.method):\(operationId):\(mutationId)" }

    /// The whole RPC request.
    public var request: WorkspaceRPCRequest {
        WorkspaceRPCRequest(method: Self.method, callKey: callKey, params: params)
    }

    /// The params object, in contract order.
    public var params: JSONObject {
        var members = chat.paramsMembers
        members.append(JSONMember("operationId", .string(operationId)))
        members.append(JSONMember("mutationId", .string(mutationId)))
        members.append(JSONMember("mode", .string(mode.name)))
        if let runId = mode.activeRunId { members.append(JSONMember("activeRunId", .string(runId))) }
        members.append(JSONMember("text", .string(text)))
        members.append(JSONMember("attachments", .array(attachments.map(JSONValue.string))))
        return JSONObject(members)
    }

    /// A non-empty id that goes into a call key, so without `:` (which separates its parts).
    static func callKeyPart(_ reader: JSONObjectReader, _ key: String) throws(JSONError) -> String {
        let value = try reader.nonEmptyString(key)
        guard !value.contains(":") else {
            throw .contract(reader.path.appending(key: key), "must not contain ':' (it separates call key parts)")
        }
        return value
    }

    /// Decodes params: no unknown members, `mode` is `send` or `steer` (a steer needs
    /// `activeRunId`, a send has none), `text` is not blank unless there are attachments.
    public static func decode(params reader: JSONObjectReader) throws(JSONError) -> WorkspaceSubmission {
        try reader.rejectUnknownKeys([
            "desktopId", "projectId", "sessionId", "operationId", "mutationId", "mode", "activeRunId", "text",
            "attachments",
        ])
        let chat = try WorkspaceChatKey.decode(params: reader)
        let activeRunId = try reader.optionalNonEmptyString("activeRunId")
        let mode: WorkspaceSendMode
        switch try reader.string("mode") {
        case "send":
            if activeRunId != nil {
                throw .contract(reader.path.appending(key: "activeRunId"), "only a steer names a run")
            }
            mode = .send
        case "steer":
            guard let activeRunId else {
                throw .contract(reader.path.appending(key: "activeRunId"), "a steer needs the run it steers")
            }
            mode = .steer(activeRunId: activeRunId)
        case let other:
            throw .contract(
                reader.path.appending(key: "mode"), "must be \"send\" or \"steer\", got \(JSONWriter.quoted(other))")
        }
        var attachments: [String] = []
        if let value = reader.optionalValue("attachments") {
            let path = reader.path.appending(key: "attachments")
            guard case .array(let items) = value else {
                throw .contract(path, "expected an array of upload ids, got \(value.kindDescription)")
            }
            for (index, item) in items.enumerated() {
                let id = try JSONValueReader.string(item, at: path.appending(index: index))
                guard !id.isEmpty else { throw .contract(path.appending(index: index), "must not be empty") }
                attachments.append(id)
            }
        }
        let text = try reader.string("text")
        if attachments.isEmpty, text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            throw .contract(reader.path.appending(key: "text"), "must not be blank when there are no attachments")
        }
        return WorkspaceSubmission(
            chat: chat, operationId: try callKeyPart(reader, "operationId"),
            mutationId: try callKeyPart(reader, "mutationId"), mode: mode, text: text, attachments: attachments)
    }
}
