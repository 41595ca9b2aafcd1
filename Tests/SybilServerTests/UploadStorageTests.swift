import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire
import Testing

@testable import SybilServer

/// Uploads on disk: the bytes of an Agent upload and of workspace chunks go to files as they
/// arrive, a file moves into place (flushed, renamed) before its row says it exists, a crash at
/// any step leaves no partial upload visible and what a start-up removes, and an answered
/// upload is read back after the store is opened again. In memory (`--in-memory`) uploads stay
/// within one bound. A crash is simulated as in the other stores' tests: the first server is
/// never shut down (its open files and state stay as they were) and a second opens the same
/// directory, or a store's step hook throws where the crash comes.
@Suite("Reference server: uploads on disk and in memory", .timeLimit(.minutes(2)))
struct UploadStorageTests {
    struct SimulatedCrash: Error {}

    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    /// A fresh storage directory, removed afterwards.
    private func withDirectory(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-uploads-\(UUID())").path
        try AtomicFile.createDirectory(path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await body(path)
    }

    private func names(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    private func fileSize(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
    }

    private static func bytes(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }
    }

    private static func uploadHead(_ form: MultipartFormData) -> HTTPRequestHead {
        HTTPRequestHead(
            method: "POST", target: "/agent/uploads", minorVersion: 1,
            headers: HTTPHeaders([("Content-Type", form.contentType), ("Authorization", "Bearer \(AppHarness.token)")]))
    }

    // MARK: Agent room

    @Test func anAgentUploadsBytesGoToDiskAsTheyArriveAndACrashMidUploadLeavesNothingVisible() async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + AgentRoomStore.uploadsFolderName
            let first = try AppHarness { $0.storage = .directory(directory) }
            let file = Self.bytes(3 << 20)
            let form = AppHarness.uploadForm(
                id: "u-crash", bytes: file, name: "big.bin", type: "application/octet-stream")
            let body = form.encoded()
            var consumer = try #require(first.app.bodyConsumer(for: Self.uploadHead(form)))
            try consumer.consume(Array(body[..<(2 << 20)]))
            // Two MiB of the body arrived: the file's bytes among them are on disk already.
            let spooled = names(folder)
            #expect(spooled.count == 1 && spooled[0].hasPrefix(AgentRoomStore.temporaryPrefix), "\(spooled)")
            let onDisk = try fileSize(folder + "/" + spooled[0])
            #expect(onDisk > (2 << 20) - 1024 && onDisk <= 2 << 20, "\(onDisk) bytes on disk")

            // The crash: the first server stops here, its consumer never finished; a second
            // server starts on the same directory.
            let second = try AppHarness { $0.storage = .directory(directory) }
            #expect(names(folder).isEmpty, "the temporary file of the interrupted upload is removed at start")
            #expect(await second.send("GET", "/agent/uploads/u-crash/original").status == 404)
            let unknown = await second.submit("r-1", text: "see file", attachments: ["u-crash"])
            #expect(unknown.status == 400)
            #expect(try APIErrorBody.decode(json(unknown), at: .root).code == "unknown_upload")
            // Sent again, it is stored.
            #expect(
                await second.sendStreamed(
                    "POST", "/agent/uploads", body: body, headers: [("Content-Type", form.contentType)]
                ).response.status == 201)
            #expect(await second.send("GET", "/agent/uploads/u-crash/original").bodyBytes == file)
            withExtendedLifetime((first, consumer)) {}
        }
    }

    @Test(
        "a crash at any step of moving an Agent upload's file into place leaves no upload, and the retry stores it",
        arguments: SpoolFile.Step.allCases)
    func aCrashWhileAnAgentUploadMovesIntoPlace(step: SpoolFile.Step) async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + AgentRoomStore.uploadsFolderName
            let file = Self.bytes(100_000)
            let descriptor = AgentAttachment(
                uploadId: "..", fileName: "a.bin", mimeType: "application/octet-stream", size: 100_000,
                sha256: SHA256Digest.hex(file))
            let crashing = try AgentRoomStore(.directory(directory)) { reached in
                if reached == .uploadFile(step) { throw SimulatedCrash() }
            }
            let spool = crashing.spool(param: "file")
            try spool.append(file)
            await #expect(throws: SimulatedCrash.self) {
                try await crashing.storeUpload(descriptor, file: spool, createdAt: 1, quotaBytes: 1 << 30) {}
            }
            #expect(names(folder).count == 1, "what the crash left: \(names(folder))")

            let reopened = try AgentRoomStore(.directory(directory))
            #expect(names(folder).isEmpty, "after \(step)")
            #expect(try await reopened.descriptor("..") == nil)
            let again = reopened.spool(param: "file")
            try again.append(file)
            let (_, created) = try await reopened.storeUpload(
                descriptor, file: again, createdAt: 2, quotaBytes: 1 << 30
            ) {}
            #expect(created)
            #expect(try await reopened.upload("..")?.bytes == file)
            #expect(names(folder) == [AgentRoomStore.fileName(for: "..")])
            withExtendedLifetime(crashing) {}
        }
    }

    @Test(arguments: [false, true])
    func anAnsweredAgentUploadIsReadBackAfterTheStoreIsOpenedAgain(raw: Bool) async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + AgentRoomStore.uploadsFolderName
            let first = try AppHarness { $0.storage = .directory(directory) }
            let file = Self.bytes(1_000_000, seed: 7)
            let created: HTTPServerResponse
            if raw {
                created = await first.sendStreamed(
                    "POST", "/agent/uploads", body: file,
                    headers: [
                        ("X-Upload-Id", "u-kept"), ("X-File-Name", "kept.bin"),
                        ("Content-Type", "application/octet-stream"),
                    ]
                ).response
            } else {
                let form = AppHarness.uploadForm(
                    id: "u-kept", bytes: file, name: "kept.bin", type: "application/octet-stream")
                created = await first.sendStreamed(
                    "POST", "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)]
                ).response
            }
            #expect(created.status == 201)
            #expect(names(folder) == [AgentRoomStore.fileName(for: "u-kept")])

            // The first server is never shut down: a second opens the same files, as after a crash.
            let second = try AppHarness { $0.storage = .directory(directory) }
            let original = await second.send("GET", "/agent/uploads/u-kept/original")
            #expect(original.status == 200)
            #expect(original.bodyBytes == file)
            #expect(original.headers["X-Content-SHA256"] == SHA256Digest.hex(file))
            #expect(names(folder) == [AgentRoomStore.fileName(for: "u-kept")])
            withExtendedLifetime(first) {}
        }
    }

    @Test func anAbandonedOrRefusedAgentUploadLeavesNoFile() async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + AgentRoomStore.uploadsFolderName
            let harness = try AppHarness { $0.storage = .directory(directory) }
            let form = AppHarness.uploadForm(
                id: "u-left", bytes: Self.bytes(200_000), name: "a.bin", type: "text/plain")
            do {
                // A client that leaves mid-body (or stalls past the body timeouts): the
                // transport drops its consumer.
                var consumer = try #require(harness.app.bodyConsumer(for: Self.uploadHead(form)))
                try consumer.consume(Array(form.encoded()[..<100_000]))
                #expect(names(folder).count == 1)
            }
            #expect(names(folder).isEmpty)
            // Refused after the body: a PNG that is not one, and a retry with other bytes.
            let fake = AppHarness.uploadForm(id: "u-png", bytes: Self.bytes(90_000), name: "a.png", type: "image/png")
            let refused = await harness.sendStreamed(
                "POST", "/agent/uploads", body: fake.encoded(), headers: [("Content-Type", fake.contentType)])
            #expect(refused.response.status == 400)
            #expect(names(folder).isEmpty)
            #expect(await harness.uploadRaw(id: "u-1", bytes: [1, 2, 3]).status == 201)
            #expect(await harness.uploadRaw(id: "u-1", bytes: [1, 2, 3]).status == 200)
            #expect(await harness.uploadRaw(id: "u-1", bytes: [1, 2, 4]).status == 409)
            #expect(names(folder) == [AgentRoomStore.fileName(for: "u-1")])
        }
    }

    @Test func aJPEGWhoseFrameHeaderIsPastTheFirstBytesIsCheckedFromTheFile() async throws {
        try await withDirectory { directory in
            let harness = try AppHarness { $0.storage = .directory(directory) }
            // SOI, two APP1 segments of 65,535 bytes each, then a frame header of 40 × 30 px.
            var jpeg: [UInt8] = [0xFF, 0xD8]
            for _ in 0..<2 { jpeg += [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 65_533) }
            jpeg += [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 30, 0x00, 40, 0x03] + [UInt8](repeating: 0, count: 9)
            #expect(jpeg.count > UploadSpool.headBytes)
            let form = AppHarness.uploadForm(id: "u-jpeg", bytes: jpeg, name: "a.jpg", type: "image/jpeg")
            let stored = await harness.sendStreamed(
                "POST", "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)])
            #expect(stored.response.status == 201)
        }
    }

    // MARK: Workspace desktop

    private static let chatParams = AppHarness.chatParams

    private func begin(_ harness: AppHarness, key: String, size: Int) async throws -> String {
        let answer = await harness.rpc(
            "files.chatAttachmentUpload",
            #"{\#(Self.chatParams), "fileName": "f.bin", "mimeType": "application/octet-stream", "path": "/tmp/f.bin", "size": \#(size)}"#,
            callKey: "\(key):begin")
        return try #require(try json(answer)["result"]?["uploadId"]?.string)
    }

    private func chunk(_ harness: AppHarness, key: String, _ uploadId: String, _ index: Int, _ bytes: ArraySlice<UInt8>)
        async -> HTTPServerResponse
    {
        await harness.rpc(
            "files.chatAttachmentUpload",
            #"{"uploadId": "\#(uploadId)", "index": \#(index), "data": "\#(Data(bytes).base64EncodedString())"}"#,
            callKey: "\(key):chunk:\(index)")
    }

    private func finish(_ harness: AppHarness, key: String, _ uploadId: String, chunks: Int) async -> HTTPServerResponse
    {
        await harness.rpc(
            "files.chatAttachmentUpload", #"{"uploadId": "\#(uploadId)", "chunkCount": \#(chunks)}"#,
            callKey: "\(key):finish")
    }

    @Test func anAnsweredChunkSurvivesACrashAndTheUploadResumesAndFinishesIntoPlace() async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + WorkspaceUploadStore.uploadsFolderName
            let key = "files.chatAttachmentUpload:sess-42:0123456789abcdef"
            let file = Self.bytes((1 << 20) + 5, seed: 3)
            let first = try AppHarness { $0.storage = .directory(directory) }
            let uploadId = try await begin(first, key: key, size: file.count)
            #expect(await chunk(first, key: key, uploadId, 0, file[..<(1 << 20)]).status == 200)
            let part = WorkspaceUploadStore.fileName(for: uploadId) + WorkspaceUploadStore.partSuffix
            #expect(names(folder) == [part])

            // The first server is never shut down: a second opens the same files, as after a crash.
            let second = try AppHarness { $0.storage = .directory(directory) }
            let resumed = try json(
                await second.rpc(
                    "files.chatAttachmentUpload",
                    #"{\#(Self.chatParams), "fileName": "f.bin", "mimeType": "application/octet-stream", "path": "/tmp/f.bin", "size": \#(file.count)}"#,
                    callKey: "\(key):begin"))["result"]
            #expect(resumed?["uploadId"]?.string == uploadId)
            #expect(resumed?["receivedChunks"]?.int == 1)
            #expect(await chunk(second, key: key, uploadId, 1, file[(1 << 20)...]).status == 200)
            let finished = try json(await finish(second, key: key, uploadId, chunks: 2))["result"]
            #expect(finished?["sha256"]?.string == SHA256Digest.hex(file))
            #expect(names(folder) == [WorkspaceUploadStore.fileName(for: uploadId)])

            // Finished and answered: read back whole after another start.
            let third = try WorkspaceUploadStore(.directory(directory))
            #expect(try await third.upload(id: uploadId)?.state == .finished)
            #expect(try await third.bytes(of: uploadId) == file)
            withExtendedLifetime((first, second)) {}
        }
    }

    private func openUpload(_ store: WorkspaceUploadStore, id: String, size: Int) async throws {
        try await store.createUpload(
            .init(
                uploadId: id, uploadKey: "files.chatAttachmentUpload:sess-42:\(id)", chat: Self.chat, fileName: "f.bin",
                mimeType: "application/octet-stream", path: "f.bin", size: Int64(size), chunkSize: 4, state: .open,
                sha256: nil))
    }

    @Test func aCrashAfterAChunksBytesAndBeforeItsRowLeavesItToBeSentAgain() async throws {
        try await withDirectory { directory in
            _ = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
            let crashing = try WorkspaceUploadStore(.directory(directory)) { step in
                if step == .chunkWritten { throw SimulatedCrash() }
            }
            try await openUpload(crashing, id: "upl-c", size: 6)
            await #expect(throws: SimulatedCrash.self) {
                _ = try await crashing.storeChunk("upl-c", index: 1, bytes: [5, 6])
            }
            let reopened = try WorkspaceUploadStore(.directory(directory))
            #expect(try await reopened.receivedChunks("upl-c").indices.isEmpty)
            #expect(try await reopened.storeChunk("upl-c", index: 1, bytes: [5, 6]) == .stored)
            #expect(try await reopened.storeChunk("upl-c", index: 0, bytes: [1, 2, 3, 4]) == .stored)
            #expect(try await reopened.finishUpload("upl-c") == SHA256Digest.hex([1, 2, 3, 4, 5, 6]))
            withExtendedLifetime(crashing) {}
        }
    }

    @Test(
        "a crash at any step of finishing a workspace upload leaves it open, and finishing again completes it",
        arguments: SpoolFile.Step.allCases)
    func aCrashWhileAWorkspaceUploadFinishes(step: SpoolFile.Step) async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + WorkspaceUploadStore.uploadsFolderName
            _ = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
            let crashing = try WorkspaceUploadStore(.directory(directory)) { reached in
                if reached == .finish(step) { throw SimulatedCrash() }
            }
            try await openUpload(crashing, id: "upl-f", size: 6)
            #expect(try await crashing.storeChunk("upl-f", index: 1, bytes: [5, 6]) == .stored)
            #expect(try await crashing.storeChunk("upl-f", index: 0, bytes: [1, 2, 3, 4]) == .stored)
            await #expect(throws: SimulatedCrash.self) { _ = try await crashing.finishUpload("upl-f") }

            let reopened = try WorkspaceUploadStore(.directory(directory))
            let name = WorkspaceUploadStore.fileName(for: "upl-f")
            #expect(try await reopened.upload(id: "upl-f")?.state == .open, "after \(step)")
            #expect(names(folder) == [name + WorkspaceUploadStore.partSuffix], "after \(step)")
            #expect(try await reopened.receivedChunks("upl-f").indices == [0, 1])
            #expect(try await reopened.finishUpload("upl-f") == SHA256Digest.hex([1, 2, 3, 4, 5, 6]))
            #expect(names(folder) == [name])
            #expect(try await reopened.bytes(of: "upl-f") == [1, 2, 3, 4, 5, 6])
            withExtendedLifetime(crashing) {}
        }
    }

    @Test func filesNoUploadOwnsAreRemovedAtStartAndACancelledUploadsFileGoesAtOnce() async throws {
        try await withDirectory { directory in
            let folder = directory + "/" + WorkspaceUploadStore.uploadsFolderName
            _ = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
            let store = try WorkspaceUploadStore(.directory(directory))
            try await openUpload(store, id: "upl-x", size: 8)
            #expect(try await store.storeChunk("upl-x", index: 0, bytes: [1, 2, 3, 4]) == .stored)
            try await store.cancelUpload("upl-x")
            #expect(names(folder).isEmpty)
            // What a crash between a cancel's row and its file's removal, or a rename of a file no
            // row ever named, leaves; and a file that is not the store's.
            let gone = WorkspaceUploadStore.fileName(for: "upl-x")
            let stray = WorkspaceUploadStore.fileName(for: "upl-never")
            for name in [gone + WorkspaceUploadStore.partSuffix, stray, "notes.txt"] {
                try AtomicFile.write([9], to: folder + "/" + name)
            }
            _ = try WorkspaceUploadStore(.directory(directory))
            #expect(names(folder) == ["notes.txt"])
        }
    }

    // MARK: In memory

    @Test func anInMemoryUploadWhoseRowFailedGivesItsBytesBack() async throws {
        let budget = UploadMemoryBudget(capacity: 100)
        let failOnce = Locked(true)
        let store = try AgentRoomStore(
            .inMemory,
            failing: { step in
                if step == .uploadRow, failOnce.withLock({ $0 }) {
                    failOnce.withLock { $0 = false }
                    throw SimulatedCrash()
                }
            }, budget: budget)
        let file = Self.bytes(60)
        let descriptor = AgentAttachment(
            uploadId: "u-60", fileName: "a.bin", mimeType: "application/octet-stream", size: 60,
            sha256: SHA256Digest.hex(file))
        do {
            let spool = store.spool(param: "file")
            try spool.append(file)
            #expect(budget.usedBytes == 60)
            await #expect(throws: SimulatedCrash.self) {
                try await store.storeUpload(descriptor, file: spool, createdAt: 1, quotaBytes: 1 << 30) {}
            }
        }
        // The refused spool is gone: its 60 bytes are free again, so the retry fits.
        #expect(budget.usedBytes == 0)
        let again = store.spool(param: "file")
        try again.append(file)
        let (_, created) = try await store.storeUpload(descriptor, file: again, createdAt: 2, quotaBytes: 1 << 30) {}
        #expect(created)
        #expect(budget.usedBytes == 60)
        #expect(try await store.upload("u-60")?.bytes == file)
    }

    @Test func inMemoryUploadsOfBothSurfacesStayWithinOneBoundNamingTheField() async throws {
        let harness = try AppHarness { $0.memoryUploadBytes = 100 }
        let refusedAgent = await harness.uploadMultipart(id: "u-big", bytes: Self.bytes(101))
        #expect(refusedAgent.status == 507)
        let agentError = try APIErrorBody.decode(json(refusedAgent), at: .root)
        #expect(agentError.code == "storage_full")
        #expect(agentError.param == "file")
        let refusedRaw = await harness.uploadRaw(id: "u-big", bytes: Self.bytes(101))
        #expect(try APIErrorBody.decode(json(refusedRaw), at: .root).param == "body")
        // A refused upload gives its bytes back: 60 fit, then 40 more, then nothing.
        #expect(await harness.uploadMultipart(id: "u-60", bytes: Self.bytes(60)).status == 201)

        let key = "files.chatAttachmentUpload:sess-42:00000000000000aa"
        let uploadId = try await begin(harness, key: key, size: 41)
        let over = await chunk(harness, key: key, uploadId, 0, Self.bytes(41)[...])
        #expect(over.status == 507)
        let overError = try APIErrorBody.decode(json(over), at: .root)
        #expect(overError.code == "storage_full")
        #expect(overError.param == "params.data")
        // A cancelled upload gives its chunks' bytes back.
        let other = "files.chatAttachmentUpload:sess-42:00000000000000bb"
        let small = try await begin(harness, key: other, size: 40)
        #expect(await chunk(harness, key: other, small, 0, Self.bytes(40)[...]).status == 200)
        #expect(await harness.uploadRaw(id: "u-1", bytes: [1]).status == 507)
        _ = await harness.rpc("files.chatAttachmentUpload", #"{"uploadId": "\#(small)"}"#, callKey: "\(other):cancel")
        #expect(await harness.uploadRaw(id: "u-1", bytes: [1]).status == 201)
    }
}

extension WorkspaceUploadStore {
    /// The upload's bytes, read whole (tests; the store itself never holds a file whole).
    func bytes(of uploadId: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachPiece(of: uploadId) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
