import SybilTerminalInput
import Testing

@testable import SybilTUI

/// The composer draws a few lines around the cursor, and only those are laid out: with a
/// megabyte draft every frame used to wrap the whole text, so each key took most of a second
/// to appear. The lines around the cursor are exactly those of the whole layout.
@Suite("Composer window layout", .timeLimit(.minutes(1)))
struct ComposerWindowLayoutTests {
    @Test func typingAtTheEndOfAMegabyteDraftDrawsWithoutWrappingAllOfIt() {
        let line = String(repeating: "abcdefghij", count: 9) + "012345678\n"
        var app = TerminalApp(theme: .dark, size: TerminalSize(columns: 100, rows: 30))
        _ = app.handle(.paste(String(repeating: line, count: 10_000)), now: .zero)
        // A hundred keys, each drawn as it comes.
        let typed = String(repeating: "typed after the paste ", count: 5)
        for character in typed {
            _ = app.handle(.press(.character(character), []), now: .zero)
            _ = app.render(size: TerminalSize(columns: 100, rows: 30))
        }
        let (grid, cursor) = app.render(size: TerminalSize(columns: 100, rows: 30))
        let row = cursor?.row ?? 0
        let drawn = grid.text(row: row)
        #expect(drawn.contains("typed after the paste typed"))
    }

    @Test func theLinesAroundTheCursorAreThoseOfTheWholeLayout() {
        let pieces = ["word ", "a", "\n", "\n", "你好", "👩‍💻", " ", "e\u{301}", "longerwordthanthewidth", "\r\n"]
        var state: UInt64 = 0xC0FFEE
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<400 {
            var text = ""
            for _ in 0..<next(60) { text += pieces[next(pieces.count)] }
            var composer = ComposerBuffer(text: text)
            composer.cursor = next(composer.count + 1)
            let width = 1 + next(12)
            let context = next(7)
            let whole = composer.layout(width: width)
            let window = composer.layout(width: width, around: context)
            let first = max(0, whole.cursorLine - context)
            let expected = Array(whole.lines[first..<min(whole.lines.count, whole.cursorLine + context + 1)])
            #expect(window.lines == expected, "\(text.debugDescription) at \(composer.cursor), width \(width)")
            #expect(window.cursorLine == whole.cursorLine - first)
            #expect(window.cursorColumn == whole.cursorColumn)
        }
    }
}
