import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 003 searches "all saved history by title, conversation text, and saved web-search
/// query/answer": Ctrl+K lists a saved web search's hit marked as one, and Return opens it
/// with its query, answer and sources.
@Suite("Terminal app web searches", .timeLimit(.minutes(2)))
@MainActor
struct TerminalAppWebSearchTests {
    @Test func controlKFindsASavedWebSearchMarkedAsOneAndOpensItWithItsSources() async throws {
        let store = InMemoryChatHistory()
        try await store.saveWebSearch(
            SavedWebSearch(
                id: "w1", query: "tide tables in Kiel", answer: "High water is at **6:12**.",
                sources: [WebSearchSource(title: "Tides\u{1B}[2J Kiel", url: "https://example.org/kiel")],
                createdAt: 1_000))
        let chats = ChatListModel(
            streaming: TerminalAppForegroundTests.NoStreaming(), store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil)
        var services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        services.webSearch = { id in
            guard let saved = try? await store.webSearch(id: id) else { return nil }
            return WebSearchScreen(query: saved.query, answer: saved.answer, sources: saved.sources)
        }
        let controller = TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: 80, rows: 20))
        await controller.start()
        controller.handle(.key(KeyEvent(.character("k"), modifiers: .control)), now: .zero)
        controller.handle(.paste("tide"), now: .zero)
        func hits() -> [SearchOverlay.Hit] {
            controller.sync()
            guard case .search(let search) = controller.app.overlay else { return [] }
            return search.isPending ? [] : search.hits
        }
        #expect(await ConditionWait.until { !hits().isEmpty })
        #expect(hits().map(\.destination) == [.webSearch("w1")])
        #expect(hits().first?.title.hasPrefix("Web search: ") == true)
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
        #expect(controller.app.sidebar.current == .webSearch("w1"))
        #expect(await ConditionWait.until { controller.app.items.count == 3 })
        #expect(controller.app.title == "Web search: tide tables in Kiel")
        #expect(controller.app.items.map(\.body).first == "tide tables in Kiel")
        #expect(controller.app.items[1].body == "High water is at **6:12**.")
        let sources = controller.app.items[2].body
        #expect(sources.contains("1. Tides"))
        #expect(sources.contains("https://example.org/kiel"))
        #expect(!sources.contains("\u{1B}"), "peer text reaches the terminal sanitized")
        controller.handle(.key(KeyEvent(.character("x"))), now: .zero)
        controller.handle(.key(KeyEvent(.enter)), now: .zero)
        #expect(controller.app.composer.text == "x", "a saved web search takes no messages; the text stays")
        await controller.close()
    }

    @Test func controlAltNAsksTheWebAndOpensTheSavedAnswerOrSaysWhyNot() {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 80, rows: 20))
        #expect(app.handle(.key(KeyEvent(.character("n"), modifiers: [.control, .alt])), now: .zero) == [])
        guard case .webSearch = app.overlay else {
            Issue.record("no web search prompt")
            return
        }
        for character in "tides" { _ = app.handle(.key(KeyEvent(.character(character))), now: .zero) }
        #expect(app.handle(.key(KeyEvent(.enter)), now: .zero) == [.askWeb("tides")])
        #expect(app.render(size: app.size).0.text.contains("Searching the web…"))
        #expect(app.handle(.key(KeyEvent(.enter)), now: .zero) == [], "one search at a time")
        #expect(app.update(.webSearchFailed("Web search is not offered by this server.")) == [])
        #expect(app.render(size: app.size).0.text.contains("Web search is not offered by this server."))
        #expect(app.handle(.key(KeyEvent(.enter)), now: .zero) == [.askWeb("tides")])
        #expect(app.update(.webSearchSaved(id: "w9")) == [.open(.webSearch("w9"))])
        #expect(app.overlay == nil)
        #expect(app.notice == "Saved the web search to history (Ctrl+K finds it).")
    }

    @Test func aServerWithoutTheRouteGetsAStatusLineNotAPrompt() {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 80, rows: 20))
        app.sidebar.notOffered = [.webSearch]
        #expect(app.handle(.key(KeyEvent(.character("n"), modifiers: [.control, .alt])), now: .zero) == [])
        #expect(app.overlay == nil)
        #expect(app.notice == "Web search is not offered by this server.")
    }

    @Test func theControllerOpensTheAnswerAskedOrSaysItWasNotSaved() async throws {
        let store = InMemoryChatHistory()
        let chats = ChatListModel(
            streaming: TerminalAppForegroundTests.NoStreaming(), store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil)
        var services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        // The asker's outcome is view state: the front end never sees the store's record.
        let answer = WebSearchResult(
            id: "w9", query: "tides", answer: "High water at 6:12.",
            sources: [WebSearchSource(title: "Tides", url: "https://example.org/tides")], createdAt: 1_000)
        let saving = Locked(true)
        services.askWeb = { query in
            #expect(query == "tides")
            return saving.withLock { $0 } ? .saved(answer) : .notSaved(answer, reason: "disk full")
        }
        services.webSearch = { id in
            id == answer.id ? WebSearchScreen(query: answer.query, answer: answer.answer, sources: answer.sources) : nil
        }
        let controller = TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: 80, rows: 20))
        await controller.start()
        func ask() async {
            controller.handle(.key(KeyEvent(.character("n"), modifiers: [.control, .alt])), now: .zero)
            controller.handle(.paste("tides"), now: .zero)
            controller.handle(.key(KeyEvent(.enter)), now: .zero)
            await controller.settle()
        }
        await ask()
        #expect(controller.app.sidebar.current == .webSearch("w9"))
        #expect(await ConditionWait.until { controller.app.items.map(\.body).first == "tides" })
        #expect(controller.app.items[1].body == "High water at 6:12.")

        saving.withLock { $0 = false }
        await ask()
        var drawn = controller.app
        #expect(drawn.render(size: drawn.size).0.text.contains("Answered, but it could not be saved: disk full"))
        await controller.close()
    }
}
