import SybilCore

/// The id of an Agent room upload in `/agent/uploads/{uploadId}/original`: the upload id rule
/// (``UploadNames``), `^[!-.0-~]{1,128}$`.
struct UploadID: PathParameterValue, Hashable {
    /// The id.
    let rawValue: String

    static let parameterName = "uploadId"
    static let maximumBytes = UploadNames.maxUploadIdBytes

    init(pathSegment: String) throws(APIError) {
        guard UploadNames.isUploadId(pathSegment) else {
            throw APIError.invalid("uploadId \(UploadNames.uploadIdRule).", param: "uploadId")
        }
        rawValue = pathSegment
    }
}

/// The id of a resumable chat stream in `/v1/chat/completions/{streamId}/events`: the id of
/// its chunks, 1 to 128 visible ASCII characters without `/` (this server's ids are
/// `chatcmpl-` and 32 hex digits). An id that could be one but is not kept is a 404 later.
struct ChatStreamID: PathParameterValue, Hashable {
    /// The id.
    let rawValue: String

    static let parameterName = "streamId"
    static let maximumBytes = 128

    init(pathSegment: String) throws(APIError) {
        guard pathSegment.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError.invalid(
                "streamId must be 1 to \(Self.maximumBytes) visible ASCII characters without '/'.", param: "streamId")
        }
        rawValue = pathSegment
    }
}

/// The id in `/v1/models/{modelId}`: one plain path segment of 1 to 256 bytes without `/`,
/// `\`, `%`, `?`, `#` or control characters, and not `.` or `..`, so that a forwarding server
/// never fetches another upstream path with its key. Refusals name `model`, as OpenAI's
/// model errors (and this route's 404 `model_not_found`) do.
struct ModelID: PathParameterValue, Hashable {
    /// The id.
    let rawValue: String

    static let parameterName = "modelId"
    static let errorParameter = "model"
    static let maximumBytes = 256

    init(pathSegment: String) throws(APIError) {
        let plain =
            pathSegment != "." && pathSegment != ".."
            && !pathSegment.unicodeScalars.contains { "/\\%?#".unicodeScalars.contains($0) }
        guard plain else {
            throw .invalid(
                "A model id is one path segment of 1 to \(Self.maximumBytes) bytes without '/', '\\', '%', '?', '#' "
                    + "or control characters.", param: Self.errorParameter)
        }
        rawValue = pathSegment
    }
}
