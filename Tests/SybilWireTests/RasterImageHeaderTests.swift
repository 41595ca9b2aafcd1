import SybilWire
import Testing

/// Dimensions read from headers alone, for every format the Agent room validates, from
/// fixtures built byte by byte here; truncated or zero-sized headers read as `nil`.
@Suite("Raster image header", .timeLimit(.minutes(2)))
struct RasterImageHeaderTests {
    // MARK: Fixtures

    private static func bigEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Signature, then an IHDR chunk (its CRC is not checked by a header reader).
    static func png(width: Int, height: Int) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13, 4) + Array("IHDR".utf8)
            + bigEndian(width, 4) + bigEndian(height, 4) + [8, 6, 0, 0, 0] + [0xDE, 0xAD, 0xBE, 0xEF]
    }

    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + bigEndian(payload.count + 2, 2) + payload
    }

    /// SOI, APP0 (JFIF), APP1 whose payload looks like a SOF marker, DQT, DHT, then the frame.
    static func jpeg(width: Int, height: Int, sof: UInt8 = 0xC0) -> [UInt8] {
        [0xFF, 0xD8] + segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0])
            + segment(0xE1, Array("Exif".utf8) + [0, 0, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x7F, 0xFF, 0x7F, 0xFF])
            + segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
            + segment(0xC4, [0] + [UInt8](repeating: 0, count: 16))
            + segment(sof, [8] + bigEndian(height, 2) + bigEndian(width, 2) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
            + segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0]) + [0x12, 0x34, 0xFF, 0xD9]
    }

    static func gif(width: Int, height: Int) -> [UInt8] {
        Array("GIF89a".utf8) + littleEndian(width, 2) + littleEndian(height, 2) + [0xF7, 0, 0] + [0x3B]
    }

    private static func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
        Array("RIFF".utf8) + littleEndian(4 + 8 + payload.count, 4) + Array("WEBP".utf8) + Array(chunk.utf8)
            + littleEndian(payload.count, 4) + payload
    }

    /// Lossy: a key-frame tag, the start code, 14-bit sizes with 2 scale bits on top.
    static func vp8(width: Int, height: Int, scaleBits: Int = 0) -> [UInt8] {
        riff(
            "VP8 ",
            [0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A] + littleEndian(width | scaleBits << 14, 2)
                + littleEndian(height | scaleBits << 14, 2) + [UInt8](repeating: 0, count: 8))
    }

    /// Lossless: signature 0x2F, then 14 bits each of width − 1 and height − 1.
    static func vp8l(width: Int, height: Int) -> [UInt8] {
        riff("VP8L", [0x2F] + littleEndian((width - 1) | (height - 1) << 14 | 1 << 28, 4) + [0, 0, 0, 0, 0])
    }

    /// Extended: flags, reserved, 24 bits each of canvas width − 1 and height − 1.
    static func vp8x(width: Int, height: Int) -> [UInt8] {
        riff("VP8X", [0x10, 0, 0, 0] + littleEndian(width - 1, 3) + littleEndian(height - 1, 3))
    }

    static func ftyp(_ brand: String) -> [UInt8] {
        bigEndian(24, 4) + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
    }

    // MARK: Dimensions

    @Test(
        "dimensions come from the header of each format",
        arguments: [
            (png(width: 640, height: 480), RasterImageHeader(format: .png, width: 640, height: 480)),
            (png(width: 16_384, height: 1), RasterImageHeader(format: .png, width: 16_384, height: 1)),
            (jpeg(width: 4032, height: 3024), RasterImageHeader(format: .jpeg, width: 4032, height: 3024)),
            (jpeg(width: 300, height: 200, sof: 0xC2), RasterImageHeader(format: .jpeg, width: 300, height: 200)),
            (gif(width: 1, height: 65_535), RasterImageHeader(format: .gif, width: 1, height: 65_535)),
            (vp8(width: 1920, height: 1080), RasterImageHeader(format: .webp, width: 1920, height: 1080)),
            (vp8(width: 16_383, height: 2, scaleBits: 3), RasterImageHeader(format: .webp, width: 16_383, height: 2)),
            (vp8l(width: 16_384, height: 1), RasterImageHeader(format: .webp, width: 16_384, height: 1)),
            (vp8l(width: 1, height: 16_384), RasterImageHeader(format: .webp, width: 1, height: 16_384)),
            (vp8x(width: 16_777_216, height: 3), RasterImageHeader(format: .webp, width: 16_777_216, height: 3)),
        ])
    func dimensions(bytes: [UInt8], expected: RasterImageHeader) {
        #expect(RasterImageHeader.read(bytes) == expected)
        #expect(RasterImageHeader.format(of: bytes) == expected.format)
    }

    @Test func jpegSkipsFillBytesBeforeAMarker() {
        var bytes = Self.jpeg(width: 10, height: 20)
        bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: 2)
        #expect(RasterImageHeader.read(bytes) == RasterImageHeader(format: .jpeg, width: 10, height: 20))
    }

    @Test func heifIsRecognisedByItsBrandWithoutDimensions() {
        for brand in ["heic", "heix", "mif1", "msf1"] {
            #expect(RasterImageHeader.read(Self.ftyp(brand)) == RasterImageHeader(format: .heif, width: 0, height: 0))
        }
        #expect(RasterImageHeader.format(of: Self.ftyp("isom")) == nil, "an MP4 is not an image")
        #expect(RasterImageHeader.read(Self.ftyp("isom")) == nil)
    }

    @Test func pixelsSaturateInsteadOfOverflowing() {
        #expect(RasterImageHeader(format: .png, width: 10_000, height: 5_000).pixels == 50_000_000)
        let largest = RasterImageHeader.read(Self.png(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF))
        #expect(largest?.width == 0x7FFF_FFFF)
        #expect(largest?.pixels == Int64(0x7FFF_FFFF) * Int64(0x7FFF_FFFF))
        #expect(RasterImageHeader(format: .png, width: .max, height: 2).pixels == Int64.max)
        // PNG sizes stop at 2^31 − 1: a larger one is not a PNG header.
        #expect(RasterImageHeader.read(Self.png(width: 0x8000_0000, height: 1)) == nil)
        #expect(RasterImageHeader.read(Self.png(width: 1, height: 0xFFFF_FFFF)) == nil)
    }

    // MARK: Refusals

    @Test(
        "zero in either dimension reads as nil",
        arguments: [
            png(width: 0, height: 10), png(width: 10, height: 0), jpeg(width: 10, height: 0),
            jpeg(width: 0, height: 10),
            gif(width: 0, height: 10), gif(width: 10, height: 0), vp8(width: 0, height: 10), vp8(width: 10, height: 0),
        ])
    func zeroSizes(bytes: [UInt8]) {
        #expect(RasterImageHeader.format(of: bytes) != nil)
        #expect(RasterImageHeader.read(bytes) == nil)
    }

    /// Every prefix shorter than the bytes a reader needs reads as `nil`, never traps.
    @Test(
        "truncated headers read as nil at every length",
        arguments: [
            (png(width: 640, height: 480), 24), (gif(width: 64, height: 48), 10), (vp8(width: 64, height: 48), 30),
            (vp8l(width: 64, height: 48), 30), (vp8x(width: 64, height: 48), 30),
        ])
    func truncated(bytes: [UInt8], needed: Int) {
        for length in 0..<needed {
            #expect(RasterImageHeader.read(Array(bytes.prefix(length))) == nil, "\(length) bytes")
        }
        #expect(RasterImageHeader.read(Array(bytes.prefix(needed))) != nil)
    }

    @Test func aJPEGCutAnywhereBeforeItsFrameSizeReadsAsNil() {
        let bytes = Self.jpeg(width: 640, height: 480)
        let sof = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 && $0 > 40 }!
        for length in 0..<(sof + 9) {
            #expect(RasterImageHeader.read(Array(bytes.prefix(length))) == nil, "\(length) bytes")
        }
        #expect(RasterImageHeader.read(Array(bytes.prefix(sof + 9)))?.width == 640)
    }

    @Test func aJPEGWhoseScanStartsBeforeAnyFrameReadsAsNil() {
        let bytes: [UInt8] =
            [0xFF, 0xD8] + [0xFF, 0xDA, 0x00, 0x08, 1, 2, 3, 4, 5, 6] + [0xFF, 0xC0, 0, 17, 8, 0, 10, 0, 10]
        #expect(RasterImageHeader.read(bytes) == nil)
    }

    @Test func aJPEGSegmentWithAnImpossibleLengthReadsAsNil() {
        #expect(RasterImageHeader.read([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0, 0, 0, 0]) == nil)
        #expect(
            RasterImageHeader.read([0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 100)) == nil)
        #expect(RasterImageHeader.read([0xFF, 0xD8, 0x00, 0xC0, 0x00, 0x11, 8, 0, 10, 0, 10]) == nil, "no marker")
    }

    @Test func webPChunksThatAreNotImagesOrLackTheirSignatureReadAsNil() {
        var lossy = Self.vp8(width: 10, height: 10)
        lossy[23] = 0x00  // the start code 9D 01 2A
        #expect(RasterImageHeader.read(lossy) == nil)
        var lossless = Self.vp8l(width: 10, height: 10)
        lossless[20] = 0x2E
        #expect(RasterImageHeader.read(lossless) == nil)
        #expect(RasterImageHeader.read(Self.riff("ALPH", [UInt8](repeating: 0, count: 20))) == nil)
    }

    @Test func otherBytesAreNoImage() {
        #expect(RasterImageHeader.read([]) == nil)
        #expect(RasterImageHeader.read(Array("%PDF-1.7\n".utf8)) == nil)
        #expect(RasterImageHeader.format(of: Array("GIF90a".utf8) + [1, 0, 1, 0]) == nil)
        #expect(RasterImageHeader.format(of: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
    }
}
