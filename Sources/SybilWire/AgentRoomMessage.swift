import SybilCore

/// One message of the Agent room (docs/api/agent-room.md), from history pages and the live
/// stream alike. Only `metadata.agentAttachments` is read; other metadata is ignored.
public struct AgentRoomMessage: Sendable, Hashable {
    /// Who wrote the message.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        case user, assistant, tool, system
    }

    /// Who may see the message.
    public enum Visibility: String, Sendable, Hashable, CaseIterable {
        case `public`, `internal`
    }

    /// The canonical identity.
    public var messageId: String
    /// The message's place in the room's order.
    public var cursor: AgentCursor
    /// The client's request id on a submitted user message (the canonical echo's key).
    public var requestId: String?
    /// Who wrote it.
    public var role: Role
    /// Who may see it.
    public var visibility: Visibility
    /// The text (a caption for attachments; may be blank then).
    public var text: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// `metadata.agentAttachments`, in order.
    public var attachments: [AgentAttachment]

    /// Creates a message.
    public init(
        messageId: String, cursor: AgentCursor, requestId: String? = nil, role: Role, visibility: Visibility,
        text: String, createdAt: Int64, attachments: [AgentAttachment] = []
    ) {
        self.messageId = messageId
        self.cursor = cursor
        self.requestId = requestId
        self.role = role
        self.visibility = visibility
        self.text = text
        self.createdAt = createdAt
        self.attachments = attachments
    }

    /// Whether the transcript shows it: raw tool calls and results and internal messages
    /// stay in the merged history but are not shown.
    public var isVisible: Bool { visibility == .public && role != .tool }

    /// Whether it counts as unread: public assistant replies only.
    public var countsAsUnread: Bool { visibility == .public && role == .assistant }

    /// Decodes a message: the contract's members and no others; `metadata` must be an object.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentRoomMessage {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys([
            "messageId", "cursor", "requestId", "role", "visibility", "text", "createdAt", "metadata",
        ])
        var attachments: [AgentAttachment] = []
        if let metadataValue = reader.optionalValue("metadata") {
            let metadata = try JSONObjectReader(metadataValue, at: path.appending(key: "metadata"))
            if let list = metadata.optionalValue("agentAttachments") {
                let listPath = metadata.path.appending(key: "agentAttachments")
                guard case .array(let items) = list else {
                    throw .contract(listPath, "expected an array, got \(list.kindDescription)")
                }
                for (index, item) in items.enumerated() {
                    attachments.append(try AgentAttachment.decode(item, at: listPath.appending(index: index)))
                }
            }
        }
        return AgentRoomMessage(
            messageId: try reader.nonEmptyString("messageId"), cursor: try reader.decode("cursor", AgentCursor.decode),
            requestId: try reader.optionalNonEmptyString("requestId"),
            role: try enumMember(reader, "role"), visibility: try enumMember(reader, "visibility"),
            text: try reader.string("text"),
            createdAt: try reader.integer("createdAt", in: 0...JSONValueReader.maxSafeInteger),
            attachments: attachments)
    }

    /// The message as contract JSON.
    public var jsonValue: JSONValue {
        var members = [JSONMember("messageId", .string(messageId)), JSONMember("cursor", cursor.jsonValue)]
        if let requestId { members.append(JSONMember("requestId", .string(requestId))) }
        members += [
            JSONMember("role", .string(role.rawValue)), JSONMember("visibility", .string(visibility.rawValue)),
            JSONMember("text", .string(text)), JSONMember("createdAt", .number(JSONNumber(createdAt))),
        ]
        let metadata: JSONValue =
            attachments.isEmpty
            ? .object(JSONObject()) : ["agentAttachments": .array(attachments.map(\.jsonValue))]
        members.append(JSONMember("metadata", metadata))
        return .object(JSONObject(members))
    }

    static func enumMember<E: RawRepresentable & CaseIterable>(_ reader: JSONObjectReader, _ key: String)
        throws(JSONError) -> E where E.RawValue == String
    {
        let text = try reader.string(key)
        guard let value = E(rawValue: text) else {
            throw .contract(
                reader.path.appending(key: key),
                "must be one of \(E.allCases.map { JSONWriter.quoted($0.rawValue) }.joined(separator: ", ")), got \(JSONWriter.quoted(text))"
            )
        }
        return value
    }
}
