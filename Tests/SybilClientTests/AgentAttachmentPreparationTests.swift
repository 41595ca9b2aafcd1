import SybilClient
import SybilImaging
import SybilWire
import Testing

/// Preparation (SPEC §6.1): files keep their bytes, HEIC photos become bounded JPEGs, raster
/// images are validated, and every limit holds at its boundary.
@Suite("HEIC conversion versus original-file preservation, and limits at each boundary", .timeLimit(.minutes(2)))
struct AgentAttachmentPreparationTests {
    private let v1 = AgentAttachmentLimits.v1

    private func prepare(
        _ name: String, _ bytes: [UInt8], kind: AgentAttachmentSource.Kind = .file, mimeType: String? = nil,
        limits: AgentAttachmentLimits = .v1, otherBytes: Int64 = 0
    ) async throws(AgentAttachmentRejection) -> AgentAttachmentPreparer.Prepared {
        try await AgentAttachmentPreparer.prepare(
            .bytes(bytes, kind: kind, fileName: name, mimeType: mimeType), limits: limits, otherBytes: otherBytes)
    }

    private func rejection(
        _ name: String, _ bytes: [UInt8], kind: AgentAttachmentSource.Kind = .file, mimeType: String? = nil,
        limits: AgentAttachmentLimits = .v1, otherBytes: Int64 = 0
    ) async -> AgentAttachmentRejection? {
        do {
            _ = try await prepare(name, bytes, kind: kind, mimeType: mimeType, limits: limits, otherBytes: otherBytes)
            return nil
        } catch {
            return error
        }
    }

    private func gradientHEIC(width: Int, height: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 3] = UInt8(x * 255 / (width - 1))
                pixels[(y * width + x) * 3 + 1] = UInt8(y * 255 / (height - 1))
                pixels[(y * width + x) * 3 + 2] = 90
            }
        }
        return try HEIFCodec.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 0.8)
    }

    @Test(.enabled(if: HEIFCodec.canEncode, "this platform's HEIF library cannot encode HEIC"))
    func aHEICPhotoBecomesABoundedJPEGWhileAHEICFileKeepsItsBytes() async throws {
        let heic = try gradientHEIC(width: 320, height: 240)

        let photo = try await prepare("IMG_0042.HEIC", heic, kind: .photo, mimeType: "image/heic")
        #expect(photo.fileName == "IMG_0042.jpg")
        #expect(photo.mimeType == "image/jpeg")
        let decoded = try JPEGCodec.decode(photo.bytes, maxPixels: 320 * 240)
        #expect(decoded.width == 320 && decoded.height == 240, "small photos keep their size")
        #expect(photo.bytes.count <= v1.maxImageBytes)

        let bounded = try await prepare(
            ".hidden.heic", heic, kind: .photo,
            limits: AgentAttachmentLimits(
                maxFiles: 8, maxTotalBytes: 32 << 20, maxImageBytes: 6 << 20, maxFileBytes: 8 << 20,
                maxPixels: 50_000_000, maxAxisPixels: 100))
        #expect(bounded.fileName == ".hidden.jpg", "the leading dot stays")
        let small = try JPEGCodec.decode(bounded.bytes, maxPixels: 100 * 75)
        #expect(small.width == 100 && small.height == 75, "an advertised 100 px axis bounds the JPEG")

        let file = try await prepare("IMG_0042.HEIC", heic, kind: .file, mimeType: "image/heic")
        #expect(file.bytes == heic, "a file keeps its exact bytes")
        #expect(file.fileName == "IMG_0042.HEIC" && file.mimeType == "image/heic")
    }

    @Test func filesKeepTheirOriginalBytesWhateverTheyAre() async throws {
        let pdf = Array("%PDF-1.7\n1 0 obj\n".utf8) + [0, 0xFF, 0x10]
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 7, count: 100)
        let cases: [(String, [UInt8], String?, String)] = [
            ("report.pdf", pdf, "application/pdf", "application/pdf"),
            ("bundle.zip", zip, nil, "application/zip"),
            (".env", Array("TOKEN=placeholder\n".utf8), nil, "application/octet-stream"),
            ("notes", Array("plain".utf8), "text/plain; charset=utf-8", "text/plain"),
        ]
        for (name, bytes, declared, expected) in cases {
            let prepared = try await prepare(name, bytes, mimeType: declared)
            #expect(prepared.bytes == bytes, "\(name) keeps its bytes")
            #expect(prepared.fileName == name, "\(name) keeps its name")
            #expect(prepared.mimeType == expected, "\(name)")
        }
        let photo = try await prepare("shot.png", AttachmentFixtures.png(width: 10, height: 10), kind: .photo)
        #expect(
            photo.mimeType == "image/png" && photo.fileName == "shot.png", "a PNG photo is validated, not converted")
    }

    @Test func rasterImagesAreValidatedFromTheirHeaders() async {
        #expect(
            await rejection("fake.png", Array("not an image at all, really".utf8), mimeType: "image/png")
                == .notAnImage(fileName: "fake.png", expected: "PNG"))
        #expect(
            await rejection("notes.txt", Array("hello".utf8), kind: .photo)
                == .notAnImage(fileName: "notes.txt", expected: "PNG, JPEG, GIF, WebP or HEIC"))
        let truncated = Array(AttachmentFixtures.png(width: 10, height: 10).prefix(20))
        #expect(await rejection("cut.png", truncated) == .notAnImage(fileName: "cut.png", expected: "PNG"))
    }

    @Test func sixMiBPerImageAndEightMiBPerFile() async throws {
        let image = AttachmentFixtures.png(width: 100, height: 100, size: 6 << 20)
        #expect(try await prepare("exact.png", image).size == 6 << 20)
        #expect(
            await rejection("over.png", image + [0])
                == .tooLarge(fileName: "over.png", size: (6 << 20) + 1, limit: 6 << 20, isImage: true))

        let file = [UInt8](repeating: 0x41, count: 8 << 20)
        #expect(try await prepare("exact.log", file).size == 8 << 20)
        #expect(
            await rejection("over.log", file + [0x41])
                == .tooLarge(fileName: "over.log", size: (8 << 20) + 1, limit: 8 << 20, isImage: false))
    }

    @Test func thirtyTwoMiBInAllExactlyAndOneByteMore() async throws {
        let file = [UInt8](repeating: 1, count: 8 << 20)
        #expect(try await prepare("fourth.bin", file, otherBytes: 24 << 20).size == 8 << 20, "24 + 8 = 32 MiB fits")
        #expect(
            await rejection("fifth.bin", [1], otherBytes: 32 << 20)
                == .totalTooLarge(fileName: "fifth.bin", total: (32 << 20) + 1, limit: 32 << 20))
    }

    @Test func sixteenThousand384PixelsPerAxis() async throws {
        _ = try await prepare("wide.png", AttachmentFixtures.png(width: 16_384, height: 1))
        _ = try await prepare("tall.png", AttachmentFixtures.png(width: 1, height: 16_384))
        #expect(
            await rejection("wider.png", AttachmentFixtures.png(width: 16_385, height: 1))
                == .tooManyPixelsPerAxis(fileName: "wider.png", width: 16_385, height: 1, limit: 16_384))
        #expect(
            await rejection("taller.png", AttachmentFixtures.png(width: 1, height: 16_385))
                == .tooManyPixelsPerAxis(fileName: "taller.png", width: 1, height: 16_385, limit: 16_384))
    }

    @Test func fiftyMillionPixels() async throws {
        _ = try await prepare("exact.png", AttachmentFixtures.png(width: 10_000, height: 5_000))
        #expect(
            await rejection("over.png", AttachmentFixtures.png(width: 3_561, height: 14_041))
                == .tooManyPixels(fileName: "over.png", pixels: 50_000_001, limit: 50_000_000))
    }

    @Test func advertisedLowerLimitsApplyAndHigherOnesAreClampedToV1() async throws {
        let lower = AgentAttachmentLimits(
            maxFiles: 2, maxTotalBytes: 1000, maxImageBytes: 100, maxFileBytes: 200, maxPixels: 400,
            maxAxisPixels: 20)
        _ = try await prepare("a.png", AttachmentFixtures.png(width: 20, height: 20, size: 100), limits: lower)
        #expect(
            await rejection("b.png", AttachmentFixtures.png(width: 21, height: 1), limits: lower)
                == .tooManyPixelsPerAxis(fileName: "b.png", width: 21, height: 1, limit: 20))
        #expect(
            await rejection("c.png", AttachmentFixtures.png(width: 20, height: 20, size: 101), limits: lower)
                == .tooLarge(fileName: "c.png", size: 101, limit: 100, isImage: true))
        #expect(
            await rejection("d.txt", [UInt8](repeating: 65, count: 201), limits: lower)
                == .tooLarge(fileName: "d.txt", size: 201, limit: 200, isImage: false))
        #expect(
            await rejection("e.txt", [65], limits: lower, otherBytes: 1000)
                == .totalTooLarge(fileName: "e.txt", total: 1001, limit: 1000))

        let higher = AgentAttachmentLimits(
            maxFiles: 100, maxTotalBytes: 1 << 40, maxImageBytes: 1 << 40, maxFileBytes: 1 << 40,
            maxPixels: 1 << 40, maxAxisPixels: 1 << 20)
        #expect(
            await rejection("f.log", [UInt8](repeating: 1, count: (8 << 20) + 1), limits: higher)
                == .tooLarge(fileName: "f.log", size: (8 << 20) + 1, limit: 8 << 20, isImage: false))
        #expect(
            await rejection("g.png", AttachmentFixtures.png(width: 16_385, height: 1), limits: higher)
                == .tooManyPixelsPerAxis(fileName: "g.png", width: 16_385, height: 1, limit: 16_384))
    }

    @Test func aFileKnownToBeTooLargeIsRefusedUnread() async {
        let source = AgentAttachmentSource(kind: .file, fileName: "huge.iso", mimeType: nil, byteCount: 1 << 30) { _ in
            Issue.record("a file known to be 1 GiB is not read")
            return []
        }
        do {
            _ = try await AgentAttachmentPreparer.prepare(source, limits: .v1, otherBytes: 0)
            Issue.record("a 1 GiB file was accepted")
        } catch {
            #expect(error == .tooLarge(fileName: "huge.iso", size: 1 << 30, limit: 8 << 20, isImage: false))
            #expect(error.description == "huge.iso is 1024 MiB; files may be at most 8 MiB. Choose a smaller one.")
        }
    }

    @Test func namesKeepLeadingDotsAndPhotosTakeJPG() {
        #expect(AgentAttachmentPreparer.jpegName(for: "IMG_0001.HEIC") == "IMG_0001.jpg")
        #expect(AgentAttachmentPreparer.jpegName(for: "photo") == "photo.jpg")
        #expect(AgentAttachmentPreparer.jpegName(for: ".heic") == ".heic.jpg")
        #expect(AgentAttachmentPreparer.jpegName(for: "a.b.heif") == "a.b.jpg")
        #expect(AgentAttachmentPreparer.displayName(".env") == ".env")
        #expect(AgentAttachmentPreparer.displayName("..hidden") == "..hidden")
        #expect(AgentAttachmentPreparer.displayName("/private/var/tmp/report.pdf") == "report.pdf")
        #expect(AgentAttachmentPreparer.displayName("a\u{0}b\nc.txt") == "abc.txt")
        #expect(AgentAttachmentPreparer.displayName("..") == "attachment")
        #expect(AgentAttachmentPreparer.displayName("") == "attachment")
        let long = String(repeating: "é", count: 200) + ".txt"
        let shortened = AgentAttachmentPreparer.displayName(long)
        #expect(shortened.utf8.count <= 255 && shortened.hasSuffix(".txt"))
        #expect(shortened.utf8.count == 254, "125 two-byte characters and .txt; a 126th would make 256")
    }
}
