import SybilCore

/// The answer to `GET agent/messages`: messages oldest first, the cursor to replay from, and
/// whether older messages exist.
public struct AgentRoomPage: Sendable, Hashable {
    /// The messages, oldest first.
    public var messages: [AgentRoomMessage]
    /// The newest message's cursor (or the request's `after`), `nil` for an empty room.
    public var nextCursor: AgentCursor?
    /// Whether older messages exist before the first one.
    public var hasMoreBefore: Bool

    /// Creates a page.
    public init(messages: [AgentRoomMessage], nextCursor: AgentCursor?, hasMoreBefore: Bool) {
        self.messages = messages
        self.nextCursor = nextCursor
        self.hasMoreBefore = hasMoreBefore
    }

    /// Decodes a page: exactly its members, messages strictly ascending by cursor with
    /// distinct ids, and `nextCursor` not older than the last message.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentRoomPage {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["messages", "nextCursor", "hasMoreBefore"])
        let listPath = path.appending(key: "messages")
        var messages: [AgentRoomMessage] = []
        var ids = Set<String>()
        for (index, item) in try reader.array("messages").enumerated() {
            let message = try AgentRoomMessage.decode(item, at: listPath.appending(index: index))
            if let previous = messages.last, !(previous.cursor < message.cursor) {
                throw .contract(
                    listPath.appending(index: index).appending(key: "cursor"),
                    "messages must be in ascending cursor order; \(message.cursor) follows \(previous.cursor)")
            }
            guard ids.insert(message.messageId).inserted else {
                throw .contract(
                    listPath.appending(index: index).appending(key: "messageId"),
                    "message \(JSONWriter.quoted(message.messageId)) appears twice")
            }
            messages.append(message)
        }
        let next: AgentCursor? =
            switch try reader.value("nextCursor") {
            case .null: nil
            case let cursor: try AgentCursor.decode(cursor, at: path.appending(key: "nextCursor"))
            }
        if let last = messages.last, let next, next < last.cursor {
            throw .contract(path.appending(key: "nextCursor"), "is older than the last message's cursor \(last.cursor)")
        }
        return AgentRoomPage(messages: messages, nextCursor: next, hasMoreBefore: try reader.bool("hasMoreBefore"))
    }

    /// The page as contract JSON.
    public var jsonValue: JSONValue {
        [
            "messages": .array(messages.map(\.jsonValue)), "nextCursor": nextCursor?.jsonValue ?? .null,
            "hasMoreBefore": .bool(hasMoreBefore),
        ]
    }
}
