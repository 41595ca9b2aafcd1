import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// What the outbox must refuse or keep when attachments wait with their message: more copies
/// than an entry may keep, temporary read errors, staged paths outside the entry's folder, and
/// folders no entry owns.
@Suite("Workspace offline attachment limits", .timeLimit(.minutes(2)))
struct WorkspaceOfflineAttachmentLimitsTests {
    // MARK: More attachments than an entry keeps

    @MainActor
    @Test func moreWaitingAttachmentsThanAnEntryKeepsAreRefusedBeforeAnythingIsStaged() async throws {
        let directory = try WorkspaceOfflineAttachmentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let desktop = FakeStagedUploadDesktop()
        desktop.reachable = false
        let store = InMemoryKeyValueStore()
        let phone = try WorkspaceOfflineAttachmentTests.launch(store: store, desktop: desktop, directory: directory)
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        let composer = WorkspaceChatComposer(
            host: host, outbox: phone.outbox, sender: phone.sender,
            uploader: AttachmentUploader(rpc: desktop, stagingDirectory: directory.appendingPathComponent("png").path),
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 2)), now: { 1_764_400_000_000 })
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
}
