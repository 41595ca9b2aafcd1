#if !canImport(CHEIF) && canImport(ImageIO)
    import CoreGraphics
    import Foundation
    import ImageIO

    /// HEIC/HEIF decoding and encoding through ImageIO (Apple platforms), the same functions as
    /// the libheif codec on Linux. The orientation stored in the file is applied, and the size
    /// reported is the displayed one.
    public enum HEIFCodec {
        /// The displayed width and height of the primary image, without decoding pixels.
        public static func dimensions(_ bytes: [UInt8]) throws(ImageConversionError) -> (width: Int, height: Int) {
            let source = try imageSource(bytes)
            guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
                let width = properties[kCGImagePropertyPixelWidth] as? Int,
                let height = properties[kCGImagePropertyPixelHeight] as? Int
            else { throw ImageConversionError("cannot read the HEIF image's size") }
            let orientation = properties[kCGImagePropertyOrientation] as? UInt32 ?? 1
            return (5...8).contains(orientation) ? (height, width) : (width, height)
        }

        /// Decodes the primary image to 8-bit RGB, compositing any transparency onto white.
        /// Refuses (before decoding) an image of more than `maxPixels` pixels.
        public static func decodeRGBOnWhite(
            _ bytes: [UInt8], maxPixels: Int64
        ) throws(ImageConversionError) -> RGBImage {
            let (width, height) = try dimensions(bytes)
            guard Int64(width) * Int64(height) <= maxPixels else {
                throw ImageConversionError(
                    "the HEIF image has \(width) × \(height) pixels, more than the \(maxPixels) allowed")
            }
            let source = try imageSource(bytes)
            let options: [CFString: Any] = [
                kCGImageSourceCreateThumbnailFromImageAlways: true,
                kCGImageSourceCreateThumbnailWithTransform: true,
                kCGImageSourceThumbnailMaxPixelSize: max(width, height),
                kCGImageSourceShouldCacheImmediately: true,
            ]
            guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, options as CFDictionary) else {
                throw ImageConversionError("cannot decode the HEIF image: ImageIO could not read it")
            }
            return try ImageIOSupport.rgbOnWhite(image)
        }

        /// Whether ImageIO can write HEIC here.
        public static var canEncode: Bool {
            let types = CGImageDestinationCopyTypeIdentifiers() as? [String] ?? []
            return types.contains("public.heic")
        }

        /// Encodes `image` as a HEIC file at `quality` (0…1). Apps only decode HEIC; tests use this
        /// to make HEIC images when ``canEncode`` is true.
        public static func encode(_ image: RGBImage, quality: Double) throws(ImageConversionError) -> [UInt8] {
            let cgImage = try ImageIOSupport.image(
                image.pixels, width: image.width, height: image.height, channels: 3, alpha: .none)
            return try ImageIOSupport.write(
                cgImage, type: "public.heic", properties: [kCGImageDestinationLossyCompressionQuality: quality])
        }

        private static func imageSource(_ bytes: [UInt8]) throws(ImageConversionError) -> CGImageSource {
            guard let source = CGImageSourceCreateWithData(Data(bytes) as CFData, nil),
                CGImageSourceGetCount(source) > 0
            else { throw ImageConversionError("cannot read the HEIF file: ImageIO does not recognise it") }
            return source
        }
    }
#endif
