import SybilCore

/// An attachment as the Agent room describes it (`metadata.agentAttachments[i]`, and the
/// answer to an upload): what a card shows and what a download verifies.
///
/// `workspacePath` is the server's own copyable text; clients never build or send one.
public struct AgentAttachment: Sendable, Hashable {
    /// The client-chosen upload id (a UUID), stable across retries.
    public var uploadId: String
    /// The file name as the user sees it (leading dots kept).
    public var fileName: String
    /// The MIME type, e.g. `text/plain`.
    public var mimeType: String
    /// The exact size of the original in bytes.
    public var size: Int64
    /// The SHA-256 of the original, 64 lowercase hex digits.
    public var sha256: String
    /// Where the agent's runtime sees the file, when the server says.
    public var workspacePath: String?

    /// Creates a descriptor.
    public init(
        uploadId: String, fileName: String, mimeType: String, size: Int64, sha256: String,
        workspacePath: String? = nil
    ) {
        self.uploadId = uploadId
        self.fileName = fileName
        self.mimeType = mimeType
        self.size = size
        self.sha256 = sha256
        self.workspacePath = workspacePath
    }

    /// Whether the MIME type is an image's.
    public var isImage: Bool { mimeType.lowercased().hasPrefix("image/") }

    /// Decodes a descriptor: exactly its members, a size of 0…2^53−1 and a lowercase hex digest.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentAttachment {
        let reader = try JSONObjectReader(value, at: path)
        try reader.rejectUnknownKeys(["uploadId", "fileName", "mimeType", "size", "sha256", "workspacePath"])
        let mimeType = try reader.nonEmptyString("mimeType")
        guard mimeType.split(separator: "/", omittingEmptySubsequences: false).count == 2 else {
            throw .contract(path.appending(key: "mimeType"), "must be a MIME type such as text/plain")
        }
        let sha256 = try reader.string("sha256")
        guard sha256.utf8.count == 64, sha256.utf8.allSatisfy({ Hex.isLowercaseDigit($0) }) else {
            throw .contract(path.appending(key: "sha256"), "must be 64 lowercase hex digits")
        }
        return AgentAttachment(
            uploadId: try reader.nonEmptyString("uploadId"), fileName: try reader.nonBlankString("fileName"),
            mimeType: mimeType, size: try reader.integer("size", in: 0...JSONValueReader.maxSafeInteger),
            sha256: sha256, workspacePath: try reader.optionalNonEmptyString("workspacePath"))
    }

    /// Decodes an upload answer `{"upload": {…}}`.
    public static func decodeUploadAnswer(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AgentAttachment {
        let outer = try JSONObjectReader(value, at: path)
        try outer.requireExactKeys(["upload"])
        return try outer.decode("upload", decode)
    }

    /// The descriptor as contract JSON (`workspacePath` only when present).
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("uploadId", .string(uploadId)), JSONMember("fileName", .string(fileName)),
            JSONMember("mimeType", .string(mimeType)), JSONMember("size", .number(JSONNumber(size))),
            JSONMember("sha256", .string(sha256)),
        ]
        if let workspacePath { members.append(JSONMember("workspacePath", .string(workspacePath))) }
        return .object(JSONObject(members))
    }
}
