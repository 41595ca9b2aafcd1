import Foundation
import SybilClient
import SybilStore
import SybilWire
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SPEC §2 "nothing lost": a kept-texts document in the data folder past the read limit (a
/// corrupt or sparse file) is not loaded into memory, and the texts that may be in it are not
/// replaced: the list says it could not be read and does not save over it.
@MainActor
@Suite("A kept-texts document past the read limit", .timeLimit(.minutes(1)))
struct UndeliveredOversizedDocumentTests {
    @Test func isReportedAndNeverSavedOver() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sybil-kept-huge-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try FileKeyValueStore(directory: directory)
        let path = store.path(forKey: "workspace-undelivered")
        let size = FileKeyValueStore.maximumValueBytes + 1
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)

        let list = WorkspaceUndeliveredMessages(persistence: .workspaces(in: store))
        let problem = try #require(list.loadProblem)
        #expect(problem.contains("\(size) bytes") && problem.contains(path), "\(problem)")
        let text = WorkspaceUndeliveredMessages.Message(
            id: "op-1", chat: WorkspaceChatKey(desktopId: "d", projectId: "p", sessionId: "s"), text: "Neu.",
            cause: .rejected, reason: "r")
        #expect(!list.keepIfSaved(text), "not saved over the document that could not be read")
        #expect(list.saveProblem != nil)
        // The document is where it was, its size unchanged, and nothing was set aside.
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? NSNumber)?.intValue == size)
        #expect(!FileManager.default.fileExists(atPath: path + ".unreadable"))
    }
}
