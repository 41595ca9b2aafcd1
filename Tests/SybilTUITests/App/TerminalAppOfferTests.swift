import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

/// What the server offers decides what the app shows: against a plain OpenAI-compatible
/// server the sidebar says the Agent room and the workspaces are not offered (nothing to
/// open, nothing reconnecting), and the header names the server and the model.
@MainActor
@Suite("Terminal app: what the server offers")
struct TerminalAppOfferTests {
    /// A stream that is never asked (nothing is sent in these tests).
    final class SilentStreaming: ChatStreaming {
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }

    private func controller(notOffered: Set<ServerSurface>, header: String?, columns: Int = 100)
        -> TerminalAppController
    {
        let store = InMemoryChatHistory()
        let chats = ChatListModel(
            streaming: SilentStreaming(), store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil)
        var services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil)
        services.notOffered = notOffered
        services.header = header
        return TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: columns, rows: 12))
    }

    @Test func aPlainServersSidebarSaysWhatIsNotOffered() async {
        let controller = controller(
            notOffered: [.agentRoom, .workspaces, .records], header: "local · llama3.2")
        await controller.start()
        let rows = controller.app.sidebar.rows
        #expect(rows.contains(.label("Sybil Agent — not offered by this server", indent: 1, tone: .normal)))
        #expect(rows.contains(.label("Workspaces — not offered by this server", indent: 1, tone: .normal)))
        #expect(!rows.contains { $0.destination == .agent }, "nothing to open")
        #expect(!rows.contains(.label("Loading…", indent: 1, tone: .normal)))
        var app = controller.app
        let text = app.render(size: TerminalSize(columns: 100, rows: 12)).0.text
        #expect(text.contains("Sybil Agent — not offe"))
        #expect(text.contains("local · llama3.2"))
        await controller.close()
    }

    @Test func aSybilServersSidebarOffersTheRoom() async {
        let controller = controller(notOffered: [], header: nil)
        await controller.start()
        #expect(controller.app.sidebar.rows.contains { $0.destination == .agent })
        #expect(
            !controller.app.sidebar.rows.contains {
                if case .label(let text, _, _) = $0 { text.contains("not offered") } else { false }
            })
        await controller.close()
    }

    @Test func theDemoHeaderSaysItIsScripted() {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 120, rows: 8))
        app.header = "demo: scripted replies, not a model — connect one with `sybil profile add`"
        let lines = app.render(size: TerminalSize(columns: 120, rows: 8)).0.text.split(separator: "\n")
        #expect(lines[0].hasSuffix("demo: scripted replies, not a model — connect one with `sybil profile add`"))
        #expect(lines[0].contains("New chat"))
        // Narrow: the title stays whole and the header is cut with "…".
        let narrow = app.render(size: TerminalSize(columns: 60, rows: 8)).0.text.split(separator: "\n")
        #expect(narrow[0].contains("New chat"))
        #expect(narrow[0].hasSuffix("…"))
        // A long title is never cut for the header; the header is left out below its minimum.
        app.title = String(repeating: "t", count: 50)
        let long = app.render(size: TerminalSize(columns: 60, rows: 8)).0.text.split(separator: "\n")
        #expect(long[0].contains(app.title) || long[0].hasSuffix("t…"))
        #expect(!long[0].contains("demo"))
    }
}
