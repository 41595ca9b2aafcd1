#if canImport(CHEIF)
    import CHEIF
    #if canImport(Glibc)
        import Glibc
    #endif

    /// HEIC/HEIF decoding (and encoding, where the library has an HEVC encoder) through libheif,
    /// loaded on first use (``HEIFLibrary``): when it cannot be loaded every call throws an error
    /// naming the library, and ``canEncode`` is false.
    ///
    /// The size is read from the container before any pixel is decoded, so a caller can refuse
    /// an image that is too large first; ``decodeRGBOnWhite(_:maxPixels:)`` refuses one again
    /// itself. Rotation and mirroring stored in the file are applied by the decoder, and the
    /// size reported is the displayed one.
    public enum HEIFCodec {
        /// The displayed width and height of the primary image, without decoding pixels.
        public static func dimensions(_ bytes: [UInt8]) throws(ImageConversionError) -> (width: Int, height: Int) {
            try dimensions(bytes, library: HEIFLibrary.shared)
        }

        /// ``dimensions(_:)`` with `library` instead of the process's libheif.
        static func dimensions(
            _ bytes: [UInt8], library: Result<HEIFLibrary, ImageConversionError>
        ) throws(ImageConversionError) -> (width: Int, height: Int) {
            let heif = try library.get().api
            return try withPrimaryImage(bytes, heif) { handle throws(ImageConversionError) in
                (Int(heif.heif_image_handle_get_width(handle)), Int(heif.heif_image_handle_get_height(handle)))
            }
        }

        /// Decodes the primary image to 8-bit RGB, compositing any transparency onto white.
        /// Refuses (before decoding) an image of more than `maxPixels` pixels.
        public static func decodeRGBOnWhite(
            _ bytes: [UInt8], maxPixels: Int64
        ) throws(ImageConversionError) -> RGBImage {
            let heif = try HEIFLibrary.shared.get().api
            return try withPrimaryImage(bytes, heif) { handle throws(ImageConversionError) in
                let width = Int(heif.heif_image_handle_get_width(handle))
                let height = Int(heif.heif_image_handle_get_height(handle))
                guard width > 0, height > 0 else { throw ImageConversionError("the HEIF image has no size") }
                guard Int64(width) * Int64(height) <= maxPixels else {
                    throw ImageConversionError(
                        "the HEIF image has \(width) × \(height) pixels, more than the \(maxPixels) allowed")
                }
                let alpha = heif.heif_image_handle_has_alpha_channel(handle) != 0
                var decoded: OpaquePointer?
                try check(
                    heif.heif_decode_image(
                        handle, &decoded, heif_colorspace_RGB,
                        alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, nil),
                    "decode the HEIF image")
                guard let decoded else { throw ImageConversionError("cannot decode the HEIF image: no image") }
                defer { heif.heif_image_release(decoded) }
                return try pixels(of: decoded, alpha: alpha, heif)
            }
        }

        /// Whether this libheif can encode HEIC (it has an HEVC encoder).
        public static var canEncode: Bool {
            guard case .success(let library) = HEIFLibrary.shared else { return false }
            return library.api.heif_have_encoder_for_format(heif_compression_HEVC) != 0
        }

        /// Encodes `image` as a HEIC file at `quality` (0…1). Apps only decode HEIC; tests use this
        /// to make HEIC images when ``canEncode`` is true.
        public static func encode(_ image: RGBImage, quality: Double) throws(ImageConversionError) -> [UInt8] {
            precondition(quality > 0 && quality <= 1, "HEIC quality is in 0…1")
            let heif = try HEIFLibrary.shared.get().api
            guard canEncode else { throw ImageConversionError("this libheif has no HEVC encoder") }
            var created: OpaquePointer?
            try check(
                heif.heif_image_create(
                    Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB,
                    &created), "create a HEIF image")
            guard let created else { throw ImageConversionError("cannot create a HEIF image") }
            defer { heif.heif_image_release(created) }
            try check(
                heif.heif_image_add_plane(
                    created, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8),
                "add the pixel plane")
            var stride: Int32 = 0
            guard let plane = heif.heif_image_get_plane(created, heif_channel_interleaved, &stride) else {
                throw ImageConversionError("cannot write the HEIF pixel plane")
            }
            let rowBytes = image.width * 3
            image.pixels.withUnsafeBufferPointer { source in
                for row in 0..<image.height {
                    (plane + row * Int(stride)).update(from: source.baseAddress! + row * rowBytes, count: rowBytes)
                }
            }
            let context = HEIFContext(heif)
            var encoder: OpaquePointer?
            try check(
                heif.heif_context_get_encoder_for_format(context.pointer, heif_compression_HEVC, &encoder),
                "find an HEVC encoder")
            guard let encoder else { throw ImageConversionError("cannot find an HEVC encoder") }
            defer { heif.heif_encoder_release(encoder) }
            try check(
                heif.heif_encoder_set_lossy_quality(encoder, Int32((quality * 100).rounded())), "set the quality")
            try check(heif.heif_context_encode_image(context.pointer, created, encoder, nil, nil), "encode the image")
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            let written = withUnsafePointer(to: heif) { table in
                sybil_heif_write_to_memory(table, context.pointer, &output, &size)
            }
            try check(written, "write the HEIF file")
            defer { free(output) }
            guard let output else { throw ImageConversionError("cannot write the HEIF file: no bytes") }
            return Array(UnsafeBufferPointer(start: output, count: size))
        }

        /// Opens `bytes` and passes the primary image's handle to `body`; everything is released
        /// before this returns (libheif reads `bytes` in place, so they must outlive the context).
        private static func withPrimaryImage<T>(
            _ bytes: [UInt8], _ heif: sybil_heif_api, _ body: (OpaquePointer) throws(ImageConversionError) -> T
        ) throws(ImageConversionError) -> T {
            let result: Result<T, ImageConversionError> = bytes.withUnsafeBytes { buffer in
                do throws(ImageConversionError) {
                    let context = HEIFContext(heif)
                    try check(
                        heif.heif_context_read_from_memory_without_copy(
                            context.pointer, buffer.baseAddress, buffer.count, nil), "read the HEIF file")
                    var handle: OpaquePointer?
                    try check(
                        heif.heif_context_get_primary_image_handle(context.pointer, &handle), "find the primary image")
                    guard let handle else { throw ImageConversionError("the HEIF file has no primary image") }
                    defer { heif.heif_image_handle_release(handle) }
                    return .success(try body(handle))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }

        /// Copies an interleaved RGB(A) image out of libheif, compositing alpha onto white.
        private static func pixels(
            of image: OpaquePointer, alpha: Bool, _ heif: sybil_heif_api
        ) throws(ImageConversionError) -> RGBImage {
            let width = Int(heif.heif_image_get_width(image, heif_channel_interleaved))
            let height = Int(heif.heif_image_get_height(image, heif_channel_interleaved))
            guard width > 0, height > 0 else { throw ImageConversionError("the decoded HEIF image has no size") }
            guard heif.heif_image_get_bits_per_pixel_range(image, heif_channel_interleaved) == 8 else {
                throw ImageConversionError("the decoded HEIF image is not 8 bits per channel")
            }
            var stride: Int32 = 0
            guard let plane = heif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
                throw ImageConversionError("the decoded HEIF image has no pixel plane")
            }
            let channels = alpha ? 4 : 3
            guard Int(stride) >= width * channels else {
                throw ImageConversionError("the decoded HEIF image's rows are shorter than its width")
            }
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            rgb.withUnsafeMutableBufferPointer { output in
                for y in 0..<height {
                    let row = plane + y * Int(stride)
                    for x in 0..<width {
                        let source = row + x * channels
                        let target = (y * width + x) * 3
                        if alpha {
                            let opacity = Int(source[3])
                            for channel in 0..<3 {
                                let value = Int(source[channel]) * opacity + 255 * (255 - opacity)
                                output[target + channel] = UInt8((value + 127) / 255)
                            }
                        } else {
                            output[target] = source[0]
                            output[target + 1] = source[1]
                            output[target + 2] = source[2]
                        }
                    }
                }
            }
            return RGBImage(width: width, height: height, pixels: rgb)
        }

        private static func check(_ error: heif_error, _ action: String) throws(ImageConversionError) {
            guard error.code != heif_error_Ok else { return }
            let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
            throw ImageConversionError("cannot \(action): \(message)")
        }
    }

    /// Owns one `heif_context` and frees it on release.
    private final class HEIFContext {
        let pointer: OpaquePointer
        private let heif: sybil_heif_api

        init(_ heif: sybil_heif_api) {
            // libheif keeps its own security limits (image size, boxes); callers check theirs first.
            guard let context = heif.heif_context_alloc() else { fatalError("libheif could not allocate a context") }
            pointer = context
            self.heif = heif
        }

        deinit { heif.heif_context_free(pointer) }
    }
#endif
