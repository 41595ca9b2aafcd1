import SybilCore

/// The body of `POST agent/messages`: a message the client saved in its outbox first.
public struct AgentRoomSubmission: Sendable, Hashable {
    /// The stable request id (a UUID), the same on every retry.
    public var requestId: String
    /// The text; blank only when attachments are sent.
    public var text: String
    /// When the user wrote it, milliseconds since 1970 (kept across retries).
    public var createdAt: Int64
    /// Upload ids in the order the user chose them.
    public var attachments: [String]

    /// The most UTF-8 bytes a message's text may have (128 KiB): with every character escaped
    /// six-fold and eight attachment descriptors, its stream frame stays under the 1 MiB that
    /// clients read, so no message can wedge a room's stream.
    public static let maxTextBytes = 128 << 10

    /// Creates a submission.
    public init(requestId: String, text: String, createdAt: Int64, attachments: [String] = []) {
        self.requestId = requestId
        self.text = text
        self.createdAt = createdAt
        self.attachments = attachments
    }

    /// Decodes a submission body: known members only, a non-empty request id, text that is
    /// blank only with attachments, and at most `AgentAttachmentLimits.v1.maxFiles` ids.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentRoomSubmission {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys(["requestId", "text", "createdAt", "attachments"])
        var ids: [String] = []
        if let list = reader.optionalValue("attachments") {
            let listPath = path.appending(key: "attachments")
            guard case .array(let items) = list else {
                throw .contract(listPath, "expected an array of upload ids, got \(list.kindDescription)")
            }
            guard items.count <= AgentAttachmentLimits.v1.maxFiles else {
                throw .contract(listPath, "at most \(AgentAttachmentLimits.v1.maxFiles) attachments per message")
            }
            for (index, item) in items.enumerated() {
                guard case .string(let id) = item, !id.isEmpty else {
                    throw .contract(listPath.appending(index: index), "must be a non-empty upload id")
                }
                guard !ids.contains(id) else {
                    throw .contract(listPath.appending(index: index), "upload \(JSONWriter.quoted(id)) is listed twice")
                }
                ids.append(id)
            }
        }
        let text = try reader.string("text")
        guard text.utf8.count <= maxTextBytes else {
            throw .contract(
                path.appending(key: "text"), "must be at most \(maxTextBytes) bytes of UTF-8, got \(text.utf8.count)")
        }
        if ids.isEmpty && text.allSatisfy(\.isWhitespace) {
            throw .contract(path.appending(key: "text"), "must not be blank when there are no attachments")
        }
        return AgentRoomSubmission(
            requestId: try reader.nonEmptyString("requestId"), text: text,
            createdAt: try reader.integer("createdAt", in: 0...JSONValueReader.maxSafeInteger), attachments: ids)
    }

    /// The body as contract JSON (`attachments` only when there are some).
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("requestId", .string(requestId)), JSONMember("text", .string(text)),
            JSONMember("createdAt", .number(JSONNumber(createdAt))),
        ]
        if !attachments.isEmpty { members.append(JSONMember("attachments", .array(attachments.map { .string($0) }))) }
        return .object(JSONObject(members))
    }
}
