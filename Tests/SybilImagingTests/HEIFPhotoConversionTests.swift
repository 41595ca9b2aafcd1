import Foundation
import SybilImaging
import Testing

/// HEIC photos become bounded JPEGs (SPEC §6.1). HEIC inputs are made here with the platform's
/// own encoder (libheif's HEVC encoder on Linux) when it has one; a small HEIC checked in under
/// `Fixtures/` (made with `heif-enc -q 70 gradient.png -o gradient-96x64.heic` from Debian's
/// `libheif-examples`, the PNG a 96 × 64 gradient: red = x·255/95, green = y·255/63, blue = 64)
/// is decoded on every platform.
@Suite("HEIC photos converted to bounded JPEG", .timeLimit(.minutes(2)))
struct HEIFPhotoConversionTests {
    /// A gradient: red follows x, green follows y, blue is 64.
    private func gradient(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                pixels[offset] = UInt8(x * 255 / max(1, width - 1))
                pixels[offset + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[offset + 2] = 64
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// Pseudo-random pixels (a fixed linear congruential sequence): JPEG compresses them badly.
    private func noise(width: Int, height: Int) -> RGBImage {
        var state: UInt32 = 12_345
        let pixels = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    private func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> [Int] {
        let offset = (y * image.width + x) * 3
        return image.pixels[offset..<(offset + 3)].map { Int($0) }
    }

    private func close(_ actual: [Int], _ expected: [Int], within tolerance: Int) -> Bool {
        zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this platform's HEIF library cannot encode HEIC"))
    func aHEICPhotoBecomesAJPEGWithinTheAxisBound() throws {
        let heic = try HEIFCodec.encode(gradient(width: 300, height: 200), quality: 0.9)
        #expect(try HEIFCodec.dimensions(heic) == (300, 200))
        let output = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: 6 << 20, maxPixels: 50_000_000, maxAxisPixels: 128)
        #expect(output.width == 128 && output.height == 85, "300 × 200 fitted to 128 px: 128 × 85.33, rounded down")
        #expect(output.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
        let decoded = try JPEGCodec.decode(output.bytes, maxPixels: 128 * 85)
        #expect(decoded.width == 128 && decoded.height == 85)
        // The picture survives: corners keep the gradient's colours.
        #expect(close(pixel(decoded, 2, 2), [4, 6, 64], within: 24))
        #expect(close(pixel(decoded, 125, 82), [251, 249, 64], within: 24))
        #expect(output.quality == HEIFPhotoConversion.qualities[0], "the first quality fits 6 MiB")
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this platform's HEIF library cannot encode HEIC"))
    func theLongestSideIsBoundedTo4096Pixels() throws {
        let heic = try HEIFCodec.encode(gradient(width: 4100, height: 300), quality: 0.5)
        let output = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: 6 << 20, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        #expect(output.width == 4096 && output.height == 299, "300 × 4096/4100 = 299.7, rounded down")
        let decoded = try JPEGCodec.decode(output.bytes, maxPixels: 50_000_000)
        #expect(decoded.width == 4096 && decoded.height == 299)

        let exact = try HEIFCodec.encode(gradient(width: 4096, height: 64), quality: 0.5)
        let kept = try HEIFPhotoConversion.jpeg(
            fromHEIF: exact, maxBytes: 6 << 20, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        #expect(kept.width == 4096 && kept.height == 64, "exactly 4,096 px is kept as it is")
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this platform's HEIF library cannot encode HEIC"))
    func theJPEGFitsTheByteLimitByLoweringQualityThenSize() throws {
        let heic = try HEIFCodec.encode(noise(width: 256, height: 256), quality: 0.9)
        let unbounded = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: 6 << 20, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        #expect(unbounded.width == 256 && unbounded.quality == 0.88)
        let limit = unbounded.bytes.count / 3
        let bounded = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: limit, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        #expect(bounded.bytes.count <= limit)
        #expect(bounded.width < 256, "a third of the bytes needs a smaller picture, not only a lower quality")
        let decoded = try JPEGCodec.decode(bounded.bytes, maxPixels: 50_000_000)
        #expect(decoded.width == bounded.width && decoded.height == bounded.height)
        #expect(throws: ImageConversionError.self) {
            try HEIFPhotoConversion.jpeg(fromHEIF: heic, maxBytes: 100, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        }
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this platform's HEIF library cannot encode HEIC"))
    func theAdvertisedPixelLimitBoundsTheJPEG() throws {
        let heic = try HEIFCodec.encode(gradient(width: 400, height: 300), quality: 0.8)
        let output = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: 6 << 20, maxPixels: 30_000, maxAxisPixels: 16_384)
        #expect(output.width * output.height <= 30_000)
        #expect(output.width == 200 && output.height == 150, "scale √(30,000 / 120,000) = 0.5")
    }

    @Test func theCheckedInHEICDecodes() throws {
        let url = try #require(
            Bundle.module.url(forResource: "gradient-96x64", withExtension: "heic", subdirectory: "Fixtures"))
        let heic = try [UInt8](Data(contentsOf: url))
        #expect(try HEIFCodec.dimensions(heic) == (96, 64))
        let image = try HEIFCodec.decodeRGBOnWhite(heic, maxPixels: 96 * 64)
        #expect(image.width == 96 && image.height == 64)
        #expect(close(pixel(image, 1, 1), [3, 4, 64], within: 20))
        #expect(close(pixel(image, 94, 62), [252, 251, 64], within: 20))
        #expect(throws: ImageConversionError.self, "one pixel over the budget is refused before decoding") {
            try HEIFCodec.decodeRGBOnWhite(heic, maxPixels: 96 * 64 - 1)
        }
        let output = try HEIFPhotoConversion.jpeg(
            fromHEIF: heic, maxBytes: 6 << 20, maxPixels: 50_000_000, maxAxisPixels: 16_384)
        #expect(output.width == 96 && output.height == 64, "a small photo keeps its size")
    }

    @Test func aBrokenHEICIsAnErrorNotACrash() {
        let header: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        for bytes in [header, header + [UInt8](repeating: 0xAB, count: 500), Array(header.prefix(10))] {
            #expect(throws: ImageConversionError.self) { try HEIFCodec.dimensions(bytes) }
            #expect(throws: ImageConversionError.self) {
                try HEIFPhotoConversion.jpeg(
                    fromHEIF: bytes, maxBytes: 1 << 20, maxPixels: 1 << 20, maxAxisPixels: 4096)
            }
        }
    }
}
