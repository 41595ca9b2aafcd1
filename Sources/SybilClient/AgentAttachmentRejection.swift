/// Why a selected file or photo cannot be attached, decided on this device before anything is
/// uploaded (SPEC §6.1 limits, checked against the advertised limits clamped to v1).
public enum AgentAttachmentRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// More files than a message may carry.
    case tooManyFiles(fileName: String, limit: Int)
    /// One file is larger than its kind allows (`isImage`: the image limit applied).
    case tooLarge(fileName: String, size: Int64, limit: Int64, isImage: Bool)
    /// The draft's files together would exceed the per-message total.
    case totalTooLarge(fileName: String, total: Int64, limit: Int64)
    /// An image side is longer than allowed.
    case tooManyPixelsPerAxis(fileName: String, width: Int, height: Int, limit: Int64)
    /// An image has more pixels than allowed.
    case tooManyPixels(fileName: String, pixels: Int64, limit: Int64)
    /// The bytes are not the image they claim to be (or a photo of no supported format).
    case notAnImage(fileName: String, expected: String)
    /// A HEIC/HEIF photo could not be converted to JPEG.
    case conversionFailed(fileName: String, reason: String)
    /// The file could not be read.
    case unreadable(fileName: String, reason: String)

    /// The file concerned.
    public var fileName: String {
        switch self {
        case .tooManyFiles(let name, _), .tooLarge(let name, _, _, _), .totalTooLarge(let name, _, _),
            .tooManyPixelsPerAxis(let name, _, _, _), .tooManyPixels(let name, _, _), .notAnImage(let name, _),
            .conversionFailed(let name, _), .unreadable(let name, _):
            name
        }
    }

    /// One sentence for a person: what is wrong, quoting the value, and what to do.
    public var description: String {
        switch self {
        case .tooManyFiles(let name, let limit):
            return "\(name) was not added: a message can carry at most \(limit) files; send these first."
        case .tooLarge(let name, let size, let limit, let isImage):
            return
                "\(name) is \(Self.bytes(size)); \(isImage ? "images" : "files") may be at most \(Self.bytes(limit)). Choose a smaller one."
        case .totalTooLarge(let name, let total, let limit):
            return
                "\(name) would bring this message to \(Self.bytes(total)), over its \(Self.bytes(limit)); remove a file or send it separately."
        case .tooManyPixelsPerAxis(let name, let width, let height, let limit):
            return "\(name) is \(width) × \(height) px; each side may be at most \(limit) px. Use a smaller image."
        case .tooManyPixels(let name, let pixels, let limit):
            return "\(name) has \(pixels) pixels; at most \(limit) are allowed. Use a smaller image."
        case .notAnImage(let name, let expected):
            return "\(name) is not a valid \(expected) image; attach it as a file or choose another."
        case .conversionFailed(let name, let reason):
            return "\(name) could not be converted to JPEG (\(reason)); attach it as a file instead."
        case .unreadable(let name, let reason):
            return "\(name) could not be read (\(reason)); select it again."
        }
    }

    /// `8 MiB` for whole mebibytes, else one decimal with the exact count (`8.0 MiB (8388609 bytes)`),
    /// so a value one byte over a limit never reads the same as the limit.
    static func bytes(_ count: Int64) -> String {
        for (unit, shift) in [("MiB", Int64(20)), ("KiB", Int64(10))] where count >= 1 << shift {
            if count % (1 << shift) == 0 { return "\(count >> shift) \(unit)" }
            let tenths = (count * 10 + (1 << (shift - 1))) >> shift
            return "\(tenths / 10).\(tenths % 10) \(unit) (\(count) bytes)"
        }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }
}
