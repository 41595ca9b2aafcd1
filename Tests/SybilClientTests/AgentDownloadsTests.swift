import Foundation
import SybilClient
import SybilHTTP
import SybilImaging
import SybilTesting
import SybilWire
import Testing

/// Downloads (SPEC §6.1): two at once, a 16 MiB LRU cache, configuration isolation by
/// generation, cancellation, previews and exports.
@Suite("Two-transfer concurrency, configuration isolation, cache bound", .timeLimit(.minutes(2)))
struct AgentDownloadsTests {
    private func attachment(_ id: String, _ bytes: [UInt8], name: String? = nil, mimeType: String = "text/plain")
        -> AgentAttachment
    {
        AgentAttachment(
            uploadId: id, fileName: name ?? id + ".txt", mimeType: mimeType, size: Int64(bytes.count),
            sha256: SHA256Digest.hex(bytes))
    }

    private func downloads(_ api: FakeAgentRoomAPI, _ directory: String) -> AgentDownloads {
        AgentDownloads(api: api, exportDirectory: directory + "/exports", ids: SequentialIDGenerator(prefix: "export"))
    }

    private func failure(_ body: () async throws(AgentDownloadError) -> [UInt8]) async -> AgentDownloadError? {
        do {
            _ = try await body()
            return nil
        } catch {
            return error
        }
    }

    @MainActor
    private func until(_ condition: @escaping @MainActor () -> Bool) async -> Bool {
        await ConditionWait.until(condition)
    }

    @Test func atMostTwoTransfersRunAndTheThirdWaitsItsTurn() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let gate = TestGate()
            let api = FakeAgentRoomAPI(downloadGate: gate)
            let files = (1...5).map { attachment("f\($0)", Array("file \($0)".utf8)) }
            for (file, index) in zip(files, 1...5) { api.store(Array("file \(index)".utf8), for: file.uploadId) }
            let downloads = downloads(api, directory)
            let tasks = files.map { file in Task { try await downloads.original(of: file) } }
            #expect(await until { api.downloadsRunning == 2 && downloads.statistics.queued == 3 })
            #expect(downloads.statistics.active == 2)
            gate.release()
            #expect(await until { api.downloads.count == 3 && downloads.statistics.queued == 2 })
            #expect(api.downloadsRunning == 2, "a finished one hands its slot to the next")
            gate.release(4)
            for (task, index) in zip(tasks, 1...5) {
                #expect(await TaskOutcome.value(of: task) == Array("file \(index)".utf8))
            }
            #expect(api.maxDownloadsRunning == 2)
            #expect(downloads.statistics.active == 0 && downloads.statistics.queued == 0)
        }
    }

    @Test func queuedAndRunningDownloadsCanBeCancelled() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let gate = TestGate()
            let api = FakeAgentRoomAPI(downloadGate: gate)
            let files = (1...3).map { attachment("f\($0)", [UInt8($0)]) }
            for (file, index) in zip(files, 1...3) { api.store([UInt8(index)], for: file.uploadId) }
            let downloads = downloads(api, directory)
            let first = Task { try await downloads.original(of: files[0]) }
            let second = Task { try await downloads.original(of: files[1]) }
            #expect(await until { api.downloadsRunning == 2 })
            let queued = Task { try await downloads.original(of: files[2]) }
            #expect(await until { downloads.statistics.queued == 1 })

            queued.cancel()
            #expect(await TaskOutcome.downloadError(of: queued) == .cancelled)
            #expect(downloads.statistics.queued == 0)
            #expect(!api.downloads.contains("f3"), "a cancelled queued download never reaches the server")

            first.cancel()
            #expect(await TaskOutcome.downloadError(of: first) == .cancelled)
            #expect(gate.cancelled == 1, "the running transfer itself was cancelled")
            gate.release()
            #expect(await TaskOutcome.value(of: second) == [2])
            #expect(downloads.statistics.active == 0)
        }
    }

    @Test func aDownloadCancelledBeforeItQueuesEndsAtOnceAndTheNextTakesTheFreedSlot() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let gate = TestGate()
            let api = FakeAgentRoomAPI(downloadGate: gate)
            let files = (1...4).map { attachment("f\($0)", [UInt8($0)]) }
            for (file, index) in zip(files, 1...4) { api.store([UInt8(index)], for: file.uploadId) }
            let downloads = downloads(api, directory)
            let running = files[..<2].map { file in Task { try await downloads.original(of: file) } }
            #expect(await until { api.downloadsRunning == 2 })
            // Cancelled before it asks for a slot: its cancellation handler runs before it
            // would queue, and it never waits.
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await downloads.original(of: files[2])
            }
            #expect(await TaskOutcome.downloadError(of: cancelled) == .cancelled)
            #expect(downloads.statistics.queued == 0)
            let next = Task { try await downloads.original(of: files[3]) }
            #expect(await until { downloads.statistics.queued == 1 })
            gate.release(3)
            #expect(await TaskOutcome.value(of: next) == [4])
            for (task, index) in zip(running, 1...2) { #expect(await TaskOutcome.value(of: task) == [UInt8(index)]) }
            #expect(!api.downloads.contains("f3"), "the cancelled download never reached the server")
            #expect(downloads.statistics.active == 0 && downloads.statistics.queued == 0)
        }
    }

    @Test func aConfigurationChangeDropsTheCacheAndAStaleResultNeverLands() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let gate = TestGate()
            let old = FakeAgentRoomAPI(downloadGate: gate, downloadsIgnoreCancellation: true)
            let a = attachment("a", Array("alpha".utf8))
            let b = attachment("b", Array("bravo".utf8))
            let c = attachment("c", Array("charlie".utf8))
            old.store(Array("alpha".utf8), for: "a")
            old.store(Array("bravo".utf8), for: "b")
            old.store(Array("charlie".utf8), for: "c")
            let downloads = downloads(old, directory)
            gate.release()
            _ = try await downloads.original(of: a)
            #expect(downloads.statistics.cachedCount == 1)
            let exported = try await downloads.export(a)
            #expect(FileManager.default.fileExists(atPath: exported.path))

            // b runs (and will finish regardless of cancellation); two more wait behind it.
            let running = Task { try await downloads.preview(of: b) }
            #expect(await until { old.downloadsRunning == 1 && gate.waiting == 1 })
            let alsoRunning = Task { try await downloads.original(of: c) }
            #expect(await until { old.downloadsRunning == 2 })
            let queued = Task { try await downloads.original(of: a) }  // a is cached: answered at once
            #expect(await TaskOutcome.value(of: queued) == Array("alpha".utf8))
            let waiting = Task { try await downloads.original(of: attachment("d", [4])) }
            #expect(await until { downloads.statistics.queued == 1 })

            let new = FakeAgentRoomAPI()
            new.store(Array("bravo".utf8), for: "b")
            await downloads.reconfigure(api: new)
            #expect(downloads.statistics.generation == 1)
            #expect(downloads.statistics.cachedCount == 0, "the cache is dropped")
            #expect(!FileManager.default.fileExists(atPath: exported.path), "exports are removed")
            #expect(await TaskOutcome.downloadError(of: waiting) == .configurationChanged)

            gate.release(2)  // the old transfers finish anyway
            #expect(await TaskOutcome.downloadError(of: running) == .configurationChanged)
            #expect(await TaskOutcome.downloadError(of: alsoRunning) == .configurationChanged)
            #expect(downloads.statistics.cachedCount == 0, "a stale download never lands in the new cache")

            #expect(try await downloads.preview(of: b) == .text("bravo", truncated: false))
            #expect(new.downloads == ["b"], "the new configuration downloads afresh")
        }
    }

    @Test func theCacheHolds16MiBLeastRecentlyUsedFirst() {
        var cache = AgentDownloadCache(limit: AgentDownloads.cacheLimitBytes)
        #expect(cache.limit == 16 << 20)
        let eight = [UInt8](repeating: 8, count: 8 << 20)
        cache.insert(eight, for: "a")
        cache.insert(eight, for: "b")
        #expect(cache.totalBytes == 16 << 20 && cache.keys == ["a", "b"], "exactly 16 MiB fits")
        _ = cache.value(for: "a")
        cache.insert([1], for: "c")
        #expect(cache.keys == ["a", "c"], "one byte more evicts the least recently used")
        #expect(cache.totalBytes == (8 << 20) + 1)
        cache.insert([UInt8](repeating: 0, count: (16 << 20) + 1), for: "huge")
        #expect(cache.keys == ["a", "c"], "a file larger than the cache is not kept and evicts nothing")
        cache.insert([UInt8](repeating: 0, count: 16 << 20), for: "full")
        #expect(cache.keys == ["full"] && cache.totalBytes == 16 << 20)
        cache.removeAll()
        #expect(cache.keys.isEmpty && cache.totalBytes == 0)
    }

    @Test func aCachedOriginalIsNotDownloadedAgainButOneLargerThanTheCacheIs() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let small = [UInt8](repeating: 1, count: 16 << 20)
            let large = [UInt8](repeating: 2, count: (16 << 20) + 1)
            api.store(small, for: "small")
            api.store(large, for: "large")
            let downloads = downloads(api, directory)
            for _ in 0..<2 {
                _ = try await downloads.original(of: attachment("small", small))
                _ = try await downloads.original(of: attachment("large", large))
            }
            #expect(api.downloads == ["small", "large", "large"])
            #expect(downloads.statistics.cachedBytes == 16 << 20)
        }
    }

    @Test func bytesThatAreNotTheOriginalAreRefused() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            api.store(Array("tampered".utf8), for: "x")
            let downloads = downloads(api, directory)
            let wrongSize = attachment("x", Array("original".utf8) + [0])
            let sizeFailure = await failure { () async throws(AgentDownloadError) in
                try await downloads.original(of: wrongSize)
            }
            guard case .failed(.integrity(let sizeReason))? = sizeFailure else {
                Issue.record("a wrong size was accepted: \(String(describing: sizeFailure))")
                return
            }
            #expect(sizeReason.contains("8 bytes arrived"))
            let wrongDigest = attachment("x", Array("original".utf8))  // same size, other bytes
            let digestFailure = await failure { () async throws(AgentDownloadError) in
                try await downloads.original(of: wrongDigest)
            }
            guard case .failed(.integrity(let digestReason))? = digestFailure else {
                Issue.record("a wrong digest was accepted: \(String(describing: digestFailure))")
                return
            }
            #expect(digestReason.contains("SHA-256"))
            #expect(downloads.statistics.cachedCount == 0)
        }
    }

    @Test func exportsAreTheExactBytesUnderTheirNameUntilReleased() async throws {
        try await AttachmentFixtures.withDirectory { directory in
            let api = FakeAgentRoomAPI()
            let bytes: [UInt8] = [0, 1, 2, 255, 10, 13]
            api.store(bytes, for: "e")
            let downloads = downloads(api, directory)
            let file = attachment("e", bytes, name: ".config.bin", mimeType: "application/octet-stream")
            let first = try await downloads.export(file)
            let second = try await downloads.export(file)
            #expect(first.path.hasSuffix("/.config.bin") && first.path != second.path)
            #expect(FileManager.default.contents(atPath: first.path).map { [UInt8]($0) } == bytes)
            #expect(downloads.statistics.exports == 2)
            await downloads.release(first)
            #expect(!FileManager.default.fileExists(atPath: first.path))
            #expect(FileManager.default.fileExists(atPath: second.path))
            await downloads.release(first)
            #expect(downloads.statistics.exports == 1)
        }
    }
}

/// Previews: bounded thumbnails, plain text (never rendered), nothing for other files.
@Suite("Attachment previews", .timeLimit(.minutes(2)))
struct AgentDownloadPreviewTests {
    @Test func hostileImageSizesGiveNoPreviewInsteadOfACrash() {
        // Any file's bytes are sniffed: a PNG header claiming the largest sizes must not trap.
        for side in [0x7FFF_FFFF, 0xFFFF_FFFF] {
            let bytes = AttachmentFixtures.png(width: side, height: side)
            let preview = AgentDownloadPreview.make(bytes: bytes, mimeType: "application/octet-stream", fileName: "x")
            if case .image(let thumbnail) = preview { #expect(thumbnail.pixels == nil, "never decoded") }
        }
    }

    @Test func rasterImagesBecomeBoundedThumbnails() throws {
        let width = 1024
        let height = 512
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = 200 }
        let png = try PNGCodec.encode(pixels: pixels, width: width, height: height, alpha: false)
        guard
            case .image(let thumbnail) = AgentDownloadPreview.make(bytes: png, mimeType: "image/png", fileName: "a.png")
        else {
            Issue.record("a PNG has a thumbnail")
            return
        }
        #expect(thumbnail.originalWidth == 1024 && thumbnail.originalHeight == 512)
        #expect(thumbnail.width == 512 && thumbnail.height == 256)
        #expect(thumbnail.pixels?.count == 512 * 256 * 3)
        #expect(Array(thumbnail.pixels?.prefix(3) ?? []) == [200, 0, 0])

        let jpeg = try JPEGCodec.encode(
            RGBImage(width: 300, height: 200, pixels: Array(pixels.prefix(300 * 200 * 3))), quality: 0.9)
        guard case .image(let small) = AgentDownloadPreview.make(bytes: jpeg, mimeType: "image/jpeg", fileName: "b.jpg")
        else {
            Issue.record("a JPEG has a thumbnail")
            return
        }
        #expect(small.width == 300 && small.height == 200 && small.pixels != nil, "small images keep their size")

        let gif = Array("GIF89a".utf8) + [0xD0, 0x07, 0xE8, 0x03] + [UInt8](repeating: 0, count: 20)  // 2000 × 1000
        #expect(
            AgentDownloadPreview.make(bytes: gif, mimeType: "image/gif", fileName: "c.gif")
                == .image(
                    .init(format: .gif, originalWidth: 2000, originalHeight: 1000, width: 512, height: 256, pixels: nil)
                ),
            "GIF: the bounded dimensions only")
        let hugePNG = AttachmentFixtures.png(width: 8192, height: 2049)  // 16 Mi + 8 Ki pixels
        guard
            case .image(let huge) = AgentDownloadPreview.make(bytes: hugePNG, mimeType: "image/png", fileName: "d.png")
        else {
            Issue.record("a large PNG has a frame")
            return
        }
        #expect(huge.pixels == nil && huge.width == 512 && huge.height == 128, "over 16 Mi pixels is not decoded")
    }

    @Test func textIsPlainTextIncludingHTMLAndSVG() {
        let html = "<html><script>alert(1)</script><b>bold</b></html>"
        #expect(
            AgentDownloadPreview.make(bytes: Array(html.utf8), mimeType: "text/html", fileName: "page.html")
                == .text(html, truncated: false))
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>"#
        #expect(
            AgentDownloadPreview.make(bytes: Array(svg.utf8), mimeType: "image/svg+xml", fileName: "dot.svg")
                == .text(svg, truncated: false))
        #expect(
            AgentDownloadPreview.make(bytes: [0x61, 0xFF, 0x62], mimeType: "text/plain", fileName: "bad.txt")
                == .text("a\u{FFFD}b", truncated: false), "invalid UTF-8 is replaced")
        #expect(
            AgentDownloadPreview.make(bytes: Array("x".utf8), mimeType: "application/octet-stream", fileName: "a.log")
                == .text("x", truncated: false), "a text extension on a generic type")
        guard
            case .unavailable = AgentDownloadPreview.make(
                bytes: [1, 2, 3], mimeType: "application/pdf", fileName: "a.pdf")
        else {
            Issue.record("a PDF has no preview")
            return
        }
    }

    @Test func textIsBoundedAtACharacterBoundary() {
        let limit = AgentDownloadPreview.maxTextBytes
        let exact = [UInt8](repeating: 0x61, count: limit)
        #expect(
            AgentDownloadPreview.make(bytes: exact, mimeType: "text/plain", fileName: "a")
                == .text(String(repeating: "a", count: limit), truncated: false))
        // limit − 1 ASCII bytes, then "é" (2 bytes) straddling the cut.
        let straddling = [UInt8](repeating: 0x61, count: limit - 1) + Array("é".utf8)
        #expect(
            AgentDownloadPreview.make(bytes: straddling, mimeType: "text/plain", fileName: "a")
                == .text(String(repeating: "a", count: limit - 1), truncated: true))
    }
}
