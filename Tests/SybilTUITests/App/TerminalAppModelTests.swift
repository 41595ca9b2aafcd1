import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

/// A model per chat in the terminal app: `/model` lists the server's models with the chat's
/// marked, `/model NAME` picks one (an unlisted name is refused naming listed ones), F6 picks
/// the next, the header names the open chat's model, each chat keeps its own, and Quick
/// Question keeps its own model.
@Suite("Terminal app: a model per chat", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppModelTests {
    /// The models each stream was made for.
    @MainActor
    final class Asked {
        var models: [String] = []
    }

    let store = InMemoryChatHistory()
    let asked = Asked()
    let preferences = InMemoryKeyValueStore()

    func controller() -> TerminalAppController {
        let chats = ChatListModel(
            streaming: TerminalAppForegroundTests.NoStreaming(), store: store, model: "llama3.2", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil,
            streamingFor: { [asked] model in
                asked.models.append(model)
                return OneWord()
            })
        let quick = QuickQuestionModel(
            preferences: preferences, store: store, makeStreaming: { _ in OneWord() }, now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "q"), platform: .desktop)
        var services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil, quickQuestion: quick)
        services.header = "local · llama3.2"
        services.chatHeader = { "local · \($0)" }
        services.models = ChatModelPicker(defaultModel: "llama3.2") { ["llama3.2", "qwen3", "mistral"] }
        return TerminalAppController(services: services, theme: .monochrome, size: TerminalSize(columns: 100, rows: 16))
    }

    /// Answers "ok" to every request.
    struct OneWord: ChatStreaming {
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { continuation in
                continuation.yield("ok")
                continuation.finish()
            }
        }
    }

    func type(_ text: String, into controller: TerminalAppController) {
        for character in text { controller.handle(.key(KeyEvent(.character(character))), now: .zero) }
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
    }

    func notice(_ controller: TerminalAppController, _ check: @escaping (String) -> Bool) async -> Bool {
        await ConditionWait.until { controller.app.notice.map(check) ?? false }
    }

    @Test func slashModelListsPicksAndRefusesAndTheHeaderFollowsTheChat() async throws {
        let controller = controller()
        await controller.start()
        #expect(controller.app.header == "local · llama3.2")
        type("/model", into: controller)
        #expect(await notice(controller) { $0.hasPrefix("Models:") })
        #expect(controller.app.notice == "Models: [llama3.2], qwen3, mistral · /model NAME picks one for this chat")
        #expect(controller.app.composer.isEmpty, "a command is not sent")
        type("/model gpt-9", into: controller)
        #expect(await notice(controller) { $0.hasPrefix("The server does not list") })
        #expect(controller.app.notice == "The server does not list gpt-9; it offers llama3.2, qwen3, mistral.")
        type("/model qwen3", into: controller)
        #expect(await notice(controller) { $0 == "This chat now asks for qwen3." })
        controller.sync()
        #expect(controller.app.header == "local · qwen3")
        var drawn = controller.app
        #expect(drawn.render(size: TerminalSize(columns: 100, rows: 16)).0.text.contains("local · qwen3"))
        type("Hello", into: controller)
        await controller.settle()
        #expect(asked.models.allSatisfy { $0 == "qwen3" } && !asked.models.isEmpty, "the request names qwen3")
        let id = try #require(controller.chat?.conversationId)
        #expect(try await store.conversation(id: id)?.model == "qwen3")
        // F6: the next listed model, for this chat only.
        controller.handle(.key(KeyEvent(.function(6))), now: .zero)
        #expect(await notice(controller) { $0 == "This chat now asks for mistral." })
        #expect(try await store.conversation(id: id)?.model == "mistral")
        // A new chat starts with the default; the saved one keeps its own.
        controller.handle(.key(KeyEvent(.escape)), now: .zero)
        controller.handle(.key(KeyEvent(.home)), now: .zero)
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
        await controller.settle()
        controller.sync()
        #expect(controller.app.sidebar.current == .newChat)
        #expect(controller.chat?.model == "llama3.2")
        #expect(controller.app.header == "local · llama3.2")
        controller.handle(.key(KeyEvent(.escape)), now: .zero)
        controller.handle(.key(KeyEvent(.down)), now: .zero)
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
        await controller.settle()
        controller.sync()
        #expect(controller.app.sidebar.current == .chat(id))
        #expect(controller.app.header == "local · mistral")
        // Quick Question keeps its own model.
        #expect(controller.services.quickQuestion?.choice == .quickQuestionDefault)
        #expect(try preferences.data(forKey: ChatModelChoice.quickQuestionKey) == nil)
        await controller.close()
    }

    @Test func f6IsInTheKeyListAndOnlyChatsTakeAModel() {
        #expect(HelpOverlay.bindings.contains { $0.keys == "F6" })
        #expect(HelpOverlay.bindings.contains { $0.keys.hasPrefix("/model") })
        var app = TerminalApp.withOneChat()
        #expect(app.handle(.press(.function(6)), now: .zero) == [.nextModel])
        #expect(TerminalAppController.modelCommand("/model") == "")
        #expect(TerminalAppController.modelCommand("  /model  qwen3 ") == "qwen3")
        #expect(TerminalAppController.modelCommand("/modelling") == nil)
        #expect(TerminalAppController.modelCommand("tell me about /model x") == nil)
    }
}
