import SybilCore

/// The shared read position: `{"readCursor": …, "unread": …}` (the answer to `agent/read`
/// and the stream's `read` event without its `type`). Unread counts public assistant
/// replies after the cursor.
public struct AgentReadState: Sendable, Hashable {
    /// The newest message read on any device, `nil` when nothing was read yet.
    public var readCursor: AgentCursor?
    /// Public assistant replies after it.
    public var unread: Int

    /// Creates a read state.
    public init(readCursor: AgentCursor?, unread: Int) {
        self.readCursor = readCursor
        self.unread = unread
    }

    /// Decodes the members of a read state from `reader` (which may hold others, e.g. `type`).
    static func decode(members reader: JSONObjectReader) throws(JSONError) -> AgentReadState {
        let cursor: AgentCursor? =
            switch try reader.value("readCursor") {
            case .null: nil
            case let value: try AgentCursor.decode(value, at: reader.path.appending(key: "readCursor"))
            }
        let unread = try reader.integer("unread", in: 0...Int64(Int32.max))
        return AgentReadState(readCursor: cursor, unread: Int(unread))
    }

    /// Decodes `{"readCursor": …, "unread": …}` with exactly those members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentReadState {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["readCursor", "unread"])
        return try decode(members: reader)
    }

    /// The members as JSON.
    var members: [JSONMember] {
        [
            JSONMember("readCursor", readCursor?.jsonValue ?? .null),
            JSONMember("unread", .number(JSONNumber(Int64(unread)))),
        ]
    }

    /// The state as contract JSON.
    public var jsonValue: JSONValue { .object(JSONObject(members)) }

    /// The body of `POST agent/read`: `{"cursor": …}`.
    public static func markReadBody(_ cursor: AgentCursor) -> JSONValue { ["cursor": cursor.jsonValue] }
}
