import Foundation
import SybilStore

/// What the user picked, before preparation: a file (kept byte for byte) or a photo from the
/// library (HEIC/HEIF converted to JPEG), with the name and MIME type the picker supplied and
/// a way to read its bytes.
public struct AgentAttachmentSource: Sendable {
    /// How the item was picked, which decides how it is prepared.
    public enum Kind: String, Sendable, Hashable {
        /// From Files: the original bytes whatever they are.
        case file
        /// From the photo library: HEIC/HEIF becomes JPEG; other images are validated.
        case photo
    }

    /// How it was picked.
    public var kind: Kind
    /// The name the picker supplied (a photo picker may give an export name).
    public var fileName: String
    /// The MIME type the picker supplied, if any.
    public var mimeType: String?
    /// The size, when known before reading (lets a too-large file be refused unread).
    public var byteCount: Int64?
    /// Reads the content: all of it when it has at most `maxBytes` bytes, else at least
    /// `maxBytes + 1` bytes (and need not read more), so a reader never holds an oversized file.
    public var read: @Sendable (_ maxBytes: Int) async throws -> [UInt8]
    /// The file's path when the source is a file on this device: the saved draft keeps it for
    /// an item that was not staged, so the item can be retried after a relaunch.
    public var path: String?

    /// Creates a source.
    public init(
        kind: Kind, fileName: String, mimeType: String?, byteCount: Int64?, path: String? = nil,
        read: @escaping @Sendable (_ maxBytes: Int) async throws -> [UInt8]
    ) {
        self.path = path
        self.kind = kind
        self.fileName = fileName
        self.mimeType = mimeType
        self.byteCount = byteCount
        self.read = read
    }

    /// A source over bytes already in memory.
    public static func bytes(_ bytes: [UInt8], kind: Kind, fileName: String, mimeType: String? = nil) -> Self {
        AgentAttachmentSource(kind: kind, fileName: fileName, mimeType: mimeType, byteCount: Int64(bytes.count)) {
            maxBytes in Array(bytes.prefix(maxBytes + 1))
        }
    }

    /// A source reading the file at `path` off the cooperative pool when it is prepared.
    public static func file(
        atPath path: String, kind: Kind, fileName: String, mimeType: String? = nil, byteCount: Int64? = nil
    ) -> Self {
        let queue = AgentAttachmentIOQueue(label: "sybil.agent-attachment-source")
        return AgentAttachmentSource(
            kind: kind, fileName: fileName, mimeType: mimeType, byteCount: byteCount, path: path
        ) { maxBytes in
            try await queue.run {
                guard let handle = FileHandle(forReadingAtPath: path) else {
                    throw StorageError(operation: "open", path: path, reason: "the file cannot be opened")
                }
                defer { try? handle.close() }
                return [UInt8](try handle.read(upToCount: maxBytes + 1) ?? Data())
            }
        }
    }
}
