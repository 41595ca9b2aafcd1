import SybilCore
import SybilImaging
import SybilStore
import SybilWire

/// Reads a file to attach inline to an ordinary chat's message (seed 003; `sybil ask --attach`
/// and the app's `/attach`): a PNG, JPEG, GIF or WebP image (at most
/// ``ChatAttachment/maximumImageBytes``) is kept byte for byte, a HEIC/HEIF photo becomes a
/// bounded JPEG named `.jpg` (as the Agent room's photos do), and UTF-8 text up to the
/// profile's input limit is kept as text. Anything else is refused, naming the file.
public enum ChatAttachmentFile {
    /// The text limit where no profile sets one (`sybil ask`'s standard 1 MiB).
    public static let defaultTextLimit = 1 << 20
    /// The most bytes of a HEIC/HEIF photo read before it is converted (the v1 file ceiling).
    public static let maximumPhotoSourceBytes = 8 << 20

    /// Why a file cannot be attached.
    public enum Refusal: Error, Equatable, Sendable {
        /// The file cannot be read (missing, a folder, no permission): its path and why.
        case unreadable(path: String, reason: String)
        /// Over its limit: the file's path, its size, the limit and what kind of limit.
        case tooLarge(path: String, bytes: Int, limit: Int, what: String)
        /// Neither UTF-8 text nor a known image.
        case notTextOrImage(path: String)
        /// A photo that could not be converted: its path and why.
        case unconvertible(path: String, reason: String)
        /// More files, or more bytes together, than one message may carry.
        case tooMany(count: Int)
        /// All the files together are over ``ChatAttachment/maximumTotalBytes``.
        case totalTooLarge(bytes: Int)

        /// The sentence for the person, naming the file and the limit.
        public var message: String {
            switch self {
            case .unreadable(let path, let reason):
                "cannot read the file to attach '\(TerminalText.oneLine(path))': \(reason)"
            case .tooLarge(let path, let bytes, let limit, let what):
                "the file to attach '\(TerminalText.oneLine(path))' is \(bytes) bytes, over the limit of \(limit) "
                    + "bytes for \(what)"
            case .notTextOrImage(let path):
                "the file to attach '\(TerminalText.oneLine(path))' is neither UTF-8 text nor a PNG, JPEG, GIF, "
                    + "WebP or HEIC image"
            case .unconvertible(let path, let reason):
                "the photo to attach '\(TerminalText.oneLine(path))' cannot be converted to JPEG: \(reason)"
            case .tooMany(let count):
                "\(count) files to attach; at most \(ChatAttachment.maximumCount) go with one message"
            case .totalTooLarge(let bytes):
                "the files to attach are \(bytes) bytes together, over the limit of "
                    + "\(ChatAttachment.maximumTotalBytes) bytes for one message"
            }
        }

        /// Whether the file could not be read at all (rather than read and refused).
        public var isUnreadable: Bool {
            if case .unreadable = self { return true }
            return false
        }
    }

    /// Reads every file in `paths`, in order, text files bounded by `textLimit` bytes together
    /// with `reservedText` (the question's bytes); the first refusal wins and nothing is kept.
    public static func read(_ paths: [String], textLimit: Int, reservedText: Int = 0) -> Result<
        [ChatAttachment], Refusal
    > {
        guard paths.count <= ChatAttachment.maximumCount else { return .failure(.tooMany(count: paths.count)) }
        var attachments: [ChatAttachment] = []
        for path in paths {
            switch read(path, textLimit: textLimit) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let attachment):
                if let refusal = refusal(
                    adding: attachment, path: path, to: attachments, textLimit: textLimit, reservedText: reservedText)
                {
                    return .failure(refusal)
                }
                attachments.append(attachment)
            }
        }
        return .success(attachments)
    }

    /// Reads the file at `path` to go with `staged`, the files already staged for one message
    /// (the app's `/attach`): refused when it cannot be read or when the message would carry
    /// more files or bytes than one message may.
    public static func stage(_ path: String, with staged: [ChatAttachment], textLimit: Int) -> Result<
        ChatAttachment, Refusal
    > {
        guard staged.count < ChatAttachment.maximumCount else { return .failure(.tooMany(count: staged.count + 1)) }
        switch read(path, textLimit: textLimit) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let attachment):
            if let refusal = refusal(adding: attachment, path: path, to: staged, textLimit: textLimit) {
                return .failure(refusal)
            }
            return .success(attachment)
        }
    }

    /// Why `attachment` (read from `path`) cannot join `others` in one message, if it cannot:
    /// the text files together (with `reservedText`, the question's bytes) over `textLimit`, or
    /// all the files over ``ChatAttachment/maximumTotalBytes``.
    static func refusal(
        adding attachment: ChatAttachment, path: String, to others: [ChatAttachment], textLimit: Int,
        reservedText: Int = 0
    ) -> Refusal? {
        if attachment.kind == .text {
            let textBytes = reservedText + others.filter { $0.kind == .text }.reduce(0) { $0 + $1.size }
            if textBytes + attachment.size > textLimit {
                return .tooLarge(
                    path: path, bytes: attachment.size, limit: textLimit,
                    what: "the question's text with its text files")
            }
        }
        let total = others.reduce(0) { $0 + $1.size } + attachment.size
        return total > ChatAttachment.maximumTotalBytes ? .totalTooLarge(bytes: total) : nil
    }

    /// Reads one file to attach.
    public static func read(_ path: String, textLimit: Int) -> Result<ChatAttachment, Refusal> {
        let readLimit = max(textLimit, ChatAttachment.maximumImageBytes, maximumPhotoSourceBytes)
        let bytes: [UInt8]
        do {
            switch try BoundedFile.read(path, maxBytes: readLimit) {
            case .missing: return .failure(.unreadable(path: path, reason: "no such file"))
            case .tooLarge(let size):
                return .failure(.tooLarge(path: path, bytes: size, limit: readLimit, what: "a file to attach"))
            case .bytes(let read): bytes = read
            }
        } catch {
            return .failure(.unreadable(path: path, reason: "\(error)"))
        }
        return attachment(bytes, path: path, textLimit: textLimit)
    }

    /// The attachment that `bytes`, read from `path`, make.
    public static func attachment(_ bytes: [UInt8], path: String, textLimit: Int) -> Result<ChatAttachment, Refusal> {
        let name = displayName(of: path)
        if let format = RasterImageHeader.format(of: bytes) {
            if format == .heif { return photo(bytes, path: path, name: name) }
            guard bytes.count <= ChatAttachment.maximumImageBytes else {
                return .failure(
                    .tooLarge(path: path, bytes: bytes.count, limit: ChatAttachment.maximumImageBytes, what: "an image")
                )
            }
            return .success(ChatAttachment(name: name, mimeType: format.mimeType, kind: .image, bytes: bytes))
        }
        guard String(validating: bytes, as: UTF8.self) != nil, !bytes.contains(0) else {
            return .failure(.notTextOrImage(path: path))
        }
        guard bytes.count <= textLimit else {
            return .failure(.tooLarge(path: path, bytes: bytes.count, limit: textLimit, what: "a text file"))
        }
        return .success(ChatAttachment(name: name, mimeType: "text/plain; charset=utf-8", kind: .text, bytes: bytes))
    }

    /// A HEIC/HEIF photo as a bounded JPEG named `.jpg`.
    private static func photo(_ bytes: [UInt8], path: String, name: String) -> Result<ChatAttachment, Refusal> {
        do {
            let output = try HEIFPhotoConversion.jpeg(
                fromHEIF: bytes, maxBytes: ChatAttachment.maximumImageBytes,
                maxPixels: HEIFPhotoConversion.sourceMaxPixels, maxAxisPixels: HEIFPhotoConversion.sourceMaxAxisPixels)
            let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
            return .success(
                ChatAttachment(
                    name: (stem.isEmpty ? "photo" : stem) + ".jpg", mimeType: "image/jpeg", kind: .image,
                    bytes: output.bytes))
        } catch {
            return .failure(.unconvertible(path: path, reason: "\(error)"))
        }
    }

    /// The file's name without its folder, one line, at most ``ChatAttachment/maximumNameBytes``.
    static func displayName(of path: String) -> String {
        let last = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        var name = TerminalText.oneLine(last)
        while name.utf8.count > ChatAttachment.maximumNameBytes { name.removeLast() }
        return name.isEmpty ? "file" : name
    }
}
