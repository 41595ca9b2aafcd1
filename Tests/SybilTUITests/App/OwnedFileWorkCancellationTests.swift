import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The controller's file work runs in the task that owns it (off the main actor), so
/// cancelling the owner (closing the app) reaches it: reading files to stage stops before the
/// next file, an export writes nothing, and what was read is never delivered.
@Suite("Terminal app: file work stops with its owner", .timeLimit(.minutes(1)))
struct OwnedFileWorkCancellationTests {
    private func folder() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-owned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// On a thread of its own: opens the pipe at `path` for writing (the kernel's rendezvous:
    /// once it returns, the reader is inside that file), runs `whileReading`, then writes `text`
    /// and closes the pipe. Nothing here needs the cooperative pool, so the reader blocked in the
    /// pipe never waits for a pool thread that other tests may hold.
    private func feed(_ path: String, _ text: String, whileReading: @escaping @Sendable () -> Void) async -> Bool {
        await blocking {
            let writer = open(path, O_WRONLY | O_CLOEXEC)
            guard writer >= 0 else { return false }
            whileReading()
            let bytes = Array(text.utf8)
            let written = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)
            return written == bytes.count
        }
    }

    @Test func readingFilesToStageStopsBeforeTheNextFileWhenItsOwnerIsCancelled() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pipe = directory.appendingPathComponent("first.txt").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let second = directory.appendingPathComponent("second.txt").path
        try Data("second".utf8).write(to: URL(fileURLWithPath: second))

        let owner = Task {
            await TerminalAppController.readForStaging(
                [pipe, second], with: [], textLimit: ChatAttachmentFile.defaultTextLimit)
        }
        // The work is reading the first file; the owner is cancelled before that file ends.
        #expect(await feed(pipe, "first") { owner.cancel() })
        let (read, refusals) = await owner.value
        #expect(read.map(\.name) == ["first.txt"], "the file being read is finished; the next is never opened")
        #expect(refusals.isEmpty)
    }

    @Test func readingFilesToStageReadsEveryFileWhenNotCancelled() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = ["a.txt", "b.txt"].map { directory.appendingPathComponent($0).path }
        for path in paths { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        let (read, _) = await TerminalAppController.readForStaging(
            paths, with: [], textLimit: ChatAttachmentFile.defaultTextLimit)
        #expect(read.map(\.name) == ["a.txt", "b.txt"])
    }

    @Test func anExportWhoseOwnerWasCancelledWritesNothing() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = Array("original".utf8)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await TerminalAppController.saveOriginal(bytes, named: "page.html", in: directory.path)
        }
        #expect(await cancelled.value == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        let saved = await Task {
            await TerminalAppController.saveOriginal(bytes, named: "page.html", in: directory.path)
        }.value
        let path = try #require(try saved?.get())
        #expect(FileManager.default.contents(atPath: path) == Data(bytes))
    }

    @Test @MainActor func filesAttachedAsTheAppClosesAreNeitherStagedNorSent() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.txt").path
        try Data("notes".utf8).write(to: URL(fileURLWithPath: path))
        let store = InMemoryChatHistory()
        let model = ChatStagedAttachmentsControllerTests.Recording()
        let chats = ChatListModel(
            streaming: model, store: store, model: "m", now: { 1_000 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        let controller = TerminalAppController(services: services, theme: .monochrome, size: .fallback)
        await controller.start()
        controller.handle(TerminalInput.paste("/attach \(path)\nsee the notes"), now: .zero)
        controller.handle(TerminalInput.press(.enter), now: .zero)
        // Closed before the send's task ran: its file work sees the cancellation.
        await controller.close()
        #expect(controller.app.chatAttachments.isEmpty)
        #expect(controller.chat?.messages.isEmpty != false, "nothing was sent")
        #expect(model.requests.withLock { $0 }.isEmpty)
    }
}
