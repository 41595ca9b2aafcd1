import SybilImaging
import Testing

/// The box-filter downscale and the fitted size used by photo conversion and previews, and
/// JPEG decoding with its pixel bound.
@Suite("Image downscaling and JPEG decoding", .timeLimit(.minutes(2)))
struct RGBImageDownscaleTests {
    @Test func theFittedSizeKeepsTheAspectAndEachBound() {
        #expect(
            RGBImage.fittingSize(width: 4096, height: 3072, longestSide: 4096, maxPixels: 50_000_000) == (4096, 3072))
        #expect(
            RGBImage.fittingSize(width: 8064, height: 6048, longestSide: 4096, maxPixels: 50_000_000) == (4096, 3072))
        #expect(RGBImage.fittingSize(width: 4097, height: 1, longestSide: 4096, maxPixels: 50_000_000) == (4096, 1))
        #expect(
            RGBImage.fittingSize(width: 3072, height: 4097, longestSide: 4096, maxPixels: 50_000_000) == (3071, 4096))
        #expect(RGBImage.fittingSize(width: 1000, height: 1000, longestSide: 4096, maxPixels: 250_000) == (500, 500))
        #expect(
            RGBImage.fittingSize(width: 1000, height: 1000, longestSide: 4096, maxPixels: 1_000_000) == (1000, 1000))
        #expect(RGBImage.fittingSize(width: 1000, height: 1000, longestSide: 4096, maxPixels: 999_999) == (999, 999))
        let thin = RGBImage.fittingSize(width: 10_000, height: 1, longestSide: 4096, maxPixels: 100)
        #expect(thin.width * thin.height <= 100 && thin.height == 1)
    }

    @Test func eachTargetPixelIsTheAverageOfTheSourcePixelsItCovers() {
        // 4 × 2 → 2 × 1: each target pixel averages a 2 × 2 block.
        let image = RGBImage(
            width: 4, height: 2,
            pixels: [
                0, 0, 0, 100, 100, 100, 10, 20, 30, 10, 20, 30,
                200, 200, 200, 100, 100, 100, 30, 40, 50, 30, 40, 50,
            ])
        let small = image.downscaled(toWidth: 2, height: 1)
        #expect(small.pixels == [100, 100, 100, 20, 30, 40])
        // 3 × 1 → 2 × 1: columns 0 → 0, 1 → 0, 2 → 1 (x · 2 / 3).
        let row = RGBImage(width: 3, height: 1, pixels: [10, 10, 10, 21, 21, 21, 90, 90, 90])
        #expect(row.downscaled(toWidth: 2, height: 1).pixels == [16, 16, 16, 90, 90, 90], "15.5 rounds to 16")
        #expect(row.downscaled(toWidth: 3, height: 1) == row, "the same size is the image itself")
        #expect(row.downscaled(toWidth: 1, height: 1).pixels == [40, 40, 40], "121 / 3 = 40.3")
    }

    @Test func aJPEGDecodesAndItsPixelBoundIsCheckedFirst() throws {
        let image = RGBImage(width: 100, height: 100, pixels: [UInt8](repeating: 180, count: 100 * 100 * 3))
        let jpeg = try JPEGCodec.encode(image, quality: 0.9)
        let decoded = try JPEGCodec.decode(jpeg, maxPixels: 10_000)
        #expect(decoded.width == 100 && decoded.height == 100)
        #expect(decoded.pixels.allSatisfy { abs(Int($0) - 180) <= 2 })
        #expect(throws: ImageConversionError.self, "10,000 pixels with a budget of 9,999") {
            try JPEGCodec.decode(jpeg, maxPixels: 9_999)
        }
        #expect(throws: ImageConversionError.self) {
            try JPEGCodec.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 2], maxPixels: 1)
        }
        #expect(throws: ImageConversionError.self) { try JPEGCodec.decode(Array("not a jpeg".utf8), maxPixels: 1) }
    }
}
