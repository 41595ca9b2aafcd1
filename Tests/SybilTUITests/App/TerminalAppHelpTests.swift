import Testing

@testable import SybilTUI

/// The F1 key list fits the window and scrolls: actions wrap at words (never cut mid-word),
/// and on a small window ↓, PgDn and End reach the last section.
@Suite("Terminal app key list")
struct TerminalAppHelpTests {
    private func key(_ key: Key) -> TerminalInput { .key(KeyEvent(key)) }

    @Test(arguments: [TerminalSize(columns: 100, rows: 30), TerminalSize(columns: 80, rows: 24)])
    func everyActionIsShownWholeAndTheLastSectionIsReachable(size: TerminalSize) {
        var app = TerminalApp(theme: .monochrome, size: size)
        _ = app.handle(key(.function(1)), now: .zero)
        let top = app.render(size: size).0.text
        #expect(top.contains("Keys (Esc closes)"))
        let inner = HelpOverlay.frame(size: size).inset(by: 1)
        let lines = HelpOverlay.lines(width: inner.columns)
        // Each action's wrapped pieces put back together are the action: nothing is cut.
        var pieces = lines.makeIterator()
        for binding in HelpOverlay.bindings where !binding.keys.isEmpty {
            var text = ""
            while let line = pieces.next() {
                if line.isTitle { continue }
                text += (text.isEmpty ? "" : " ") + line.text
                if text.count >= binding.action.count { break }
            }
            #expect(text == binding.action)
        }
        #expect(
            lines.allSatisfy {
                DisplayWidth.of($0.text) <= inner.columns - min(32, inner.columns / 2) - 1 || $0.isTitle
            })
        if lines.count > inner.rows {
            #expect(top.contains("↓ more"))
            #expect(!top.contains("Open the newest subagent thread"))
        }
        _ = app.handle(key(.end), now: .zero)
        let bottom = app.render(size: size).0.text
        #expect(bottom.contains("Open the newest subagent thread"))
        #expect(bottom.contains("Timeline"))
        #expect(!bottom.contains("↓ more"))
        _ = app.handle(key(.home), now: .zero)
        _ = app.handle(key(.down), now: .zero)
        #expect(app.helpScroll == (lines.count > inner.rows ? 1 : 0))
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.overlay == nil)
    }
}
