import SybilCore

/// The answer to `POST agent/messages`: `{"receipt": {requestId, messageId, cursor, attachments}}`.
public struct AgentRoomReceipt: Sendable, Hashable {
    /// The submission's request id.
    public var requestId: String
    /// The message the server created (or had created for the same request id).
    public var messageId: String
    /// The message's cursor.
    public var cursor: AgentCursor
    /// The accepted upload ids, in order.
    public var attachments: [String]

    /// Creates a receipt.
    public init(requestId: String, messageId: String, cursor: AgentCursor, attachments: [String]) {
        self.requestId = requestId
        self.messageId = messageId
        self.cursor = cursor
        self.attachments = attachments
    }

    /// Whether the receipt acknowledges exactly `submission`: its request id and every
    /// attachment id in the submitted order.
    public func acknowledges(_ submission: AgentRoomSubmission) -> Bool {
        requestId == submission.requestId && attachments == submission.attachments
    }

    /// Decodes `{"receipt": {…}}` with exactly its members.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentRoomReceipt {
        let outer = try JSONObjectReader(value, at: path)
        try outer.requireExactKeys(["receipt"])
        let reader = try JSONObjectReader(try outer.value("receipt"), at: path.appending(key: "receipt"))
        try reader.requireExactKeys(["requestId", "messageId", "cursor", "attachments"])
        let listPath = reader.path.appending(key: "attachments")
        var ids: [String] = []
        for (index, item) in try reader.array("attachments").enumerated() {
            guard case .string(let id) = item, !id.isEmpty else {
                throw .contract(listPath.appending(index: index), "must be a non-empty upload id")
            }
            ids.append(id)
        }
        return AgentRoomReceipt(
            requestId: try reader.nonEmptyString("requestId"), messageId: try reader.nonEmptyString("messageId"),
            cursor: try reader.decode("cursor", AgentCursor.decode), attachments: ids)
    }

    /// The answer as contract JSON.
    public var jsonValue: JSONValue {
        [
            "receipt": [
                "requestId": .string(requestId), "messageId": .string(messageId), "cursor": cursor.jsonValue,
                "attachments": .array(attachments.map { .string($0) }),
            ]
        ]
    }
}
