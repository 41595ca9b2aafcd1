import SybilCore

/// The calls after `begin` of a chunked upload, by the step their call key ends in
/// (`:chunk:<n>`, `:finish`, `:cancel`), with their params and answers.
public enum AttachmentUploadStep: Sendable, Hashable {
    /// `:chunk:<n>` with `{uploadId, index, data}`: `data` is base64 of the chunk's bytes.
    case chunk(uploadId: String, index: Int, base64: String)
    /// `:finish` with `{uploadId, chunkCount}`.
    case finish(uploadId: String, chunkCount: Int)
    /// `:cancel` with `{uploadId}`.
    case cancel(uploadId: String)

    /// The params object.
    public var params: JSONObject {
        switch self {
        case .chunk(let uploadId, let index, let base64):
            ["uploadId": .string(uploadId), "index": .number(JSONNumber(Int64(index))), "data": .string(base64)]
        case .finish(let uploadId, let chunkCount):
            ["uploadId": .string(uploadId), "chunkCount": .number(JSONNumber(Int64(chunkCount)))]
        case .cancel(let uploadId):
            ["uploadId": .string(uploadId)]
        }
    }

    /// Decodes the params of a chunk (`chunkNumber` from the call key), finish or cancel:
    /// exactly their members; a chunk's `index` must equal the call key's number.
    public static func decode(params reader: JSONObjectReader, step: Kind) throws(JSONError) -> AttachmentUploadStep {
        switch step {
        case .chunk(let number):
            try reader.requireExactKeys(["uploadId", "index", "data"])
            let index = try reader.integer("index", in: 0...Int64(Int32.max))
            guard index == number else {
                throw .contract(
                    reader.path.appending(key: "index"), "must equal the chunk number in callKey (\(number))")
            }
            return .chunk(
                uploadId: try reader.nonEmptyString("uploadId"), index: Int(index), base64: try reader.string("data"))
        case .finish:
            try reader.requireExactKeys(["uploadId", "chunkCount"])
            return .finish(
                uploadId: try reader.nonEmptyString("uploadId"),
                chunkCount: Int(try reader.integer("chunkCount", in: 0...Int64(Int32.max))))
        case .cancel:
            try reader.requireExactKeys(["uploadId"])
            return .cancel(uploadId: try reader.nonEmptyString("uploadId"))
        }
    }

    /// Which step a call key names.
    public enum Kind: Sendable, Hashable {
        /// `:chunk:<n>`.
        case chunk(Int)
        /// `:finish`.
        case finish
        /// `:cancel`.
        case cancel
    }

    /// The answer to a chunk: `{uploadId, index, receivedBytes}`.
    public static func chunkAnswer(uploadId: String, index: Int, receivedBytes: Int64) -> JSONValue {
        [
            "uploadId": .string(uploadId), "index": .number(JSONNumber(Int64(index))),
            "receivedBytes": .number(JSONNumber(receivedBytes)),
        ]
    }

    /// Checks a chunk's answer: exactly its members, for this upload and index.
    public static func decodeChunkAnswer(
        _ value: JSONValue, at path: JSONPath, uploadId: String, index: Int
    ) throws(JSONError) {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["uploadId", "index", "receivedBytes"])
        guard try reader.nonEmptyString("uploadId") == uploadId else {
            throw .contract(
                path.appending(key: "uploadId"), "answers another upload than \(JSONWriter.quoted(uploadId))")
        }
        guard try reader.integer("index", in: 0...Int64(Int32.max)) == index else {
            throw .contract(path.appending(key: "index"), "answers another chunk than \(index)")
        }
        _ = try reader.integer("receivedBytes", in: 0...AttachmentUploadRequest.maximumSize)
    }

    /// The answer to a cancel: `{uploadId, cancelled}` (`false` when it had already finished).
    public static func cancelAnswer(uploadId: String, cancelled: Bool) -> JSONValue {
        ["uploadId": .string(uploadId), "cancelled": .bool(cancelled)]
    }

    /// Checks a cancel's answer and returns whether the upload was cancelled.
    public static func decodeCancelAnswer(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Bool {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(["uploadId", "cancelled"])
        _ = try reader.nonEmptyString("uploadId")
        return try reader.bool("cancelled")
    }
}
