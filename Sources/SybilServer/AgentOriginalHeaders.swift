import SybilHTTP
import SybilWire

/// The headers of `GET agent/uploads/{uploadId}/original` (docs/api/agent-room.md): an
/// original is always a download, never a page the server hosts. The uploader chose the
/// MIME type, so it is served only when it is on a short list of types no browser runs
/// (``safeTypes``; `text/plain` with `charset=utf-8`) and as `application/octet-stream`
/// otherwise, with `X-Content-Type-Options: nosniff`, a sandboxing
/// `Content-Security-Policy`, and `Content-Disposition: attachment` with the file name in
/// RFC 8187 form (RFC 6266).
enum AgentOriginalHeaders {
    /// The types served as uploaded, with the Content-Type each is served with.
    static let safeTypes: [String: String] = [
        "image/png": "image/png", "image/jpeg": "image/jpeg", "image/gif": "image/gif", "image/webp": "image/webp",
        "image/heic": "image/heic", "application/pdf": "application/pdf",
        "text/plain": "text/plain; charset=utf-8",
    ]

    /// The Content-Type every other upload is served with.
    static let fallbackType = "application/octet-stream"

    /// The headers for an original described by `attachment`.
    static func headers(for attachment: AgentAttachment) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.set("Content-Type", contentType(for: attachment.mimeType))
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("Content-Security-Policy", "default-src 'none'; sandbox")
        headers.set("Content-Disposition", contentDisposition(fileName: attachment.fileName))
        headers.set("X-Content-SHA256", attachment.sha256)
        return headers
    }

    /// The Content-Type an upload of `mimeType` is served with.
    static func contentType(for mimeType: String) -> String {
        safeTypes[mimeType.lowercased()] ?? fallbackType
    }

    /// `attachment; filename*=UTF-8''…` with every byte outside RFC 8187's `attr-char`
    /// percent-encoded.
    static func contentDisposition(fileName: String) -> String {
        var encoded = ""
        for byte in fileName.utf8 {
            if isAttrChar(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(hex[Int(byte >> 4)])
                encoded.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return "attachment; filename*=UTF-8''" + encoded
    }

    /// RFC 8187 `attr-char`: letters, digits and ``!#$&+-.^_`|~``.
    private static func isAttrChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$&+-.^_`|~".utf8.contains(byte)
        }
    }
}
