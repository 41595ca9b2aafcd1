import SybilCore

/// A file attached inline to a message of an ordinary chat (seed 003: ordinary chats keep their
/// inline format, unlike the Agent room's uploads). A text file goes into the message's text;
/// an image goes as an OpenAI `image_url` content part with a `data:` URL. The bytes are kept
/// with the message, so a continued conversation sends them again exactly as the first time.
public struct ChatAttachment: Sendable, Hashable {
    /// What the bytes are.
    public enum Kind: String, Sendable, Hashable {
        /// UTF-8 text, sent inline in the message's text.
        case text
        /// A raster image (PNG, JPEG, GIF or WebP), sent as an image part.
        case image
    }

    /// The most bytes one image may have (the Agent room's v1 image ceiling).
    public static let maximumImageBytes = 6 << 20
    /// The most files one message may carry (the Agent room's v1 ceiling).
    public static let maximumCount = 8
    /// The most bytes of all of one message's attachments together (the v1 ceiling).
    public static let maximumTotalBytes = 32 << 20
    /// The longest file name kept, in bytes.
    public static let maximumNameBytes = 255

    /// The file's name as shown (no folder).
    public var name: String
    /// The MIME type (`text/plain; charset=utf-8` for text, the image's type for images).
    public var mimeType: String
    /// Text or image.
    public var kind: Kind
    /// The file's bytes (the text's UTF-8, or the image file).
    public var bytes: [UInt8]

    /// Creates an attachment.
    public init(name: String, mimeType: String, kind: Kind, bytes: [UInt8]) {
        self.name = name
        self.mimeType = mimeType
        self.kind = kind
        self.bytes = bytes
    }

    /// The size in bytes.
    public var size: Int { bytes.count }

    /// The image's `data:` URL (`data:image/png;base64,...`).
    public var dataURL: String { "data:\(mimeType);base64,\(Base64.encode(bytes))" }

    /// The text a message carries: `text`, then each text attachment as a fenced block headed
    /// by its name. The fence is longer than any run of backticks in the file, so a file that
    /// holds fences cannot end the block early.
    public static func inlineText(_ text: String, attachments: [ChatAttachment]) -> String {
        var result = text
        for attachment in attachments where attachment.kind == .text {
            let content = String(decoding: attachment.bytes, as: UTF8.self)
            let fence = String(repeating: "`", count: max(3, longestBacktickRun(in: content) + 1))
            if !result.isEmpty { result += "\n\n" }
            result += "Attached file \(TerminalText.oneLine(attachment.name)):\n\(fence)\n\(content)"
            if !content.hasSuffix("\n") { result += "\n" }
            result += fence
        }
        return result
    }

    /// The OpenAI `content` of a message with `text` and `attachments`: a plain string when no
    /// image is attached, else an array of parts, the text first and then one `image_url` part
    /// per image in order.
    public static func content(_ text: String, attachments: [ChatAttachment]) -> JSONValue {
        let inline = inlineText(text, attachments: attachments)
        let images = attachments.filter { $0.kind == .image }
        guard !images.isEmpty else { return .string(inline) }
        var parts: [JSONValue] = [["type": "text", "text": .string(inline)]]
        for image in images {
            parts.append(["type": "image_url", "image_url": ["url": .string(image.dataURL)]])
        }
        return .array(parts)
    }

    /// The attachment as stored with its message: name, type, kind, size and the bytes in
    /// base64.
    public var jsonValue: JSONValue {
        [
            "name": .string(name), "type": .string(mimeType), "kind": .string(kind.rawValue),
            "size": .number(JSONNumber(Int64(bytes.count))), "data": .string(Base64.encode(bytes)),
        ]
    }

    /// Reads a stored attachment; the size must match the bytes.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatAttachment {
        let reader = try JSONObjectReader(value, at: path)
        let name = try reader.string("name")
        let mimeType = try reader.string("type")
        let kindName = try reader.string("kind")
        guard let kind = Kind(rawValue: kindName) else {
            throw JSONError(
                kind: .contract, path: path.appending(key: "kind"), offset: nil,
                message: "expected \"text\" or \"image\"")
        }
        let size = try reader.integer("size", in: 0...Int64(maximumTotalBytes))
        guard let bytes = Base64.decode(try reader.string("data")) else {
            throw JSONError(kind: .contract, path: path.appending(key: "data"), offset: nil, message: "not base64")
        }
        guard bytes.count == size else {
            throw JSONError(
                kind: .contract, path: path.appending(key: "data"), offset: nil,
                message: "holds \(bytes.count) bytes; size says \(size)")
        }
        return ChatAttachment(name: name, mimeType: mimeType, kind: kind, bytes: bytes)
    }

    private static func longestBacktickRun(in text: String) -> Int {
        var longest = 0
        var run = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "`") {
                run += 1
                longest = max(longest, run)
            } else {
                run = 0
            }
        }
        return longest
    }
}
