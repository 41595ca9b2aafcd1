/// A raster image's format and dimensions read from its header alone (no decoding): PNG,
/// JPEG, GIF and WebP, the formats the Agent room accepts as images, and HEIC/HEIF
/// recognised by its `ftyp` brand (its dimensions need a decoder).
///
/// Every length is read with bounds checks; a truncated or hostile header gives `nil`.
public struct RasterImageHeader: Sendable, Hashable {
    /// The container format.
    public enum Format: String, Sendable, Hashable {
        case png, jpeg, gif, webp, heif

        /// The MIME type of the format.
        public var mimeType: String {
            switch self {
            case .png: "image/png"
            case .jpeg: "image/jpeg"
            case .gif: "image/gif"
            case .webp: "image/webp"
            case .heif: "image/heic"
            }
        }
    }

    /// The format.
    public var format: Format
    /// Width in pixels (0 for HEIF, whose size the header does not give).
    public var width: Int
    /// Height in pixels (0 for HEIF).
    public var height: Int

    /// Creates a header.
    public init(format: Format, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }

    /// Width × height, saturating.
    public var pixels: Int64 {
        let (product, overflow) = Int64(width).multipliedReportingOverflow(by: Int64(height))
        return overflow ? .max : product
    }

    /// The format the bytes start with, or `nil` when they are none of the five.
    public static func format(of bytes: some Collection<UInt8>) -> Format? {
        let head = Array(bytes.prefix(32))
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "heif"].contains(brand) {
                return .heif
            }
        }
        return nil
    }

    /// Reads the format and dimensions; `nil` when the bytes are not a well-formed header of
    /// a known format or a dimension is zero.
    public static func read(_ bytes: [UInt8]) -> RasterImageHeader? {
        guard let format = format(of: bytes) else { return nil }
        let size: (Int, Int)?
        switch format {
        case .png: size = png(bytes)
        case .jpeg: size = jpeg(bytes)
        case .gif: size = bytes.count >= 10 ? (littleEndian(bytes, 6, 2), littleEndian(bytes, 8, 2)) : nil
        case .webp: size = webp(bytes)
        case .heif: return RasterImageHeader(format: .heif, width: 0, height: 0)
        }
        guard let (width, height) = size, width > 0, height > 0 else { return nil }
        return RasterImageHeader(format: format, width: width, height: height)
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<(offset + count)].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    private static func png(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 24, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        // PNG sizes are at most 2^31 − 1 (the PNG specification); anything larger is not a PNG.
        let width = bigEndian(bytes, 16, 4)
        let height = bigEndian(bytes, 20, 4)
        guard width <= Int(Int32.max), height <= Int(Int32.max) else { return nil }
        return (width, height)
    }

    /// Walks the marker segments to the first start-of-frame (SOF0…SOF15 but DHT, JPG, DAC).
    private static func jpeg(_ bytes: [UInt8]) -> (Int, Int)? {
        var offset = 2
        while offset + 4 <= bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF {
                offset += 1
                continue
            }
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 {
                offset += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }
            let length = bigEndian(bytes, offset + 2, 2)
            guard length >= 2 else { return nil }
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard offset + 9 <= bytes.count, length >= 7 else { return nil }
                return (bigEndian(bytes, offset + 7, 2), bigEndian(bytes, offset + 5, 2))
            }
            offset += 2 + length
        }
        return nil
    }

    private static func webp(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.count >= 30 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8 ":
            guard bytes[23] == 0x9D, bytes[24] == 0x01, bytes[25] == 0x2A else { return nil }
            return (littleEndian(bytes, 26, 2) & 0x3FFF, littleEndian(bytes, 28, 2) & 0x3FFF)
        case "VP8L":
            guard bytes[20] == 0x2F else { return nil }
            let bits = littleEndian(bytes, 21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            return (littleEndian(bytes, 24, 3) + 1, littleEndian(bytes, 27, 3) + 1)
        default:
            return nil
        }
    }
}
