/// The attachment rule for PNGs (SPEC §4.6): a PNG is re-encoded as a JPEG of quality 0.88
/// when its decoded image needs at most 64 MiB, otherwise sent as it is. Transparent pixels
/// are composited onto white (JPEG has no alpha).
public enum AttachmentImageConversion {
    /// JPEG quality, 0…1.
    public static let jpegQuality = 0.88
    /// The largest decoded image (8-bit RGBA: 4 bytes per pixel) that is re-encoded.
    public static let maximumDecodedBytes = 64 << 20

    /// What to do with an attachment.
    public enum Decision: Sendable, Hashable {
        /// Not a PNG: send the bytes as they are.
        case notPNG
        /// A PNG whose decoded image fits: re-encode it.
        case convert(width: Int, height: Int)
        /// A PNG too large to decode within the bound: send it as it is.
        case tooLarge(width: Int, height: Int, decodedBytes: Int)
    }

    /// Decides from the PNG header alone (no decoding): the signature and the IHDR chunk.
    public static func decide(header bytes: some Collection<UInt8>) -> Decision {
        guard let (width, height) = PNGHeader.dimensions(Array(bytes.prefix(PNGHeader.length))) else { return .notPNG }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let decoded = overflow ? Int.max : pixels.multipliedReportingOverflow(by: 4).partialValue
        if overflow || decoded > maximumDecodedBytes {
            return .tooLarge(width: width, height: height, decodedBytes: decoded)
        }
        return .convert(width: width, height: height)
    }

    /// Re-encodes `png` as JPEG when the rule says so; `nil` when it does not apply (not a
    /// PNG, or too large), in which case the original bytes are sent.
    public static func convertedJPEG(fromPNG png: [UInt8]) throws(ImageConversionError) -> [UInt8]? {
        guard case .convert = decide(header: png) else { return nil }
        let image = try PNGCodec.decodeRGBOnWhite(png)
        return try JPEGCodec.encode(image, quality: jpegQuality)
    }
}

/// Reads a PNG's dimensions from its first 24 bytes. The conversion rule above uses it to decide
/// before decoding.
enum PNGHeader {
    /// Bytes needed: the 8-byte signature, the IHDR length and type, width and height.
    static let length = 24
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Width and height, or `nil` when the bytes do not start a PNG.
    static func dimensions(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= length, Array(bytes[0..<8]) == signature,
            Array(bytes[12..<16]) == Array("IHDR".utf8)
        else { return nil }
        func bigEndian(_ offset: Int) -> Int {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
        }
        let width = bigEndian(16)
        let height = bigEndian(20)
        guard width > 0, height > 0 else { return nil }
        return (width, height)
    }
}

/// Decoded pixels: 8-bit RGB, rows packed.
public struct RGBImage: Sendable, Hashable {
    /// Pixels across.
    public var width: Int
    /// Rows.
    public var height: Int
    /// `width * height * 3` bytes.
    public var pixels: [UInt8]

    /// Creates an image; `pixels` must hold `width * height * 3` bytes.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB pixels must be width × height × 3 bytes")
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}

/// An image could not be decoded or encoded; the message is the codec's.
public struct ImageConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed and why.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
