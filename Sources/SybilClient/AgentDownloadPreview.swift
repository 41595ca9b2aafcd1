import SybilImaging
import SybilWire

/// What an attachment card shows (SPEC §6.1): a bounded thumbnail for a raster image, plain
/// text for text (HTML and SVG included, never rendered), or nothing but the card.
///
/// Thumbnails: PNG, JPEG and HEIC/HEIF are decoded (at most ``maxDecodedPixels`` pixels,
/// checked from the header first) and downscaled to at most ``thumbnailSide`` px; GIF and WebP,
/// and images over the decoding bound, get the bounded dimensions only (``Thumbnail/pixels``
/// `nil`), so a frame of the right shape can be drawn.
public enum AgentDownloadPreview: Sendable, Hashable {
    /// A raster image.
    case image(Thumbnail)
    /// Text, at most ``maxTextBytes`` of it; `truncated` when the file is longer.
    case text(String, truncated: Bool)
    /// No preview; the card offers Save/Share. The reason is for a person.
    case unavailable(String)

    /// A bounded thumbnail.
    public struct Thumbnail: Sendable, Hashable {
        /// The image's format.
        public var format: RasterImageHeader.Format
        /// The original's width.
        public var originalWidth: Int
        /// The original's height.
        public var originalHeight: Int
        /// The thumbnail's width (at most ``AgentDownloadPreview/thumbnailSide``).
        public var width: Int
        /// The thumbnail's height.
        public var height: Int
        /// RGB pixels, `width × height × 3` bytes; `nil` when the image was not decoded.
        public var pixels: [UInt8]?

        /// Creates a thumbnail.
        public init(
            format: RasterImageHeader.Format, originalWidth: Int, originalHeight: Int, width: Int, height: Int,
            pixels: [UInt8]?
        ) {
            self.format = format
            self.originalWidth = originalWidth
            self.originalHeight = originalHeight
            self.width = width
            self.height = height
            self.pixels = pixels
        }
    }

    /// The longest side of a thumbnail.
    public static let thumbnailSide = 512
    /// The largest image decoded for a thumbnail (64 MiB as RGBA).
    public static let maxDecodedPixels: Int64 = 16 << 20
    /// The most bytes of a text shown.
    public static let maxTextBytes = 64 << 10

    /// The preview of `bytes`, an original of type `mimeType` named `fileName`. Pure; CPU-heavy
    /// for large images, so run it off the main actor.
    public static func make(bytes: [UInt8], mimeType: String, fileName: String) -> AgentDownloadPreview {
        if isText(mimeType: mimeType, fileName: fileName) { return text(bytes) }
        guard let header = RasterImageHeader.read(bytes) else {
            return .unavailable("No preview for \(fileName); save or share it to open it.")
        }
        do {
            return .image(try thumbnail(bytes, header: header))
        } catch {
            return .unavailable(
                "\(fileName) could not be decoded for a preview (\(error)); save or share it to open it.")
        }
    }

    /// Whether a file is shown as text: `text/*`, JSON, XML, YAML, SVG, scripts, or a text
    /// extension on a generic type.
    public static func isText(mimeType: String, fileName: String) -> Bool {
        let type = mimeType.lowercased().split(separator: ";").first.map(String.init) ?? ""
        if type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml") { return true }
        let textTypes: Set<String> = [
            "application/json", "application/xml", "application/yaml", "application/x-yaml", "application/javascript",
            "application/x-sh", "image/svg+xml", "application/xhtml+xml",
        ]
        if textTypes.contains(type) { return true }
        guard type == "application/octet-stream" || type.isEmpty else { return false }
        return AgentAttachmentPreparer.mimeType(forFileName: fileName).hasPrefix("text/")
    }

    /// The first ``maxTextBytes`` as text: cut at a character boundary, invalid UTF-8 replaced.
    static func text(_ bytes: [UInt8]) -> AgentDownloadPreview {
        guard bytes.count > maxTextBytes else { return .text(String(decoding: bytes, as: UTF8.self), truncated: false) }
        var end = maxTextBytes
        // Back up over continuation bytes to the start of the character the cut would split.
        var back = 0
        while back < 3, end - back > 0, bytes[end - back] & 0xC0 == 0x80 { back += 1 }
        if bytes[end - back] & 0xC0 == 0x80 { back = 0 }  // not UTF-8 here: cut where asked
        end -= back
        return .text(String(decoding: bytes[0..<end], as: UTF8.self), truncated: true)
    }

    private static func thumbnail(_ bytes: [UInt8], header: RasterImageHeader) throws -> Thumbnail {
        var width = header.width
        var height = header.height
        if header.format == .heif { (width, height) = try HEIFCodec.dimensions(bytes) }
        guard width > 0, height > 0 else { throw ImageConversionError("the image has no size") }
        let side = thumbnailSide
        let bounded = RGBImage.fittingSize(
            width: width, height: height, longestSide: side, maxPixels: Int64(side) * Int64(side))
        var thumbnail = Thumbnail(
            format: header.format, originalWidth: width, originalHeight: height, width: bounded.width,
            height: bounded.height, pixels: nil)
        // Sizes come from the peer's bytes: the product saturates instead of trapping.
        let pixels = Int64(width).multipliedReportingOverflow(by: Int64(height))
        guard !pixels.overflow, pixels.partialValue <= maxDecodedPixels else { return thumbnail }
        let decoded: RGBImage
        switch header.format {
        case .png: decoded = try PNGCodec.decodeRGBOnWhite(bytes)
        case .jpeg: decoded = try JPEGCodec.decode(bytes, maxPixels: maxDecodedPixels)
        case .heif: decoded = try HEIFCodec.decodeRGBOnWhite(bytes, maxPixels: maxDecodedPixels)
        case .gif, .webp: return thumbnail
        }
        let size = RGBImage.fittingSize(
            width: decoded.width, height: decoded.height, longestSide: side, maxPixels: Int64(side) * Int64(side))
        let small = decoded.downscaled(toWidth: size.width, height: size.height)
        thumbnail.width = small.width
        thumbnail.height = small.height
        thumbnail.pixels = small.pixels
        return thumbnail
    }
}
