import Foundation
import SybilClient
import SybilImaging
import SybilTimeline
import SybilWire
import Testing

@Suite("Attachment uploads", .timeLimit(.minutes(2)))
struct AttachmentUploaderTests {
    let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    /// A temporary directory for one test.
    private func withDirectory(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-upload-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }

    private func file(_ directory: String, _ name: String, bytes: [UInt8]) throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theUploadKeyHashesTheDocumentedBytes() {
        let bytes = AttachmentUploadKey.hashedBytes(
            session: "sess-42", project: "proj-app", fileName: "crash.png", mimeType: "image/png",
            path: "/private/var/mobile/tmp/crash.png", size: 2_411_520)
        #expect(
            bytes == Array("sess-42\0proj-app\0crash.png\0image/png\0/private/var/mobile/tmp/crash.png\02411520".utf8))
        let key = AttachmentUploadKey.make(
            session: "sess-42", project: "proj-app", fileName: "crash.png", mimeType: "image/png",
            path: "/private/var/mobile/tmp/crash.png", size: 2_411_520)
        // FNV-1a 64 of those bytes, computed independently.
        #expect(key == "files.chatAttachmentUpload:sess-42:43c95cc4e9ae6cf9")
        #expect(AttachmentUploadKey.callKey(key, .chunk(3)) == key + ":chunk:3")
        #expect(AttachmentUploadKey.callKey(key, .begin) == key + ":begin")
        #expect(AttachmentUploadKey.callKey(key, .finish) == key + ":finish")
        #expect(AttachmentUploadKey.callKey(key, .cancel) == key + ":cancel")
        let other = AttachmentUploadKey.make(
            session: "sess-42", project: "proj-app", fileName: "crash.png", mimeType: "image/png",
            path: "/private/var/mobile/tmp/crash.png", size: 2_411_521)
        #expect(other != key, "any field changes the key")
    }

    @Test func chunksAreMin1MiBAndTheDesktopsSizeAndReassembleExactly() async throws {
        try await withDirectory { directory in
            let bytes = (0..<(2_500_000)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let path = try file(directory, "log.bin", bytes: bytes)
            let desktop = FakeUploadDesktop(chunkSize: 4 << 20)  // asks for 4 MiB: capped at 1 MiB
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory + "/staging")
            let progress = await AttachmentUploadProgress()
            let result = try await uploader.upload(
                .init(path: path, fileName: "log.bin", mimeType: "application/octet-stream"), to: chat,
                progress: progress)
            #expect(result.size == 2_500_000)
            #expect(desktop.assembled == bytes)
            let key = AttachmentUploader.uploadKey(
                for: .init(path: path, fileName: "log.bin", mimeType: "application/octet-stream"), size: 2_500_000,
                in: chat)
            #expect(
                desktop.calls == [
                    key + ":begin", key + ":chunk:0", key + ":chunk:1", key + ":chunk:2", key + ":finish",
                ])
            #expect(await progress.bytesSent == 2_500_000)
            #expect(await progress.fraction == 1)
        }
    }

    @Test func aSmallerDesktopChunkSizeIsUsed() async throws {
        try await withDirectory { directory in
            let path = try file(directory, "a.txt", bytes: Array(repeating: 65, count: 10))
            let desktop = FakeUploadDesktop(chunkSize: 4)
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
            _ = try await uploader.upload(.init(path: path, fileName: "a.txt", mimeType: "text/plain"), to: chat)
            #expect(desktop.calls.filter { $0.contains(":chunk:") }.count == 3, "4 + 4 + 2 bytes")
        }
    }

    @Test func aFinishThatDoesNotAccountForTheWholeFileIsAnError() async throws {
        try await withDirectory { directory in
            let path = try file(directory, "a.txt", bytes: Array(repeating: 65, count: 10))
            let desktop = FakeUploadDesktop(chunkSize: 4)
            desktop.claimFinishedSize(9)
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
            await #expect(throws: AttachmentUploadError.self) {
                _ = try await uploader.upload(.init(path: path, fileName: "a.txt", mimeType: "text/plain"), to: chat)
            }
        }
    }

    @Test func aRetryResumesFromTheFirstMissingChunkWithTheSameKeys() async throws {
        try await withDirectory { directory in
            let bytes = [UInt8](repeating: 7, count: 10)
            let path = try file(directory, "a.txt", bytes: bytes)
            let desktop = FakeUploadDesktop(chunkSize: 3)
            desktop.failChunk(2)
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
            let chosen = AttachmentUploader.File(path: path, fileName: "a.txt", mimeType: "text/plain")
            await #expect(throws: AttachmentUploadError.desktop("connection reset")) {
                _ = try await uploader.upload(chosen, to: chat)
            }
            let result = try await uploader.upload(chosen, to: chat)
            #expect(result.size == 10)
            #expect(desktop.assembled == bytes)
            let key = AttachmentUploader.uploadKey(for: chosen, size: 10, in: chat)
            #expect(
                desktop.calls == [
                    key + ":begin", key + ":chunk:0", key + ":chunk:1", key + ":chunk:2",
                    key + ":begin", key + ":chunk:2", key + ":chunk:3", key + ":finish",
                ])
        }
    }

    @Test func filesOver1GiBAreRefusedBeforeAnyCall() async throws {
        try await withDirectory { directory in
            let desktop = FakeUploadDesktop()
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory)
            for (size, refused) in [(Int64(1 << 30) + 1, true), (Int64(1 << 30), false)] {
                let path = directory + "/big-\(size).bin"
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.truncate(atOffset: UInt64(size))  // sparse: no disk used
                try handle.close()
                let chosen = AttachmentUploader.File(path: path, fileName: "movie.mov", mimeType: "video/quicktime")
                if refused {
                    await #expect(
                        throws: AttachmentUploadError.fileTooLarge(fileName: "movie.mov", size: size, limit: 1 << 30)
                    ) { _ = try await uploader.upload(chosen, to: chat) }
                    #expect(desktop.calls.isEmpty)
                    #expect(
                        AttachmentUploadError.fileTooLarge(fileName: "movie.mov", size: size, limit: 1 << 30)
                            .description
                            == "movie.mov is 1.00 GiB (1073741825 bytes); attachments may be at most 1 GiB (1073741824 bytes)."
                    )
                } else {
                    let task = Task { try await uploader.upload(chosen, to: chat) }
                    let sending = await desktop.changed.wait {
                        desktop.calls.contains(where: { $0.hasSuffix(":chunk:0") })
                    }
                    #expect(sending, "the upload reached its first chunk")
                    task.cancel()
                    _ = try? await task.value
                    #expect(desktop.requests.last?.size == 1 << 30, "exactly 1 GiB is accepted")
                }
            }
        }
    }

    @Test func aPNGIsSentAsAJPEGAndOtherFilesUnchanged() async throws {
        try await withDirectory { directory in
            let png = try PNGCodec.encode(
                pixels: [UInt8](repeating: 90, count: 32 * 32 * 4), width: 32, height: 32, alpha: true)
            let path = try file(directory, "screen.png", bytes: png)
            let desktop = FakeUploadDesktop()
            let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory + "/staging")
            _ = try await uploader.upload(.init(path: path, fileName: "screen.png", mimeType: "image/png"), to: chat)
            let request = try #require(desktop.requests.first)
            #expect(request.fileName == "screen.jpg")
            #expect(request.mimeType == "image/jpeg")
            #expect(request.path == path, "the original path identifies the file")
            #expect(desktop.assembled.starts(with: [0xFF, 0xD8, 0xFF]))
            #expect(Int64(desktop.assembled.count) == request.size)
        }
    }

    @Test func sizesInMessagesRoundDown() {
        func message(_ size: Int64) -> String {
            AttachmentUploadError.fileTooLarge(fileName: "f", size: size, limit: 1 << 30).description
        }
        #expect(message(3 << 29).hasPrefix("f is 1.50 GiB (1610612736 bytes)"))
        #expect(message((1 << 30) + (1 << 30) / 20 + 1).hasPrefix("f is 1.05 GiB"))
        #expect(message((1 << 30) + (1 << 30) / 20).hasPrefix("f is 1.04 GiB"), "a byte under 1.05 GiB")
        #expect(message(2 << 30).hasPrefix("f is 2 GiB"))
        #expect(message((2 << 30) - 1).hasPrefix("f is 1.99 GiB"), "never rounded up to the next figure")
    }

    @Test func cancelUsesTheCancelCallKey() async throws {
        let desktop = FakeUploadDesktop()
        let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: "/tmp")
        try await uploader.cancel(uploadKey: "files.chatAttachmentUpload:s:0123456789abcdef", uploadId: "upl-1")
        #expect(desktop.calls == ["files.chatAttachmentUpload:s:0123456789abcdef:cancel"])
    }

    @Test func aMissingFileIsAClearError() async throws {
        let uploader = AttachmentUploader(rpc: FakeUploadDesktop(), stagingDirectory: "/tmp")
        await #expect(
            throws: AttachmentUploadError.unreadable(path: "/nope/x.txt", reason: "it does not exist or cannot be read")
        ) {
            _ = try await uploader.upload(
                .init(path: "/nope/x.txt", fileName: "x.txt", mimeType: "text/plain"), to: chat)
        }
    }
}
