import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire
import Testing

@testable import SybilServer

/// A workspace upload whose finish fails after its file was renamed into place (the directory's
/// flush failed, or the row's update did: a full or failing disk) stays open, and finishing it
/// again on the same running server completes it: the store does not need a restart to find
/// the file it renamed.
@Suite("Reference server: finishing a workspace upload again after a failed finish", .timeLimit(.minutes(1)))
struct UploadFinishRetryTests {
    struct DiskFailure: Error {}

    private static let chat = WorkspaceChatKey(desktopId: "desk-1", projectId: "proj-app", sessionId: "sess-42")

    @Test(
        "a finish that fails after the rename can be finished again without a restart",
        arguments: [SpoolFile.Step.renamed, .syncedDirectory])
    func aFinishThatFailedAfterTheRenameFinishesWhenAskedAgain(step: SpoolFile.Step) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-finish-\(UUID())").path
        try AtomicFile.createDirectory(directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try WorkspaceStore(.directory(directory), agent: ScriptedAgent(seed: 1), now: 1)
        let failOnce = Locked(true)
        let store = try WorkspaceUploadStore(.directory(directory)) { reached in
            guard reached == .finish(step) else { return }
            if failOnce.withLock({ fail in
                defer { fail = false }
                return fail
            }) {
                throw DiskFailure()
            }
        }
        try await store.createUpload(
            .init(
                uploadId: "upl-r", uploadKey: "files.chatAttachmentUpload:sess-42:upl-r", chat: Self.chat,
                fileName: "f.bin", mimeType: "application/octet-stream", path: "f.bin", size: 6, chunkSize: 4,
                state: .open, sha256: nil))
        #expect(try await store.storeChunk("upl-r", index: 0, bytes: [1, 2, 3, 4]) == .stored)
        #expect(try await store.storeChunk("upl-r", index: 1, bytes: [5, 6]) == .stored)
        await #expect(throws: DiskFailure.self) { _ = try await store.finishUpload("upl-r") }
        #expect(try await store.upload(id: "upl-r")?.state == .open)

        #expect(try await store.finishUpload("upl-r") == SHA256Digest.hex([1, 2, 3, 4, 5, 6]))
        #expect(try await store.upload(id: "upl-r")?.state == .finished)
        var bytes: [UInt8] = []
        try await store.forEachPiece(of: "upl-r") { bytes.append(contentsOf: $0) }
        #expect(bytes == [1, 2, 3, 4, 5, 6])
        let folder = directory + "/" + WorkspaceUploadStore.uploadsFolderName
        #expect(
            (try FileManager.default.contentsOfDirectory(atPath: folder)) == [
                WorkspaceUploadStore.fileName(for: "upl-r")
            ])
    }
}
