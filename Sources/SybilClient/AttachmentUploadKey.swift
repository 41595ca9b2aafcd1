import SybilCore
import SybilTimeline

/// The upload key of an attachment (SPEC §4.6): `files.chatAttachmentUpload:<session>:` and
/// the 16 lowercase hex digits of the 64-bit FNV-1a hash of
///
///     session 0x00 project 0x00 fileName 0x00 mimeType 0x00 path 0x00 size
///
/// (each text as UTF-8, `size` as decimal ASCII digits, no trailing byte). The same file in the
/// same chat always gets the same key, so a retry reuses the desktop's call keys.
public enum AttachmentUploadKey {
    /// The bytes that are hashed.
    public static func hashedBytes(
        session: String, project: String, fileName: String, mimeType: String, path: String, size: Int64
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in [session, project, fileName, mimeType, path] {
            bytes.append(contentsOf: field.utf8)
            bytes.append(0)
        }
        bytes.append(contentsOf: String(size).utf8)
        return bytes
    }

    /// The upload key.
    public static func make(
        session: String, project: String, fileName: String, mimeType: String, path: String, size: Int64
    ) -> String {
        var hasher = FNV1a64()
        hasher.update(
            hashedBytes(
                session: session, project: project, fileName: fileName, mimeType: mimeType, path: path, size: size))
        return "files.chatAttachmentUpload:\(session):\(hasher.hexDigest)"
    }

    /// The call key of one step: `<key>:begin`, `<key>:chunk:<n>`, `<key>:finish`, `<key>:cancel`.
    public static func callKey(_ uploadKey: String, _ step: Step) -> String {
        switch step {
        case .begin: uploadKey + ":begin"
        case .chunk(let index): uploadKey + ":chunk:\(index)"
        case .finish: uploadKey + ":finish"
        case .cancel: uploadKey + ":cancel"
        }
    }

    /// The steps of an upload.
    public enum Step: Sendable, Hashable {
        /// Start (or resume) the upload.
        case begin
        /// Chunk `n`, counted from 0.
        case chunk(Int)
        /// All chunks sent.
        case finish
        /// The attachment was removed.
        case cancel
    }
}
