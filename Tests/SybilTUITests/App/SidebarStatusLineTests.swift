import SybilClient
import Testing

@testable import SybilTUI

/// The sidebar's sentences about the server (why the workspaces could not be listed, a surface
/// not offered, a desktop offline) are cut by its narrow column; while the sidebar has focus
/// the status line shows them in full.
@Suite("Terminal app: the sidebar's status lines read in full")
struct SidebarStatusLineTests {
    private static let problem = "The desktop list could not be read: connection refused by 127.0.0.1:8799"

    private func app() -> TerminalApp {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 100, rows: 20))
        _ = app.update(.workspacesNotListed(Self.problem))
        return app
    }

    private func statusRow(_ app: inout TerminalApp) -> String {
        let grid = app.render(size: app.size).0
        return grid.text(row: app.size.rows - 1)
    }

    @Test func aProblemTheSidebarCutsIsReadInFullWhileTheSidebarHasFocus() {
        var app = app()
        let grid = app.render(size: app.size).0
        #expect(!grid.text.contains(Self.problem), "the sidebar's column cuts it")
        #expect(!statusRow(&app).contains(Self.problem), "not while the composer has focus")
        _ = app.handle(.press(.tab), now: .zero)
        #expect(app.focus == .sidebar)
        #expect(statusRow(&app).contains(Self.problem))
        _ = app.update(.noticed("Refreshing…"))
        #expect(statusRow(&app).contains("Refreshing…"), "a notice is said first")
    }

    @Test func surfacesNotOfferedAndDesktopsOfflineAreNamedInFull() {
        var sidebar = Sidebar()
        sidebar.workspaces = [
            SidebarDesktop(id: "d1", name: "Studio", online: false),
            SidebarDesktop(id: "d2", name: "Home", online: true),
        ]
        #expect(sidebar.statusLines == ["Studio is offline"])
        sidebar.notOffered = [.agentRoom, .workspaces]
        sidebar.workspacesProblem = "ignored: the workspaces are not offered"
        #expect(
            sidebar.statusLines == [
                "Sybil Agent — not offered by this server", "Workspaces — not offered by this server",
            ])
        #expect(Sidebar().statusLines.isEmpty)
    }
}
