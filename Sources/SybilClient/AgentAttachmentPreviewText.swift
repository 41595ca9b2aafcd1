import SybilCore
import SybilWire

/// An attachment's preview as terminal text, for `sybil agent preview` and the app's preview
/// overlay alike: a heading naming the file, its type and size, then the text itself (HTML and
/// SVG as text, never rendered; safe for a terminal; at most
/// ``AgentDownloadPreview/maxTextBytes``), or an image's format and pixel size, or why there is
/// no preview and how to save the file. Pure.
public enum AgentAttachmentPreviewText {
    /// The preview of `attachment`; `saveHint` says how to save it (a command or a key), shown
    /// when there is no preview.
    public static func render(_ preview: AgentDownloadPreview, of attachment: AgentAttachment, saveHint: String)
        -> String
    {
        let name = TerminalText.oneLine(attachment.fileName)
        let type = TerminalText.oneLine(attachment.mimeType)
        switch preview {
        case .text(let text, let truncated):
            var body = TerminalText.safe(text)
            if !body.isEmpty, !body.hasSuffix("\n") { body += "\n" }
            let cut =
                truncated
                ? "… (the first \(AgentDownloadPreview.maxTextBytes / 1024) KiB of \(attachment.size) bytes)\n" : ""
            return "\(name) · \(type) · \(attachment.size) bytes · shown as text, never rendered\n\n" + body + cut
        case .image(let thumbnail):
            let format = thumbnail.format.rawValue.uppercased()
            return
                "\(name) · \(type) · \(attachment.size) bytes\nimage: \(format), \(thumbnail.originalWidth) × \(thumbnail.originalHeight) pixels\n"
        case .unavailable(let reason):
            return "\(name) · \(type) · \(attachment.size) bytes\n\(TerminalText.oneLine(reason)) (\(saveHint))\n"
        }
    }
}
