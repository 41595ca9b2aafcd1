import SybilCore
import SybilHTTP

/// The rules for what a client names an upload with, shared by the Agent room's uploads
/// (docs/api/agent-room.md) and the workspace desktop's chunked uploads
/// (docs/api/workspaces.md), so that nothing a client chose is stored or served back unless
/// it is safe to show, log and use as a name:
///
/// - an upload id is 1 to 128 bytes of visible ASCII without `/`: `^[!-.0-~]{1,128}$`;
/// - a file name is 1 to 1024 bytes of UTF-8, not blank, not `.` or `..`, without `/` and
///   without characters that change how text around them is shown: SybilCore's
///   ``NameCharacters`` rule (control characters, the line and paragraph separators, the
///   bidirectional controls that can make `gpj.exe` read as `exe.jpg`), which display names
///   follow too.
enum UploadNames {
    /// The longest upload id, in bytes.
    static let maxUploadIdBytes = 128
    /// The longest file name, in UTF-8 bytes.
    static let maxFileNameBytes = 1024
    /// The upload id rule as the OpenAPI document states it.
    static let uploadIdPattern = "^[!-.0-~]{1,128}$"
    /// What a refused upload id is told, after the name of the field.
    static let uploadIdRule = "must be an id of 1 to 128 visible ASCII characters without '/'"
    /// What a refused file name is told, after the name of the field.
    static let fileNameRule = "must be 1 to 1024 bytes, not blank, '.' or '..', without '/' or control characters"

    /// Whether `text` is an upload id: 1 to 128 bytes, each `!`…`.` or `0`…`~`.
    static func isUploadId(_ text: String) -> Bool {
        let utf8 = text.utf8
        return (1...maxUploadIdBytes).contains(utf8.count)
            && utf8.allSatisfy { (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "/") }
    }

    /// Whether `text` is a file name a client may store.
    static func isFileName(_ text: String) -> Bool {
        guard (1...maxFileNameBytes).contains(text.utf8.count), text != ".", text != "..", !text.contains("/"),
            text.unicodeScalars.contains(where: { !$0.properties.isWhitespace })
        else { return false }
        return NameCharacters.firstRefused(in: text) == nil
    }

    /// Whether `text` may name a file's place on the client's device (`/` allowed): 1 to
    /// 4096 bytes without control characters.
    static func isPath(_ text: String) -> Bool {
        text.utf8.count <= 4096 && NameCharacters.firstRefused(in: text) == nil
    }

    /// Decodes a percent-encoded UTF-8 header value (`+` stands for a space, as the route has
    /// always read it); `nil` for a broken escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        PercentEscapes.decode(Substring(text).utf8, plusIsSpace: true, brokenEscape: .refuse).flatMap {
            String(validating: $0, as: UTF8.self)
        }
    }
}
