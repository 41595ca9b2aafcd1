import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

/// Seed 000 and SPEC §2 ("nothing lost"): a workspace message whose attachments cannot be
/// uploaded (the desktop is unreachable) is kept in the outbox with copies of its files, and
/// is sent exactly as text is when the desktop is back: uploads first, then the message with
/// the same ids, once; the copies are removed once the desktop acknowledged it.
@Suite("Workspace offline attachments", .timeLimit(.minutes(2)))
struct WorkspaceOfflineAttachmentTests {
    struct Phone {
        let outbox: WorkspaceOutbox
        let sender: WorkspaceOutboxSender
        let staging: WorkspaceOutboxStaging
    }

    /// A phone process on `store` whose staged copies live in `directory`.
    static func launch(
        store: any KeyValueStore, desktop: FakeStagedUploadDesktop, directory: URL, seed: UInt64 = 1
    ) throws -> Phone {
        let outbox = try WorkspaceOutbox(store: store)
        let staging = WorkspaceOutboxStaging(directory: directory.appendingPathComponent("outbox-attachments").path)
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ManualClock(),
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: seed)), now: { 1_764_400_000_000 },
            uploader: AttachmentUploader(rpc: desktop, stagingDirectory: directory.appendingPathComponent("png").path),
            staging: staging)
        return Phone(outbox: outbox, sender: sender, staging: staging)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    // MARK: The seed row, through the composer

    @MainActor
    @Test func offlineAttachmentsAreKeptAndSentUploadsFirst() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("report.txt")
        let original = "quarterly numbers\n"
        try Self.write(original, to: report)
        let desktop = FakeStagedUploadDesktop()
        desktop.reachable = false
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, directory: directory)
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        let composer = WorkspaceChatComposer(
            host: host, outbox: phone.outbox, sender: phone.sender,
            uploader: AttachmentUploader(rpc: desktop, stagingDirectory: directory.appendingPathComponent("png").path),
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 2)), now: { 1_764_400_000_000 })

        composer.attach(AttachmentUploader.File(path: report.path, fileName: "report.txt", mimeType: "text/plain"))
        await composer.waitForUploads()
        #expect(composer.attachments.map(\.canWaitInOutbox) == [true], "unreachable: it may wait")
        composer.draft = "See attached"
        let offline = await composer.send()
        guard case .failed? = offline else {
            Issue.record(
                "expected a failed attempt, got \(String(describing: offline)); notice \(composer.notice ?? "-")")
            return
        }
        #expect(composer.draft.isEmpty && composer.attachments.isEmpty, "the message left the composer")
        #expect(host.timeline.pending.count == 1, "shown as pending")
        let entry = try #require(await phone.outbox.pendingEntries(in: chatA).first)
        #expect(entry.mutation.attachments.isEmpty)
        let staged = try #require(entry.stagedAttachments.first)
        #expect(entry.stagedAttachments.count == 1)
        #expect(staged.fileName == "report.txt" && staged.mimeType == "text/plain")
        #expect(staged.size == Int64(original.utf8.count))
        #expect(staged.sha256 == SHA256Digest.hex(Array(original.utf8)))
        #expect(staged.stagedPath.hasPrefix(phone.staging.directory + "/"))
        #expect(FileManager.default.fileExists(atPath: staged.stagedPath))

        desktop.reachable = true
        await composer.retryUnaccepted()
        #expect(desktop.delivered.count == 1, "sent once")
        let submission = try #require(desktop.delivered.first)
        #expect(submission.callKey == entry.callKey, "the ids it was queued with")
        #expect(submission.text == "See attached")
        #expect(submission.attachments.count == 1)
        let uploadId = try #require(submission.attachments.first)
        #expect(desktop.bytes(ofUpload: uploadId) == Array(original.utf8))
        #expect(desktop.calls.last == submission.callKey, "uploads first, then the message")
        #expect(desktop.calls.dropLast().allSatisfy { $0.hasPrefix("files.chatAttachmentUpload:") })
        #expect(composer.deliveries.map(\.state) == [.accepted])
        #expect(!FileManager.default.fileExists(atPath: phone.staging.folder(of: entry.operationId)), "copies removed")
        await composer.close()
    }

    @MainActor
    @Test func theStagedCopyIsWhatArrivesWhenTheUsersFileChangesOrGoesAfterEnqueue() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        desktop.reachable = false
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, directory: directory)
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        let uploader = AttachmentUploader(rpc: desktop, stagingDirectory: directory.appendingPathComponent("png").path)
        let composer = WorkspaceChatComposer(
            host: host, outbox: phone.outbox, sender: phone.sender, uploader: uploader,
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 3)), now: { 1_764_400_000_000 })
        let changed = directory.appendingPathComponent("changed.txt")
        let deleted = directory.appendingPathComponent("deleted.txt")
        try Self.write("as it was when sent", to: changed)
        try Self.write("gone later", to: deleted)
        composer.attach(AttachmentUploader.File(path: changed.path, fileName: "changed.txt", mimeType: "text/plain"))
        composer.attach(AttachmentUploader.File(path: deleted.path, fileName: "deleted.txt", mimeType: "text/plain"))
        await composer.waitForUploads()
        #expect(await composer.send() != nil)

        try Self.write("edited afterwards, and longer than before", to: changed)
        try FileManager.default.removeItem(at: deleted)
        desktop.reachable = true
        await composer.retryUnaccepted()
        let submission = try #require(desktop.delivered.first)
        #expect(submission.attachments.count == 2)
        #expect(
            submission.attachments.map { desktop.bytes(ofUpload: $0) }
                == [Array("as it was when sent".utf8), Array("gone later".utf8)],
            "the copies taken at enqueue, in the order attached")
        await composer.close()
    }

    @MainActor
    @Test func aFileOverTheAttachmentLimitIsRefusedNamingTheLimit() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let big = directory.appendingPathComponent("big.bin")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(AttachmentUploader.maximumFileBytes) + 1)  // sparse
        try handle.close()
        let staging = WorkspaceOutboxStaging(directory: directory.appendingPathComponent("outbox").path)
        await #expect(
            throws: WorkspaceStagingError.tooLarge(
                fileName: "big.bin", size: AttachmentUploader.maximumFileBytes + 1,
                limit: AttachmentUploader.maximumFileBytes)
        ) {
            try await staging.stage(
                AttachmentUploader.File(path: big.path, fileName: "big.bin", mimeType: "application/octet-stream"),
                operationId: "op-1", index: 0)
        }
        let sentence = WorkspaceStagingError.tooLarge(
            fileName: "big.bin", size: AttachmentUploader.maximumFileBytes + 1,
            limit: AttachmentUploader.maximumFileBytes
        ).description
        #expect(sentence.contains("at most 1 GiB (1073741824 bytes), the attachment size limit"))
    }

    // MARK: Crashes between uploads

    enum CrashPoint: String, CaseIterable, Sendable {
        /// The first file is uploaded and its id saved; the phone dies as the second begins.
        case atTheSecondUploadsBegin
        /// The second upload has its first chunk on the desktop; the phone dies at the next.
        case inTheMiddleOfTheSecondUpload
        /// The first upload finished on the desktop; the phone dies before saving its id.
        case afterTheFirstFinishBeforeItsIdIsSaved
    }

    @Test("a crash between the uploads of a two-file message", arguments: CrashPoint.allCases)
    func aCrashBetweenUploadsRepeatsNoUploadFromZeroAndSendsOnce(at point: CrashPoint) async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = InMemoryKeyValueStore()
        let desktop = FakeStagedUploadDesktop(chunkSize: 4)
        let first = directory.appendingPathComponent("first.txt")
        let second = directory.appendingPathComponent("second.txt")
        try Self.write("first file, twelve chunks of four bytes each.  ", to: first)
        try Self.write("second file's bytes", to: second)

        // Process 1: the message is queued with both files staged, then dies mid-way.
        let store1 = FailingKeyValueStore(inner: disk)
        let phone1 = try Self.launch(store: store1, desktop: desktop, directory: directory, seed: 1)
        var entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-two-files", mutation: .init(mutationId: "mut-1", text: "Two files"),
            mode: .send, createdAt: 1)
        for (index, url) in [first, second].enumerated() {
            entry.stagedAttachments.append(
                try await phone1.staging.stage(
                    AttachmentUploader.File(path: url.path, fileName: url.lastPathComponent, mimeType: "text/plain"),
                    operationId: entry.operationId, index: index))
        }
        let keys = entry.stagedAttachments.map {
            AttachmentUploader.uploadKey(for: $0.file, size: $0.size, in: chatA)
        }
        switch point {
        case .atTheSecondUploadsBegin:
            desktop.crash(.at(callKey: AttachmentUploadKey.callKey(keys[1], .begin), phoneStore: store1))
        case .inTheMiddleOfTheSecondUpload:
            desktop.crash(.at(callKey: AttachmentUploadKey.callKey(keys[1], .chunk(1)), phoneStore: store1))
        case .afterTheFirstFinishBeforeItsIdIsSaved:
            desktop.crash(.after(callKey: AttachmentUploadKey.callKey(keys[0], .finish), phoneStore: store1))
        }
        let dying = try await phone1.sender.submit(entry)
        #expect(dying != .accepted)
        #expect(desktop.delivered.isEmpty)

        // Process 2: relaunch on what reached the disk and send what is pending.
        let phone2 = try Self.launch(store: disk, desktop: desktop, directory: directory, seed: 2)
        let reopened = try #require(await phone2.outbox.pendingEntries(in: chatA).first)
        switch point {
        case .atTheSecondUploadsBegin, .inTheMiddleOfTheSecondUpload:
            #expect(reopened.mutation.attachments == ["upl-1"], "the first upload's id was saved")
            #expect(reopened.stagedAttachments.map(\.fileName) == ["second.txt"])
        case .afterTheFirstFinishBeforeItsIdIsSaved:
            #expect(reopened.mutation.attachments.isEmpty)
            #expect(reopened.stagedAttachments.count == 2)
        }
        let results = try await phone2.sender.retryPending(in: chatA)
        #expect(results.map(\.outcome) == [.accepted])

        #expect(desktop.delivered.count == 1, "the message is sent once")
        let submission = try #require(desktop.delivered.first)
        #expect(submission.callKey == entry.callKey, "with the ids it was queued with")
        #expect(submission.attachments == ["upl-1", "upl-2"], "each file once, in order")
        #expect(desktop.bytes(ofUpload: "upl-1") == Array("first file, twelve chunks of four bytes each.  ".utf8))
        #expect(desktop.bytes(ofUpload: "upl-2") == Array("second file's bytes".utf8))
        let calls = desktop.calls
        for key in keys {
            let firstChunk = AttachmentUploadKey.callKey(key, .chunk(0))
            #expect(calls.filter { $0 == firstChunk }.count == 1, "\(firstChunk) is not sent again from zero")
        }
        let firstFileChunks = calls.filter { $0.hasPrefix(keys[0] + ":chunk:") }
        #expect(firstFileChunks.count == Set(firstFileChunks).count, "no chunk of the first file is sent twice")
        #expect(!FileManager.default.fileExists(atPath: phone2.staging.folder(of: entry.operationId)))
    }

    // MARK: Stored format

    @Test func anEntryKeepsItsStagedFilesAcrossALaunchAndThePreviousFormatStillReads() async throws {
        let store = InMemoryKeyValueStore()
        let staged = WorkspaceStagedAttachment(
            fileName: "a.txt", mimeType: "text/plain", size: 3, sha256: String(repeating: "ab", count: 32),
            stagedPath: "/data/outbox/op-1/0")
        let outbox = try WorkspaceOutbox(store: store)
        let entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-1", mutation: .init(mutationId: "m-1", text: "x", attachments: ["upl-0"]),
            mode: .send, createdAt: 5, stagedAttachments: [staged])
        try await outbox.enqueue(entry)
        let relaunched = try WorkspaceOutbox(store: store)
        #expect(await relaunched.pendingEntries(in: chatA) == [entry])
        #expect(await relaunched.loadProblems.isEmpty)

        let previous = Self.document(
            entry:
                #"{"operationId":"op-1","status":"queued","acceptedByDesktop":false,"mutation":{"mutationId":"m-1","text":"x","attachments":[]},"mode":{"kind":"send"},"createdAt":5}"#
        )
        let old = InMemoryKeyValueStore()
        try old.set(Array(previous.utf8), forKey: WorkspaceOutbox.storageKey)
        let fromOld = try WorkspaceOutbox(store: old)
        #expect(await fromOld.loadProblems.isEmpty)
        #expect(await fromOld.pendingEntries(in: chatA).map(\.stagedAttachments) == [[]])
    }

    @Test(
        "a staged attachment that breaks the format is reported, not guessed",
        arguments: [
            #"[]"#,
            #"[{"fileName":"a","mimeType":"text/plain","size":3,"sha256":"AB","stagedPath":"/x/0"}]"#,
            #"[{"fileName":"a","mimeType":"text/plain","size":3,"sha256":"\#(String(repeating: "0", count: 64))","stagedPath":"relative/0"}]"#,
            #"[{"fileName":"a","mimeType":"text/plain","size":-1,"sha256":"\#(String(repeating: "0", count: 64))","stagedPath":"/x/0"}]"#,
            #"[{"fileName":"a","mimeType":"text/plain","size":3,"sha256":"\#(String(repeating: "0", count: 64))","stagedPath":"/x/0","extra":1}]"#,
        ])
    func strictStagedAttachments(staged: String) async throws {
        let store = InMemoryKeyValueStore()
        let text = Self.document(
            entry:
                #"{"operationId":"op-1","status":"queued","acceptedByDesktop":false,"mutation":{"mutationId":"m-1","text":"x","attachments":[]},"mode":{"kind":"send"},"createdAt":5,"stagedAttachments":"#
                + staged + "}")
        try store.set(Array(text.utf8), forKey: WorkspaceOutbox.storageKey)
        let outbox = try WorkspaceOutbox(store: store)
        let problems = await outbox.loadProblems
        #expect(problems.count == 1)
        #expect(problems.first?.contains("stagedAttachments") == true)
    }

    private static func document(entry: String) -> String {
        #"{"version":2,"generation":1,"scopes":[{"desktopId":"desk-1","projectId":"app","sessionId":"a","order":["op-1"],"operations":{"op-1":{"state":"pending","entry":"#
            + entry + "}}}]}"
    }
}
