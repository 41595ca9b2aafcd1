import SybilClient
import Testing

@testable import SybilTUI

/// Whole screens drawn by the pure app state, compared as text (small sizes).
@Suite("Terminal app screens")
struct TerminalAppRenderTests {
    private func app(columns: Int = 60, rows: Int = 16) -> TerminalApp {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: columns, rows: rows))
        app.sidebar.chats = [Sidebar.Chat(id: "c1", title: "Grüße aus Berlin")]
        app.sidebar.agentUnread = 3
        app.sidebar.workspaces = [
            SidebarDesktop(
                id: "d1", name: "Studio", online: true,
                projects: [.init(id: "p1", name: "App", sessions: [.init(id: "s1", title: "Fix login", running: true)])]
            ),
            SidebarDesktop(id: "d2", name: "Build Box", online: false),
        ]
        return app
    }

    @Test func aNewChatWithTheComposerFocused() {
        var app = app()
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        #expect(
            grid.text == """
                Chats               │ New chat
                 ▸+ New chat        │
                  Grüße aus Berlin  │
                Sybil Agent         │
                  Sybil Agent      3│
                Workspaces          │
                  Studio            │
                    App             │ Type a message below and press Return.
                      Fix login    ●│
                  Build Box (offlin…│
                                    │
                                    │
                                    │
                                    │───────────────────────────────────────
                                    │› Message Sybil…
                           Tab focus · Ctrl+K search · F1 keys · Ctrl+D quit
                """)
        #expect(cursor == CursorPlacement(column: 23, row: 14))
    }

    @Test func aChatWithAReplyAndATwoLineDraft() {
        var app = app()
        app.show(.chat("c1"), title: "Grüße aus Berlin")
        app.items = ChatTimelineAdapter.items([
            .init(id: "m1", role: .user, text: "Wie geht's? 你好", createdAt: 1),
            .init(
                id: "m2", role: .assistant, text: "Gut, **danke**! 👍", state: .streaming,
                createdAt: 2),
        ])
        app.composer = ComposerBuffer(text: "zwei\nZeilen")
        app.composer.cursor = 11
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Chats               │ Grüße aus Berlin")
        #expect(lines[2].hasPrefix(" ▸Grüße aus Berlin  │"))
        #expect(grid.text.contains("Wie geht's? 你好"))
        #expect(grid.text.contains("Gut, danke! 👍"))
        #expect(grid.text.contains("Sybil is typing… (Ctrl+C stops)"))
        #expect(lines[12].hasSuffix("│───────────────────────────────────────"))
        #expect(lines[13] == "                    │› zwei")
        #expect(lines[14] == "                    │  Zeilen")
        #expect(cursor == CursorPlacement(column: 29, row: 14))
    }

    @Test func theSidebarSelectionShowsOnlyWhenFocused() {
        var app = app()
        app.focus = .sidebar
        app.sidebar.selection = .agent
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        #expect(cursor == nil, "no cursor outside the composer")
        #expect(grid[3, 4].style.attributes.contains(.inverse), "the selected row is highlighted")
        #expect(!grid[3, 2].style.attributes.contains(.inverse))
    }

    @Test func theKeyListOverlay() {
        var app = app()
        app.overlay = .help
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        #expect(cursor == nil)
        #expect(grid.text.contains("┌─ Keys (Esc closes)"))
        #expect(grid.text.contains("Ctrl+K"))
    }

    @Test func theSearchOverlayHighlightsMatches() {
        var app = app()
        var search = SearchOverlay()
        search.query = "berlin"
        search.show(
            [
                SearchOverlay.Hit(
                    destination: .chat("c1"), title: "Grüße aus Berlin",
                    excerpt: [.init("Grüße aus ", isMatch: false), .init("Berlin", isMatch: true)])
            ], notice: nil)
        app.overlay = .search(search)
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let box = lines.map { String($0.dropFirst(2)) }
        #expect(box[1] == "┌─ Search chats ───────────────────────────────────────┐")
        #expect(box[2] == "│⌕ berlin                                              │")
        #expect(box[3] == "│Grüße aus Berlin                                      │")
        #expect(box[4] == "│  Grüße aus Berlin                                    │")
        #expect(cursor == CursorPlacement(column: 11, row: 2))
        #expect(grid[16, 4].style == Theme.monochrome.highlight, "the matching word is highlighted")
    }

    @Test func aNarrowScreenDropsTheSidebar() {
        var app = app()
        let (grid, _) = app.render(size: TerminalSize(columns: 30, rows: 8))
        let lines = grid.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == " New chat")
        #expect(lines[6] == "› Message Sybil…")
    }
}

/// The Agent room and a workspace session drawn whole.
@Suite("Terminal app screens: Agent room and workspace")
struct TerminalAppSurfaceRenderTests {
    @Test func theAgentRoomWithAQueuedAndAFailedMessage() throws {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
        app.show(.agent, title: "Sybil Agent")
        let failure = AgentOutboxFailure(kind: .unavailable, message: "busy")
        app.items = AgentTimelineAdapter.items(
            rows: [],
            pending: [
                AgentOutboxEntry(requestId: "r1", text: "Erste", createdAt: 1, state: .queued),
                AgentOutboxEntry(requestId: "r2", text: "Zweite", createdAt: 2, state: .failed, failure: failure),
            ], activity: .idle)
        app.sidebar.workspaces = []
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        let text = grid.text
        #expect(text.contains("Chats               │ Sybil Agent"))
        #expect(text.contains(" ▸Sybil Agent"))
        #expect(text.contains("Erste"))
        #expect(text.contains("Queued"))
        #expect(text.contains("Zweite"))
        #expect(text.contains("Failed:"))
        #expect(text.contains("› Message Sybil Agent…"))
        #expect(cursor == CursorPlacement(column: 23, row: 14))
    }
}
