@testable import SybilTUI

extension TerminalApp {
    /// The app the key, foreground and meditation tests start from: 60×16, monochrome, one
    /// chat in the sidebar.
    static func withOneChat() -> TerminalApp {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
        app.sidebar.chats = [Sidebar.Chat(id: "c1", title: "First chat")]
        return app
    }
}

extension TerminalInput {
    /// A key press with `modifiers`.
    static func press(_ key: Key, _ modifiers: KeyModifiers = []) -> TerminalInput {
        .key(KeyEvent(key, modifiers: modifiers))
    }
}
