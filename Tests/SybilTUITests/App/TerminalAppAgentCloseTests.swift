import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// Quitting the terminal app while the Agent room still loads: the room's loads are its own
/// work, not the app's tasks, so the quit stops the room rather than waiting for a server that
/// does not answer.
@Suite("Terminal app: quitting while the Agent room loads")
@MainActor
struct TerminalAppAgentCloseTests {
    /// An Agent room whose every call waits until its task is cancelled, and says when the
    /// descriptor was asked for.
    final class UnansweringRoomAPI: AgentRoomAPI {
        let descriptorAsked: AsyncStream<Void>
        private let asked: AsyncStream<Void>.Continuation
        /// Never yields; kept open so that a wait on it ends only by cancellation.
        private let never: AsyncStream<Void>
        private let neverContinuation: AsyncStream<Void>.Continuation

        init() {
            (descriptorAsked, asked) = AsyncStream<Void>.makeStream()
            (never, neverContinuation) = AsyncStream<Void>.makeStream()
        }

        private func unanswered() async -> AgentRoomError {
            for await _ in never {}
            return .transport("cancelled")
        }

        func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor {
            asked.yield()
            throw await unanswered()
        }
        func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError)
            -> AgentRoomPage
        { throw await unanswered() }
        func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
            throw await unanswered()
        }
        func readState() async throws(AgentRoomError) -> AgentReadState { throw await unanswered() }
        func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
            throw await unanswered()
        }
        func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
            throw await unanswered()
        }
        func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
            throw await unanswered()
        }
    }

    /// A stream that never connects (the room does not get that far here).
    struct SilentStream: AgentRoomStreamSource {
        func updates(replayFrom: @escaping @Sendable () async -> AgentCursor?) -> AsyncStream<AgentRoomStreamUpdate> {
            AsyncStream { _ in }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func quittingWhileTheRoomWaitsForItsDescriptorStopsTheRoom() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-tui-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = URL(string: "http://127.0.0.1:9/api")!
        let api = UnansweringRoomAPI()
        let ids = SequentialIDGenerator(prefix: "id")
        let outbox = try await AgentOutbox.open(directory: directory.path, baseURL: base, ids: ids, now: { 1_000 })
        let composer = AgentRoomComposer(
            room: AgentRoomModel(api: api, stream: SilentStream(), timeZone: TimeZone(secondsFromGMT: 0)!),
            outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: api, removesConfirmed: true),
            draft: AgentAttachmentDraft(
                api: api, storage: AgentAttachmentFileStore(directory: directory.path, baseURL: base), ids: ids))
        let controller = await TerminalAppController.startedForTest(
            agent: composer, size: TerminalSize(columns: 60, rows: 16))
        var asked = api.descriptorAsked.makeAsyncIterator()
        _ = await asked.next()
        // The server never answers: the quit ends the room's loads instead of waiting for them.
        await controller.close()
        #expect(!composer.isStarted)
        #expect(composer.room.connection == .idle)
        #expect(!composer.sender.isRunning)
    }
}
