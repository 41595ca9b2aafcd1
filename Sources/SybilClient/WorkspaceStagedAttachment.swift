import SybilCore
import SybilWire

/// An attachment of a queued workspace message that is not uploaded yet: a copy the outbox
/// owns (``WorkspaceOutboxStaging``), taken when the message was queued, so that what is sent
/// later is what the user attached then, whatever happens to their file meanwhile.
public struct WorkspaceStagedAttachment: Sendable, Hashable {
    /// The name the desktop sees (the user's file name).
    public var fileName: String
    /// Its MIME type.
    public var mimeType: String
    /// Bytes in the staged copy.
    public var size: Int64
    /// SHA-256 of the staged copy, 64 lowercase hex digits.
    public var sha256: String
    /// Where the staged copy is (an absolute path under the outbox's staging directory). Read
    /// back from disk it is not trusted: the sender checks it is the entry's own copy
    /// (``WorkspaceOutboxStaging/confine(_:operationId:)``) before anything is read or uploaded.
    public var stagedPath: String

    /// Describes a staged copy.
    public init(fileName: String, mimeType: String, size: Int64, sha256: String, stagedPath: String) {
        self.fileName = fileName
        self.mimeType = mimeType
        self.size = size
        self.sha256 = sha256
        self.stagedPath = stagedPath
    }

    /// The staged copy as the uploader reads it.
    public var file: AttachmentUploader.File {
        AttachmentUploader.File(path: stagedPath, fileName: fileName, mimeType: mimeType)
    }

    // MARK: JSON

    static let keys = ["fileName", "mimeType", "size", "sha256", "stagedPath"]

    var jsonValue: JSONValue {
        [
            "fileName": .string(fileName), "mimeType": .string(mimeType), "size": .number(JSONNumber(size)),
            "sha256": .string(sha256), "stagedPath": .string(stagedPath),
        ]
    }

    static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Self {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let sha256 = try reader.string("sha256")
        guard sha256.utf8.count == 64,
            sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw .contract(path.appending(key: "sha256"), "must be 64 lowercase hex digits")
        }
        let stagedPath = try reader.nonEmptyString("stagedPath")
        guard stagedPath.hasPrefix("/"), !stagedPath.utf8.contains(0) else {
            throw .contract(path.appending(key: "stagedPath"), "must be an absolute path")
        }
        return WorkspaceStagedAttachment(
            fileName: try reader.nonEmptyString("fileName"), mimeType: try reader.nonEmptyString("mimeType"),
            size: try reader.integer("size", in: 0...AttachmentUploader.maximumFileBytes), sha256: sha256,
            stagedPath: stagedPath)
    }
}
