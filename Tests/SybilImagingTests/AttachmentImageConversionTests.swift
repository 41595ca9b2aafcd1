import SybilImaging
import Testing

/// PNG attachments (SPEC §4.6), with real PNGs generated here.
@Suite("PNG attachments re-encoded as JPEG", .timeLimit(.minutes(2)))
struct AttachmentImageConversionTests {
    /// A PNG of `width` × `height` with a gradient, opaque or half transparent.
    private func png(width: Int, height: Int, alpha: Bool) throws -> [UInt8] {
        let channels = alpha ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * channels
                pixels[offset] = UInt8(x % 256)
                pixels[offset + 1] = UInt8(y % 256)
                pixels[offset + 2] = 128
                if alpha { pixels[offset + 3] = x < width / 2 ? 0 : 255 }
            }
        }
        return try PNGCodec.encode(pixels: pixels, width: width, height: height, alpha: alpha)
    }

    /// Width and height from a JPEG's start-of-frame marker.
    private func jpegDimensions(_ jpeg: [UInt8]) -> (width: Int, height: Int)? {
        guard jpeg.starts(with: [0xFF, 0xD8]), jpeg.suffix(2) == [0xFF, 0xD9] else { return nil }
        var index = 2
        while index + 9 < jpeg.count {
            guard jpeg[index] == 0xFF else { return nil }
            let marker = jpeg[index + 1]
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                let height = Int(jpeg[index + 5]) << 8 | Int(jpeg[index + 6])
                let width = Int(jpeg[index + 7]) << 8 | Int(jpeg[index + 8])
                return (width, height)
            }
            index += 2 + length
        }
        return nil
    }

    @Test func opaquePNGBecomesAJPEGOfTheSameSize() throws {
        let input = try png(width: 64, height: 48, alpha: false)
        #expect(AttachmentImageConversion.decide(header: input) == .convert(width: 64, height: 48))
        let jpeg = try #require(try AttachmentImageConversion.convertedJPEG(fromPNG: input))
        let size = try #require(jpegDimensions(jpeg))
        #expect(size.width == 64 && size.height == 48)
    }

    @Test func transparentPNGIsCompositedOntoWhite() throws {
        let input = try png(width: 40, height: 30, alpha: true)
        let decoded = try PNGCodec.decodeRGBOnWhite(input)
        #expect(Array(decoded.pixels[0..<3]) == [255, 255, 255], "a fully transparent pixel becomes white")
        let opaque = (0 * 40 + 30) * 3
        #expect(Array(decoded.pixels[opaque..<(opaque + 3)]) == [30, 0, 128], "an opaque pixel keeps its colour")
        let jpeg = try #require(try AttachmentImageConversion.convertedJPEG(fromPNG: input))
        #expect(jpegDimensions(jpeg)?.width == 40)
    }

    @Test func theBoundIs64MiBOfDecodedRGBA() {
        func header(_ width: UInt32, _ height: UInt32) -> [UInt8] {
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
                + withUnsafeBytes(of: width.bigEndian, Array.init) + withUnsafeBytes(of: height.bigEndian, Array.init)
        }
        #expect(AttachmentImageConversion.decide(header: header(4096, 4095)) == .convert(width: 4096, height: 4095))
        #expect(AttachmentImageConversion.decide(header: header(4096, 4096)) == .convert(width: 4096, height: 4096))
        #expect(
            AttachmentImageConversion.decide(header: header(4096, 4097))
                == .tooLarge(width: 4096, height: 4097, decodedBytes: 4096 * 4097 * 4))
        #expect(
            AttachmentImageConversion.decide(header: Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 20)) == .notPNG
        )
        #expect(AttachmentImageConversion.decide(header: header(0, 10)) == .notPNG, "zero width is not a PNG")
    }

    @Test func aRealPNGJustOverTheBoundIsSentAsItIs() throws {
        // 4096 × 4097 pixels: 64 MiB + 16 KiB decoded. Opaque and flat, so it encodes fast.
        let width = 4096
        let height = 4097
        let input = try PNGCodec.encode(
            pixels: [UInt8](repeating: 200, count: width * height * 3), width: width, height: height, alpha: false)
        #expect(
            AttachmentImageConversion.decide(header: input)
                == .tooLarge(width: width, height: height, decodedBytes: width * height * 4))
        #expect(try AttachmentImageConversion.convertedJPEG(fromPNG: input) == nil)
    }

    @Test func aBrokenPNGIsAClearError() throws {
        var input = try png(width: 8, height: 8, alpha: false)
        input.removeLast(input.count - 40)
        let error = try #require(throws: ImageConversionError.self) {
            try AttachmentImageConversion.convertedJPEG(fromPNG: input)
        }
        #expect(error.message == "cannot read the PNG header: read beyond end of data")
    }

    @Test func qualityIs088() {
        #expect(AttachmentImageConversion.jpegQuality == 0.88)
        #expect(AttachmentImageConversion.maximumDecodedBytes == 67_108_864)
    }
}
