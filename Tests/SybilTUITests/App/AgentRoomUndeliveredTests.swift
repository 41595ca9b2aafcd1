import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// SPEC §2 "nothing lost" in the terminal app's Agent room: a message that leaves the outbox
/// (d on one the room refused for good) or is never queued (its files could not be attached),
/// while the person has typed a new draft, keeps its text as a failed row at the end of the
/// room, and d puts it back into an empty composer; no sentence says a text is back in the
/// composer when it is not.
@Suite("Terminal app: Agent room messages kept when the composer holds a draft", .timeLimit(.minutes(2)))
@MainActor
struct AgentRoomUndeliveredTests {
    static let refusedText = "Der ganze Bericht, zu groß für den Raum."

    /// A refusal for good, as a room answers a message too large.
    static let refusal = AgentRoomError.rejected(
        status: 413, error: APIErrorBody(message: "The message is too large.", code: "too_large"),
        retryAfterSeconds: nil)

    /// The app in the Agent room, its composer focused; with `refused`, the outbox holds that
    /// message, refused for good by an earlier run. With `crash`, its writes (the outbox's and
    /// the kept texts') stop when that process dies; with `kept`, the texts not delivered are
    /// kept there between launches, as the app keeps them.
    private func openRoom(
        refused: String? = nil, in directory: URL, kept: (any KeyValueStore)? = nil,
        crash: KeptTextCrashSwitch = KeptTextCrashSwitch()
    ) async throws -> TerminalAppController {
        let base = URL(string: "http://127.0.0.1:9/api")!
        // A room that never loads and refuses every message for good: what these tests need
        // is the outbox and the draft.
        let api = UnreachableAgentRoom(submitError: Self.refusal, streamFinishes: false)
        let ids = SequentialIDGenerator(prefix: "id")
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: base, ids: ids, now: { 1_000 }, checkpoint: crash.checkpoint)
        if let refused {
            let entry = try await outbox.enqueue(text: refused)
            _ = try await outbox.beginSending(entry.requestId)
            _ = try await outbox.finishSending(entry.requestId, result: .failure(Self.refusal))
            #expect(outbox.entry(entry.requestId)?.failure?.kind == .refused)
        }
        let composer = AgentRoomComposer(
            room: AgentRoomModel(api: api, stream: api, timeZone: TimeZone(secondsFromGMT: 0)!),
            outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: api, removesConfirmed: true),
            draft: AgentAttachmentDraft(
                api: api, storage: AgentAttachmentFileStore(directory: directory.path, baseURL: base), ids: ids),
            undelivered: kept.map {
                AgentUndeliveredMessages(persistence: .agentRoom(outbox.scope, in: crash.store(over: $0)))
            } ?? AgentUndeliveredMessages())
        let controller = await TerminalAppController.startedForTest(agent: composer)
        if controller.app.focus != .sidebar { press(controller, .escape) }
        press(controller, .home)
        let index = try #require(controller.app.sidebar.rows.compactMap(\.destination).firstIndex(of: .agent))
        for _ in 0..<index { press(controller, .down) }
        press(controller, .enter)
        await controller.settle()
        #expect(controller.app.sidebar.current == .agent)
        while controller.app.focus != .composer { press(controller, .tab) }
        return controller
    }

    private func press(_ controller: TerminalAppController, _ key: Key, _ modifiers: KeyModifiers = []) {
        controller.handle(.key(KeyEvent(key, modifiers: modifiers)), now: .zero)
    }

    private func toTimeline(_ controller: TerminalAppController) {
        while controller.app.focus != .timeline { press(controller, .tab) }
    }

    /// Empties the composer (Ctrl+U on its one line) and goes back to the timeline.
    private func clearComposer(_ controller: TerminalAppController) {
        while controller.app.focus != .composer { press(controller, .tab) }
        press(controller, .end)
        press(controller, .character("u"), .control)
        #expect(controller.app.composer.isEmpty)
        toTimeline(controller)
    }

    /// The failed rows whose text is `text`.
    private func failedRows(_ controller: TerminalAppController, _ text: String) -> [TimelineItem] {
        controller.app.items.filter { $0.tone == .error && $0.body == text }
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sybil-tui-kept-\(UUID().uuidString)")
    }

    @Test func discardingARefusedMessageWhileADraftIsTypedKeepsItsTextForD() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let controller = try await openRoom(refused: Self.refusedText, in: directory)
        #expect(failedRows(controller, Self.refusedText).count == 1, "the refused message is a failed row")
        controller.handle(.paste("Mein neuer Entwurf."), now: .zero)
        toTimeline(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == "Mein neuer Entwurf.", "the draft is never replaced")
        let notice = controller.app.notice ?? ""
        #expect(!notice.contains("back in the composer"), "the text is not in the composer: \(notice)")
        #expect(failedRows(controller, Self.refusedText).count == 1, "its text is kept as a failed row")

        // With the draft cleared, d puts it back.
        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == Self.refusedText)
        #expect(controller.app.notice?.contains("back in the composer") == true)
        #expect(failedRows(controller, Self.refusedText).isEmpty, "taken back, it is no longer kept")
        await controller.close()
    }

    @Test func discardingARefusedMessageIntoAnEmptyComposerPutsItBack() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let controller = try await openRoom(refused: Self.refusedText, in: directory)
        toTimeline(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == Self.refusedText)
        #expect(controller.app.notice?.contains("back in the composer") == true)
        #expect(failedRows(controller, Self.refusedText).isEmpty)
        await controller.close()
    }

    @Test func aMessageNotQueuedWhileADraftWasTypedIsKeptNotDropped() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let controller = try await openRoom(in: directory)
        // The room is still loading: the file is not attached and nothing is queued.
        let text = "Siehe den Anhang.\n/attach /tmp/sybil-nicht-da.txt"
        controller.handle(.paste(text), now: .zero)
        press(controller, .enter)
        // Typed before the refusal came back: the new draft stays.
        controller.handle(.paste("Noch etwas."), now: .zero)
        await controller.settle()
        #expect(controller.app.composer.text == "Noch etwas.")
        #expect(failedRows(controller, text).count == 1, "the whole text is kept: \(controller.app.items.map(\.body))")
        #expect(controller.app.notice?.contains("still loading") == true, "the reason is named")

        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == text)
        #expect(failedRows(controller, text).isEmpty)
        await controller.close()
    }

    // MARK: Kept between launches (SPEC §2: what a person wrote survives a crash at any point)

    /// A kept-texts store in `directory`, as the app's (a file per key, replaced atomically).
    private func keptStore(in directory: URL) throws -> FileKeyValueStore {
        try FileKeyValueStore(directory: directory.appendingPathComponent("kept").path)
    }

    @Test func aTextKeptByDSurvivesACrashAndDTakesItBackForGood() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try keptStore(in: directory)
        let crash = KeptTextCrashSwitch()
        let first = try await openRoom(refused: Self.refusedText, in: directory, kept: store, crash: crash)
        first.handle(.paste("Mein neuer Entwurf."), now: .zero)
        toTimeline(first)
        press(first, .character("d"))
        await first.settle()
        #expect(failedRows(first, Self.refusedText).count == 1, "kept as a failed row")
        // The process dies right after d: nothing more is written.
        crash.die()
        await first.close()

        let second = try await openRoom(in: directory, kept: store)
        #expect(failedRows(second, Self.refusedText).count == 1, "restored: \(second.app.items.map(\.body))")
        #expect(second.services.agent?.pending.isEmpty == true, "it left the outbox")
        clearComposer(second)
        press(second, .character("d"))
        await second.settle()
        #expect(second.app.composer.text == Self.refusedText)
        #expect(failedRows(second, Self.refusedText).isEmpty)
        await second.close()

        let third = try await openRoom(in: directory, kept: store)
        #expect(failedRows(third, Self.refusedText).isEmpty, "taken back, it is gone for good")
        await third.close()
    }

    @Test func aCrashAtTheFirstWriteOfDLosesNoText() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try keptStore(in: directory)
        let crash = KeptTextCrashSwitch()
        let first = try await openRoom(refused: Self.refusedText, in: directory, kept: store, crash: crash)
        first.handle(.paste("Mein neuer Entwurf."), now: .zero)
        toTimeline(first)
        // The process dies once d wrote its first step, whichever store that is.
        crash.arm()
        press(first, .character("d"))
        await first.settle()
        #expect(crash.isDead)
        await first.close()

        let second = try await openRoom(in: directory, kept: store)
        let rows = failedRows(second, Self.refusedText)
        #expect(rows.count == 1, "the text is there once: \(second.app.items.map(\.body))")
        await second.close()
    }

    @Test func aTextNeverQueuedSurvivesARestart() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try keptStore(in: directory)
        let first = try await openRoom(in: directory, kept: store)
        let text = "Siehe den Anhang.\n/attach /tmp/sybil-nicht-da.txt"
        first.handle(.paste(text), now: .zero)
        press(first, .enter)
        first.handle(.paste("Noch etwas."), now: .zero)
        await first.settle()
        #expect(failedRows(first, text).count == 1)
        await first.close()

        let second = try await openRoom(in: directory, kept: store)
        #expect(failedRows(second, text).count == 1, "restored: \(second.app.items.map(\.body))")
        await second.close()
    }
}
