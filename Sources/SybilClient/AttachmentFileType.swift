import Foundation

/// The MIME type a chosen file is sent with, from its name's extension (what a file picker
/// would report); anything unknown is `application/octet-stream`. Read through
/// `AttachmentUploader.File(path:)` below, which the terminal app's `/attach` calls.
enum AttachmentFileType {
    /// The MIME type of the file at `path`.
    static func mimeType(ofPath path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "pdf": "application/pdf"
        case "txt", "log": "text/plain"
        case "md": "text/markdown"
        case "json": "application/json"
        case "swift": "text/x-swift"
        default: "application/octet-stream"
        }
    }
}

extension AttachmentUploader.File {
    /// The file at `path`, named by its last path component, typed by its extension.
    public init(path: String) {
        self.init(
            path: path, fileName: (path as NSString).lastPathComponent,
            mimeType: AttachmentFileType.mimeType(ofPath: path))
    }
}
