import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

/// What the outbox must refuse or keep when attachments wait with their message: more copies
/// than an entry may keep, temporary read errors, staged paths outside the entry's folder, and
/// folders no entry owns.
@Suite("Workspace offline attachment limits", .timeLimit(.minutes(2)))
struct WorkspaceOfflineAttachmentLimitsTests {
    /// A composer for `phone`'s outbox and sender over a host of chat A that loads nothing.
    @MainActor
    static func composer(
        for phone: WorkspaceOfflineAttachmentTests.Phone, uploader: AttachmentUploader? = nil
    ) -> WorkspaceChatComposer {
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        return WorkspaceChatComposer(
            host: host, outbox: phone.outbox, sender: phone.sender, uploader: uploader,
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 2)), now: { 1_764_400_000_000 })
    }

    // MARK: More attachments than an entry keeps

    @MainActor
    @Test func moreWaitingAttachmentsThanAnEntryKeepsAreRefusedBeforeAnythingIsStaged() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        desktop.reachable = false
        let store = InMemoryKeyValueStore()
        let phone = try WorkspaceOfflineAttachmentTests.launch(store: store, desktop: desktop, directory: directory)
        let composer = Self.composer(
            for: phone,
            uploader: AttachmentUploader(rpc: desktop, stagingDirectory: directory.appendingPathComponent("png").path))
        let limit = WorkspaceOutboxEntry.maximumStagedAttachments
        for index in 0...limit {
            let file = directory.appendingPathComponent("f\(index).txt")
            try WorkspaceOfflineAttachmentTests.write("file \(index)", to: file)
            composer.attach(AttachmentUploader.File(path: file.path, fileName: "f\(index).txt", mimeType: "text/plain"))
        }
        await composer.waitForUploads()
        composer.draft = "Many files"
        #expect(await composer.send() == nil)
        #expect(
            composer.notice?.contains("at most \(limit) can wait in the outbox") == true, "\(composer.notice ?? "-")")
        #expect(composer.draft == "Many files", "the draft stays")
        #expect(composer.attachments.count == limit + 1)
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty, "nothing saved")
        #expect(!FileManager.default.fileExists(atPath: phone.staging.directory), "nothing staged")
        await composer.close()
    }

    @Test func theOutboxRefusesToSaveAnEntryThatWouldNotReadBack() async throws {
        let store = InMemoryKeyValueStore()
        let outbox = try WorkspaceOutbox(store: store)
        let limit = WorkspaceOutboxEntry.maximumStagedAttachments
        let staged = (0...limit).map { index in
            WorkspaceStagedAttachment(
                fileName: "f\(index)", mimeType: "text/plain", size: 1, sha256: String(repeating: "0", count: 64),
                stagedPath: "/data/outbox/op-1/\(index)")
        }
        let entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-1", mutation: .init(mutationId: "m-1", text: "x"), mode: .send,
            createdAt: 1, stagedAttachments: staged)
        await #expect(throws: WorkspaceOutboxError.tooManyStagedAttachments(count: limit + 1, limit: limit)) {
            try await outbox.enqueue(entry)
        }
        #expect(await outbox.pendingEntries(in: chatA).isEmpty)
        let relaunched = try WorkspaceOutbox(store: store)
        #expect(await relaunched.loadProblems.isEmpty)
    }

    // MARK: Damage and temporary read errors

    /// A message queued with one staged copy of `text`, through the sender while unreachable.
    static func queued(
        _ text: String, phone: WorkspaceOfflineAttachmentTests.Phone, directory: URL, desktop: FakeStagedUploadDesktop
    ) async throws -> WorkspaceOutboxEntry {
        let file = directory.appendingPathComponent("notes.txt")
        try WorkspaceOfflineAttachmentTests.write(text, to: file)
        var entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-notes", mutation: .init(mutationId: "mut-1", text: "See notes"),
            mode: .send, createdAt: 1)
        entry.stagedAttachments.append(
            try await phone.staging.stage(
                AttachmentUploader.File(path: file.path, fileName: "notes.txt", mimeType: "text/plain"),
                operationId: entry.operationId, index: 0))
        desktop.reachable = false
        let offline = try await phone.sender.submit(entry)
        #expect(offline != .accepted)
        desktop.reachable = true
        return entry
    }

    @Test func aStagedCopyThatCannotBeReadForAnotherReasonThanMissingHoldsTheMessage() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        let phone = try WorkspaceOfflineAttachmentTests.launch(
            store: InMemoryKeyValueStore(), desktop: desktop, directory: directory)
        let entry = try await Self.queued("the notes", phone: phone, directory: directory, desktop: desktop)
        let copy = try #require(entry.stagedAttachments.first).stagedPath
        let kept = directory.appendingPathComponent("kept-copy").path
        // Reading a directory fails with EISDIR: an I/O error, not a missing copy (tests run
        // as root, so permissions cannot make the copy unreadable).
        try FileManager.default.moveItem(atPath: copy, toPath: kept)
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)

        let results = try await phone.sender.retryPending(in: chatA)
        guard case .failed(let reason)? = results.first?.outcome else {
            Issue.record("expected the message to be held, got \(results.map(\.outcome))")
            return
        }
        #expect(reason.contains("tried again later"), "\(reason)")
        let held = try #require(await phone.outbox.pendingEntries(in: chatA).first)
        #expect(held.operationId == entry.operationId && held.status == .awaitingRetry)
        #expect(held.stagedAttachments == entry.stagedAttachments, "its copy is still waiting")
        #expect(desktop.delivered.isEmpty)

        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.moveItem(atPath: kept, toPath: copy)
        let retried = try await phone.sender.retryPending(in: chatA)
        #expect(retried.map(\.outcome) == [.accepted])
        #expect(desktop.delivered.map(\.callKey) == [entry.callKey], "sent once, with its ids")
    }

    @MainActor
    @Test func aMissingStagedCopyDiscardsTheMessageWithoutBlamingTheDesktop() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        let phone = try WorkspaceOfflineAttachmentTests.launch(
            store: InMemoryKeyValueStore(), desktop: desktop, directory: directory)
        let entry = try await Self.queued("the notes", phone: phone, directory: directory, desktop: desktop)
        try FileManager.default.removeItem(atPath: try #require(entry.stagedAttachments.first).stagedPath)
        let composer = Self.composer(for: phone)
        await composer.restore()
        #expect(composer.draft == "See notes", "the text comes back")
        let notice = try #require(composer.notice)
        #expect(notice.contains("could not be sent from this device") && notice.contains("is missing"), "\(notice)")
        #expect(!notice.contains("The desktop did not take"), "\(notice)")
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
        #expect(desktop.delivered.isEmpty)
        await composer.close()
    }

    // MARK: Staged paths read back from disk

    enum Tampering: String, CaseIterable, Sendable {
        /// The stored path names a file elsewhere.
        case pathElsewhere
        /// The stored path climbs out of the entry's folder.
        case dotDot
        /// The stored path names another entry's folder.
        case anotherEntrysFolder
        /// The path is right, but the copy is a symbolic link to the file.
        case symlinkedCopy
        /// The path is right, but the entry's folder is a symbolic link to the file's folder.
        case symlinkedFolder
    }

    @Test("a stored path that is not the entry's own copy sets the entry aside", arguments: Tampering.allCases)
    func aTamperedStagedPathUploadsNothingAndSetsTheEntryAside(_ tampering: Tampering) async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        let store = InMemoryKeyValueStore()
        let phone = try WorkspaceOfflineAttachmentTests.launch(store: store, desktop: desktop, directory: directory)
        let secrets = directory.appendingPathComponent("secrets")
        try FileManager.default.createDirectory(at: secrets, withIntermediateDirectories: true)
        let secret = secrets.appendingPathComponent("0")
        let bytes = Array("private key".utf8)
        try Data(bytes).write(to: secret)
        let folder = phone.staging.folder(of: "op-evil")
        let path: String
        switch tampering {
        case .pathElsewhere: path = secret.path
        case .dotDot: path = folder + "/../../secrets/0"
        case .anotherEntrysFolder:
            path = phone.staging.folder(of: "op-other") + "/0"
            try FileManager.default.createDirectory(
                atPath: phone.staging.folder(of: "op-other"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: secret.path, toPath: path)
        case .symlinkedCopy:
            path = folder + "/0"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: secret.path)
        case .symlinkedFolder:
            path = folder + "/0"
            try FileManager.default.createDirectory(atPath: phone.staging.directory, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: secrets.path)
        }
        let entry = WorkspaceOutboxEntry(
            chat: chatA, operationId: "op-evil", mutation: .init(mutationId: "mut-1", text: "Innocent"), mode: .send,
            createdAt: 1,
            stagedAttachments: [
                WorkspaceStagedAttachment(
                    fileName: "a.txt", mimeType: "text/plain", size: Int64(bytes.count),
                    sha256: SHA256Digest.hex(bytes), stagedPath: path)
            ])
        try await phone.outbox.enqueue(entry)

        let results = try await phone.sender.retryPending(in: chatA)
        guard case .discarded(let reason)? = results.first?.outcome else {
            Issue.record("expected the entry to be set aside, got \(results.map(\.outcome))")
            return
        }
        #expect(reason.contains("not inside the outbox's folder") && reason.contains(WorkspaceOutbox.asideKey))
        #expect(desktop.calls.isEmpty, "nothing uploaded, nothing sent")
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
        let aside = try #require(try store.data(forKey: WorkspaceOutbox.asideKey))
        #expect(String(decoding: aside, as: UTF8.self).contains("op-evil"), "the entry is kept aside")
        #expect(FileManager.default.fileExists(atPath: secret.path), "the named file is left alone")
    }

    // MARK: Orphaned staging folders

    @MainActor
    @Test func copiesNoEntryOwnsAreRemovedWhenTheSenderStartsAndNothingElse() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        desktop.reachable = false
        let store = InMemoryKeyValueStore()
        let first = try WorkspaceOfflineAttachmentTests.launch(store: store, desktop: desktop, directory: directory)
        let kept = try await Self.queued("kept", phone: first, directory: directory, desktop: desktop)
        desktop.reachable = false
        let root = first.staging.directory
        let manager = FileManager.default
        // A crash between staging and saving, and one between acceptance and removal.
        for orphan in ["op-crashed-before-save", "op-accepted-then-crashed"] {
            try manager.createDirectory(atPath: root + "/" + orphan, withIntermediateDirectories: true)
            try Data("copy".utf8).write(to: URL(fileURLWithPath: root + "/" + orphan + "/0"))
        }
        let outside = directory.appendingPathComponent("outside")
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: outside.appendingPathComponent("0"))
        try manager.createSymbolicLink(atPath: root + "/op-link", withDestinationPath: outside.path)
        try manager.createDirectory(atPath: root + "/not an id", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/op-plain-file"))

        let relaunched = try WorkspaceOfflineAttachmentTests.launch(
            store: store, desktop: desktop, directory: directory)
        let composer = Self.composer(for: relaunched)
        await composer.restore()
        let left = Set(try manager.contentsOfDirectory(atPath: root))
        let keptName = String(relaunched.staging.folder(of: kept.operationId).dropFirst(root.count + 1))
        #expect(left == [keptName, "op-link", "not an id", "op-plain-file"], "\(left)")
        #expect(manager.fileExists(atPath: outside.appendingPathComponent("0").path), "a link is never followed")
        #expect(await relaunched.outbox.pendingEntries(in: chatA).map(\.operationId) == [kept.operationId])
        #expect(await relaunched.sender.removeOrphanedCopies().isEmpty, "once per sender")
        await composer.close()
    }

    @Test func aMessageBeingStagedInThisProcessIsNotSwept() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        let phone = try WorkspaceOfflineAttachmentTests.launch(
            store: InMemoryKeyValueStore(), desktop: desktop, directory: directory)
        let file = directory.appendingPathComponent("a.txt")
        try WorkspaceOfflineAttachmentTests.write("a", to: file)
        _ = try await phone.staging.stage(
            AttachmentUploader.File(path: file.path, fileName: "a.txt", mimeType: "text/plain"),
            operationId: "op-not-saved-yet", index: 0)
        #expect(await phone.sender.removeOrphanedCopies().isEmpty)
        #expect(await phone.staging.hasCopies(of: "op-not-saved-yet"))
    }
}
