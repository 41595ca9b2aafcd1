import SybilCore

/// What `<upload key>:begin` tells the desktop (docs/api/workspaces.md): the chat and the file.
public struct AttachmentUploadRequest: Sendable, Hashable {
    /// The chat the attachment is for.
    public var chat: WorkspaceChatKey
    /// The name shown (after any conversion, e.g. `photo.jpg`).
    public var fileName: String
    /// The MIME type sent (after any conversion).
    public var mimeType: String
    /// The original file's path on the phone.
    public var path: String
    /// Bytes that will be sent, 1…1 GiB.
    public var size: Int64

    /// The largest file the desktop takes: 1 GiB.
    public static let maximumSize: Int64 = 1 << 30

    /// Creates a request.
    public init(chat: WorkspaceChatKey, fileName: String, mimeType: String, path: String, size: Int64) {
        self.chat = chat
        self.fileName = fileName
        self.mimeType = mimeType
        self.path = path
        self.size = size
    }

    /// The params object, in contract order.
    public var params: JSONObject {
        JSONObject(
            chat.paramsMembers + [
                JSONMember("fileName", .string(fileName)), JSONMember("mimeType", .string(mimeType)),
                JSONMember("path", .string(path)), JSONMember("size", .number(JSONNumber(size))),
            ])
    }

    /// Decodes params: exactly these members, a non-blank name and type, size 1…1 GiB.
    public static func decode(params reader: JSONObjectReader) throws(JSONError) -> AttachmentUploadRequest {
        try reader.requireExactKeys(["desktopId", "projectId", "sessionId", "fileName", "mimeType", "path", "size"])
        return AttachmentUploadRequest(
            chat: try WorkspaceChatKey.decode(params: reader), fileName: try reader.nonBlankString("fileName"),
            mimeType: try reader.nonBlankString("mimeType"), path: try reader.string("path"),
            size: try reader.integer("size", in: 1...maximumSize))
    }
}
