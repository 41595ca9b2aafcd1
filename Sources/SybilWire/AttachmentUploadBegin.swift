import SybilCore

/// The desktop's answer to `<upload key>:begin`: `{uploadId, chunkSize, receivedChunks}`.
public struct AttachmentUploadBegin: Sendable, Hashable {
    /// The largest chunk the phone sends: 1 MiB.
    public static let maximumChunkSize = 1 << 20

    /// The upload's id on the desktop.
    public var uploadId: String
    /// The chunk size it wants (1…1 MiB).
    public var chunkSize: Int
    /// Chunks it already has (a restarted upload resumes after them).
    public var receivedChunks: Int

    /// Creates an answer.
    public init(uploadId: String, chunkSize: Int, receivedChunks: Int = 0) {
        self.uploadId = uploadId
        self.chunkSize = chunkSize
        self.receivedChunks = receivedChunks
    }

    /// Decodes the answer, exactly its three members, with the numbers in range.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> AttachmentUploadBegin {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["uploadId", "chunkSize", "receivedChunks"])
        return AttachmentUploadBegin(
            uploadId: try reader.nonEmptyString("uploadId"),
            chunkSize: Int(try reader.integer("chunkSize", in: 1...Int64(maximumChunkSize))),
            receivedChunks: Int(try reader.integer("receivedChunks", in: 0...Int64(Int32.max))))
    }

    /// The answer as contract JSON.
    public var jsonValue: JSONValue {
        [
            "uploadId": .string(uploadId), "chunkSize": .number(JSONNumber(Int64(chunkSize))),
            "receivedChunks": .number(JSONNumber(Int64(receivedChunks))),
        ]
    }
}
