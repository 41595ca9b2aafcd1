#if canImport(CJPEG)
    import CJPEG
    #if canImport(Glibc)
        import Glibc
    #endif

    /// JPEG encoding through libjpeg(-turbo).
    public enum JPEGCodec {
        /// Encodes RGB pixels at `quality` (0…1).
        public static func encode(_ image: RGBImage, quality: Double) throws(ImageConversionError) -> [UInt8] {
            precondition(quality > 0 && quality <= 1, "JPEG quality is in 0…1")
            var output: UnsafeMutablePointer<UInt8>?
            var size: UInt = 0
            var message = [CChar](repeating: 0, count: 256)
            let status = image.pixels.withUnsafeBufferPointer { pixels in
                sybil_jpeg_encode_rgb(
                    pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32((quality * 100).rounded()),
                    &output, &size, &message, message.count)
            }
            defer { free(output) }
            guard status == 0, let output else {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ImageConversionError("cannot encode the JPEG: \(text)")
            }
            return Array(UnsafeBufferPointer(start: output, count: Int(size)))
        }
    }
#endif

#if canImport(CJPEG)
    extension JPEGCodec {
        /// Decodes a JPEG to RGB. Refuses, before any pixel is decoded, an image of more than
        /// `maxPixels` pixels.
        public static func decode(_ jpeg: [UInt8], maxPixels: Int64) throws(ImageConversionError) -> RGBImage {
            var output: UnsafeMutablePointer<UInt8>?
            var width: UInt32 = 0
            var height: UInt32 = 0
            var message = [CChar](repeating: 0, count: 256)
            let status = jpeg.withUnsafeBufferPointer { bytes in
                sybil_jpeg_decode_rgb(
                    bytes.baseAddress, UInt(bytes.count), UInt64(max(0, maxPixels)), &output, &width, &height,
                    &message, message.count)
            }
            defer { free(output) }
            if status == 2 {
                throw ImageConversionError(
                    "the JPEG has \(width) × \(height) pixels, more than the \(maxPixels) allowed")
            }
            guard status == 0, let output, width > 0, height > 0 else {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ImageConversionError("cannot decode the JPEG: \(text)")
            }
            let count = Int(width) * Int(height) * 3
            return RGBImage(
                width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: output, count: count)))
        }
    }
#endif
