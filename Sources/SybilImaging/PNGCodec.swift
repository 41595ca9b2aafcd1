#if canImport(CPNG)
    import CPNG

    /// PNG decoding and encoding through libpng's simplified API.
    public enum PNGCodec {
        /// Decodes a PNG to RGB, compositing any transparency onto white.
        public static func decodeRGBOnWhite(_ png: [UInt8]) throws(ImageConversionError) -> RGBImage {
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            let began = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
            guard began != 0 else { throw failure(&image, "read the PNG header") }
            defer { png_image_free(&image) }
            image.format = sybil_png_format_rgb()
            let width = Int(image.width)
            let height = Int(image.height)
            var pixels = [UInt8](repeating: 0, count: sybil_png_image_size(&image))
            var white = png_color(red: 255, green: 255, blue: 255)
            let finished = pixels.withUnsafeMutableBytes {
                png_image_finish_read(&image, &white, $0.baseAddress, 0, nil)
            }
            guard finished != 0 else { throw failure(&image, "decode the PNG") }
            return RGBImage(width: width, height: height, pixels: pixels)
        }

        /// Encodes 8-bit pixels as a PNG: RGBA when `alpha`, else RGB (`pixels` has 4 or 3
        /// bytes per pixel, rows packed).
        public static func encode(
            pixels: [UInt8], width: Int, height: Int, alpha: Bool
        ) throws(ImageConversionError) -> [UInt8] {
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            image.width = png_uint_32(width)
            image.height = png_uint_32(height)
            image.format = alpha ? sybil_png_format_rgba() : sybil_png_format_rgb()
            precondition(pixels.count == width * height * (alpha ? 4 : 3), "pixel buffer does not match the size")
            var size: png_alloc_size_t = 0
            let measured = pixels.withUnsafeBytes {
                png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, 0, nil)
            }
            guard measured != 0 else { throw failure(&image, "size the PNG") }
            var output = [UInt8](repeating: 0, count: Int(size))
            let written = output.withUnsafeMutableBytes { out in
                pixels.withUnsafeBytes {
                    png_image_write_to_memory(&image, out.baseAddress, &size, 0, $0.baseAddress, 0, nil)
                }
            }
            guard written != 0 else { throw failure(&image, "encode the PNG") }
            return Array(output.prefix(Int(size)))
        }

        private static func failure(_ image: inout png_image, _ action: String) -> ImageConversionError {
            let message = withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            png_image_free(&image)
            return ImageConversionError("cannot \(action): \(message)")
        }
    }
#endif
