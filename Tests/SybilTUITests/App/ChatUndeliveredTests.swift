import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

/// SPEC §2 "nothing lost" in the terminal app's ordinary chats: a message that is not sent
/// (a file in it cannot be attached, a reply is still arriving) while the person has typed a
/// new draft keeps its text as a failed row at the end of the chat, and d puts it back into an
/// empty composer; the draft is never replaced.
@Suite("Terminal app: chat messages kept when the composer holds a draft", .timeLimit(.minutes(2)))
@MainActor
struct ChatUndeliveredTests {
    /// Replies "Antwort." once released; until then the reply is on its way.
    final class HeldStreaming: ChatStreaming {
        private let released = Locked(false)
        private let signal = ChangeSignal()

        func release() {
            released.withLock { $0 = true }
            signal.notify()
        }

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { continuation in
                let task = Task {
                    _ = await self.signal.wait(until: { self.released.withLock { $0 } })
                    continuation.yield("Antwort.")
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    private func press(_ controller: TerminalAppController, _ key: Key, _ modifiers: KeyModifiers = []) {
        controller.handle(.key(KeyEvent(key, modifiers: modifiers)), now: .zero)
    }

    /// Empties the composer (Ctrl+U on its one line) and goes to the timeline.
    private func clearComposer(_ controller: TerminalAppController) {
        while controller.app.focus != .composer { press(controller, .tab) }
        press(controller, .end)
        press(controller, .character("u"), .control)
        #expect(controller.app.composer.isEmpty)
        while controller.app.focus != .timeline { press(controller, .tab) }
    }

    /// The failed rows whose text is `text`.
    private func failedRows(_ controller: TerminalAppController, _ text: String) -> [TimelineItem] {
        controller.app.items.filter { $0.tone == .error && $0.body == text }
    }

    @Test func aMessageWhoseFileCannotBeAttachedIsKeptWhenADraftWasTypedMeanwhile() async throws {
        let controller = await TerminalAppController.startedForTest()
        #expect(controller.app.focus == .composer)
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-nicht-da-\(UUID()).txt")
        controller.handle(.paste("Hier die Datei.\n/attach \(missing.path)"), now: .zero)
        press(controller, .enter)
        // Typed while the file was being read: the new draft stays.
        controller.handle(.paste("Mein Entwurf."), now: .zero)
        await controller.settle()
        #expect(controller.app.composer.text == "Mein Entwurf.", "the draft is never replaced")
        #expect(failedRows(controller, "Hier die Datei.").count == 1, "\(controller.app.items.map(\.body))")
        #expect(controller.app.notice?.contains(missing.lastPathComponent) == true, "the file is named")

        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == "Hier die Datei.")
        #expect(failedRows(controller, "Hier die Datei.").isEmpty, "taken back, it is no longer kept")
        await controller.close()
    }

    @Test func aMessageSentWhileAReplyArrivesIsKeptWhenADraftWasTypedMeanwhile() async throws {
        let streaming = HeldStreaming()
        let controller = await TerminalAppController.startedForTest(streaming: streaming)
        controller.handle(.paste("Erste Frage."), now: .zero)
        press(controller, .enter)
        #expect(await ConditionWait.until { controller.chat?.isTyping == true }, "the first reply is on its way")
        controller.handle(.paste("Zweite Frage."), now: .zero)
        press(controller, .enter)
        // Typed before the refusal came back: the new draft stays.
        controller.handle(.paste("Mein Entwurf."), now: .zero)
        #expect(
            await ConditionWait.until { controller.app.notice?.contains("Wait for the reply to finish") == true },
            "the second message is refused while the reply arrives")
        #expect(controller.app.composer.text == "Mein Entwurf.")
        #expect(failedRows(controller, "Zweite Frage.").count == 1, "\(controller.app.items.map(\.body))")
        streaming.release()
        await controller.settle()
        #expect(
            failedRows(controller, "Zweite Frage.").count == 1,
            "still kept once the reply saved the chat: \(controller.app.items.map(\.body))")

        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == "Zweite Frage.")
        #expect(failedRows(controller, "Zweite Frage.").isEmpty)
        await controller.close()
    }

    /// SPEC §2: a text kept while a draft was typed is a failed row again after a restart (the
    /// old process dropped, as a crash leaves it); a list that cannot be read is named.
    @Test func aKeptTextIsAFailedRowAfterARestart() async throws {
        let kept = InMemoryKeyValueStore()
        let first = ChatUndeliveredMessages(persistence: .chats(in: kept))
        first.keep(
            ChatUndeliveredMessages.Message(
                id: "unsent-1", chat: .newChat, text: "Nicht verloren.", cause: .notSent, reason: "Not attached: a.txt."
            ))

        let controller = await TerminalAppController.startedForTest(
            undelivered: ChatUndeliveredMessages(persistence: .chats(in: kept)))
        #expect(failedRows(controller, "Nicht verloren.").count == 1, "\(controller.app.items.map(\.body))")
        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == "Nicht verloren.")
        #expect(ChatUndeliveredMessages(persistence: .chats(in: kept)).messages.isEmpty, "taken back for good")
        await controller.close()
    }

    @Test func aKeptListThatCannotBeReadIsNamedAtLaunch() async throws {
        let kept = InMemoryKeyValueStore()
        try kept.set(Array("{not json".utf8), forKey: "chat-undelivered")
        let controller = await TerminalAppController.startedForTest(
            undelivered: ChatUndeliveredMessages(persistence: .chats(in: kept)))
        #expect(controller.app.notice?.contains("kept aside") == true, "\(controller.app.notice ?? "no notice")")
        await controller.close()
    }
}
