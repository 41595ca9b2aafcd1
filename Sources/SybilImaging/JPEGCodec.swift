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
