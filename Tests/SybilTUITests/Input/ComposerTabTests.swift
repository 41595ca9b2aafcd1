import SybilTerminalInput
import Testing

@testable import SybilTUI

/// A pasted text keeps its tabs; the composer used to draw them as nothing, so "col1\tcol2"
/// read "col1col2" and the cursor jumped over an invisible character. A tab takes a column
/// and is drawn as a space (as the timeline shows it once sent); the text keeps the tab.
@Suite("Composer tabs")
struct ComposerTabTests {
    @Test func aTabTakesAColumnAndIsDrawnAsASpace() {
        var composer = ComposerBuffer(text: "col1\tcol2")
        #expect(composer.layout(width: 20) == ComposerLayout(lines: ["col1 col2"], cursorLine: 0, cursorColumn: 9))
        composer.cursor = 5
        #expect(composer.layout(width: 20, around: 5).cursorColumn == 5)
        #expect(composer.text == "col1\tcol2")
    }

    @Test func aPastedTabIsSeenInTheComposer() {
        var app = TerminalApp(theme: .dark, size: TerminalSize(columns: 80, rows: 24))
        _ = app.handle(.paste("col1\tcol2\tcol3"), now: .zero)
        let (grid, cursor) = app.render(size: TerminalSize(columns: 80, rows: 24))
        let row = cursor?.row ?? 0
        let drawn = grid.text(row: row)
        #expect(drawn.hasSuffix("› col1 col2 col3"))
        #expect(cursor?.column == drawn.count)
        #expect(app.composer.text == "col1\tcol2\tcol3")
    }
}
