import SybilCore

/// One message of the Agent room as stored: its sequence number orders it and makes its id
/// and cursor.
struct AgentMessage: Sendable, Hashable {
    var sequence: Int64
    var requestId: String?
    var role: String
    var visibility: String
    var text: String
    var createdAt: Int64
    var attachments: [AgentUpload]

    var messageId: String { "msg-\(sequence)" }
    var cursor: String { Self.cursor(sequence) }

    /// `c-` and nine digits, so cursors compare in server order as strings too.
    static func cursor(_ sequence: Int64) -> String {
        let digits = String(sequence)
        return "c-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
    }

    /// The sequence a cursor names, or `nil` for anything that is not a cursor.
    static func sequence(ofCursor cursor: String) -> Int64? {
        guard cursor.hasPrefix("c-"), cursor.count >= 3 else { return nil }
        let digits = cursor.dropFirst(2)
        guard digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), let value = Int64(digits), value >= 0 else {
            return nil
        }
        return value
    }

    /// The message as the API shows it (docs/api/agent-room.md).
    var json: JSONValue {
        var members: [JSONMember] = [
            JSONMember("messageId", .string(messageId)), JSONMember("cursor", .string(cursor)),
        ]
        if let requestId { members.append(JSONMember("requestId", .string(requestId))) }
        members += [
            JSONMember("role", .string(role)), JSONMember("visibility", .string(visibility)),
            JSONMember("text", .string(text)), JSONMember("createdAt", .number(JSONNumber(createdAt))),
        ]
        let metadata: JSONValue =
            attachments.isEmpty ? .object(JSONObject()) : ["agentAttachments": .array(attachments.map(\.json))]
        members.append(JSONMember("metadata", metadata))
        return .object(JSONObject(members))
    }
}

/// A stored Agent room upload's descriptor.
struct AgentUpload: Sendable, Hashable {
    var uploadId: String
    var fileName: String
    var mimeType: String
    var size: Int64
    var sha256: String

    var json: JSONValue {
        [
            "uploadId": .string(uploadId), "fileName": .string(fileName), "mimeType": .string(mimeType),
            "size": .number(JSONNumber(size)), "sha256": .string(sha256),
        ]
    }
}
