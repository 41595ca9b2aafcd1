import SybilCore

/// The desktop's answer to `<upload key>:finish`: `{uploadId, size, sha256}`.
public struct AttachmentUploadResult: Sendable, Hashable {
    /// The finished upload's id (what the message lists).
    public var uploadId: String
    /// Bytes the desktop received.
    public var size: Int64
    /// The SHA-256 of those bytes, lowercase hex.
    public var sha256: String

    /// Creates a result.
    public init(uploadId: String, size: Int64, sha256: String) {
        self.uploadId = uploadId
        self.size = size
        self.sha256 = sha256
    }

    /// Decodes the answer, exactly its three members; `sha256` is 64 lowercase hex digits.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AttachmentUploadResult {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["uploadId", "size", "sha256"])
        let sha256 = try reader.string("sha256")
        guard sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw .contract(path.appending(key: "sha256"), "must be 64 lowercase hex digits") }
        return AttachmentUploadResult(
            uploadId: try reader.nonEmptyString("uploadId"),
            size: try reader.integer("size", in: 0...AttachmentUploadRequest.maximumSize), sha256: sha256)
    }

    /// The answer as contract JSON.
    public var jsonValue: JSONValue {
        ["uploadId": .string(uploadId), "size": .number(JSONNumber(size)), "sha256": .string(sha256)]
    }
}
