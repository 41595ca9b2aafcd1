import SybilCore

/// One text frame of `agent/stream`: a message, the agent's activity, or the shared read.
public enum AgentStreamEvent: Sendable, Hashable {
    /// What the agent is doing.
    public enum Activity: String, Sendable, Hashable, CaseIterable {
        case working, idle
    }

    /// A message, replayed or live (the client's own submissions carry its request id).
    case message(AgentRoomMessage)
    /// The agent's activity with a short detail.
    case activity(Activity, detail: String)
    /// The shared read position moved.
    case read(AgentReadState)

    /// Decodes a frame's JSON: a known `type` and exactly its members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentStreamEvent {
        let reader = try JSONObjectReader(value, at: path)
        switch try reader.string("type") {
        case "message":
            try reader.requireExactKeys(["type", "message"])
            return .message(try reader.decode("message", AgentRoomMessage.decode))
        case "activity":
            try reader.requireExactKeys(["type", "state", "detail"])
            return .activity(try AgentRoomMessage.enumMember(reader, "state"), detail: try reader.string("detail"))
        case "read":
            try reader.requireExactKeys(["type", "readCursor", "unread"])
            return .read(try AgentReadState.decode(members: reader))
        case let other:
            throw .contract(
                path.appending(key: "type"),
                "must be \"message\", \"activity\" or \"read\", got \(JSONWriter.quoted(other))")
        }
    }

    /// Decodes a text frame.
    public static func decode(frame text: String) throws(JSONError) -> AgentStreamEvent {
        try decode(try JSONReader(limits: JSONReader.Limits(maxDepth: 64, maxBytes: 1 << 20)).parse(text), at: .root)
    }

    /// The frame as contract JSON.
    public var jsonValue: JSONValue {
        switch self {
        case .message(let message): ["type": "message", "message": message.jsonValue]
        case .activity(let state, let detail):
            ["type": "activity", "state": .string(state.rawValue), "detail": .string(detail)]
        case .read(let state): .object(JSONObject([JSONMember("type", "read")] + state.members))
        }
    }
}
