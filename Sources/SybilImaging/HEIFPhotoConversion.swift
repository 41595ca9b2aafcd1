/// The Agent room's photo rule (SPEC §6.1): a HEIC/HEIF photo becomes a bounded JPEG — longest
/// side at most ``longestSide`` (and the advertised axis and pixel limits), encoded at the
/// first of ``qualities`` whose result fits the image byte limit, shrinking further when none
/// does. Transparency is composited onto white.
///
/// The source itself is decoded only when it is within the v1 ceilings (16,384 px per axis,
/// 50 million pixels), whatever the server advertises: that bounds the memory a hostile file
/// can take.
public enum HEIFPhotoConversion {
    /// The longest side of the converted photo.
    public static let longestSide = 4096
    /// The JPEG qualities tried in order.
    public static let qualities: [Double] = [0.88, 0.75, 0.6]
    /// Each further attempt shrinks both sides to this fraction.
    public static let shrinkFactor = 0.75
    /// Below this longest side the conversion gives up instead of shrinking further.
    public static let smallestSide = 64
    /// The largest source decoded, per axis (the v1 ceiling).
    public static let sourceMaxAxisPixels = 16_384
    /// The largest source decoded, in pixels (the v1 ceiling).
    public static let sourceMaxPixels: Int64 = 50_000_000

    /// A converted photo.
    public struct Output: Sendable, Hashable {
        /// The JPEG file.
        public var bytes: [UInt8]
        /// Its width.
        public var width: Int
        /// Its height.
        public var height: Int
        /// The quality it was encoded at.
        public var quality: Double
    }

    /// Converts `heif` to a JPEG of at most `maxBytes` bytes, `maxAxisPixels` per side (and
    /// ``longestSide``) and `maxPixels` pixels.
    public static func jpeg(
        fromHEIF heif: [UInt8], maxBytes: Int, maxPixels: Int64, maxAxisPixels: Int
    ) throws(ImageConversionError) -> Output {
        precondition(maxBytes > 0 && maxPixels > 0 && maxAxisPixels > 0, "limits are positive")
        let (sourceWidth, sourceHeight) = try HEIFCodec.dimensions(heif)
        guard sourceWidth > 0, sourceHeight > 0 else { throw ImageConversionError("the HEIF image has no size") }
        guard sourceWidth <= sourceMaxAxisPixels, sourceHeight <= sourceMaxAxisPixels else {
            throw ImageConversionError(
                "the photo is \(sourceWidth) × \(sourceHeight) px; at most \(sourceMaxAxisPixels) px per side can be converted"
            )
        }
        let image = try HEIFCodec.decodeRGBOnWhite(heif, maxPixels: sourceMaxPixels)
        var side = min(longestSide, maxAxisPixels)
        while side >= smallestSide {
            let size = RGBImage.fittingSize(
                width: image.width, height: image.height, longestSide: side, maxPixels: maxPixels)
            let scaled = image.downscaled(toWidth: size.width, height: size.height)
            for quality in qualities {
                let bytes = try JPEGCodec.encode(scaled, quality: quality)
                if bytes.count <= maxBytes {
                    return Output(bytes: bytes, width: size.width, height: size.height, quality: quality)
                }
            }
            side = Int(Double(max(size.width, size.height)) * shrinkFactor)
        }
        throw ImageConversionError("the photo does not fit in \(maxBytes) bytes as a JPEG, even at \(smallestSide) px")
    }
}
