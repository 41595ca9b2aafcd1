import Testing

@testable import SybilTUI

@Suite struct ComposerBufferTests {
    private func buffer(_ text: String, cursor: Int? = nil) -> ComposerBuffer {
        var buffer = ComposerBuffer(text: text)
        if let cursor { buffer.cursor = cursor }
        return buffer
    }

    private static func moveUp(_ composer: inout ComposerBuffer, width: Int) -> Bool {
        composer.moveUp(width: width)
    }

    private static func moveDown(_ composer: inout ComposerBuffer, width: Int) -> Bool {
        composer.moveDown(width: width)
    }

    @Test func startsWithTheCursorAtTheEnd() {
        #expect(ComposerBuffer().isEmpty)
        #expect(ComposerBuffer().cursor == 0)
        #expect(ComposerBuffer(text: "Grüße 👋").cursor == 7)
        #expect(!ComposerBuffer(text: "x").isEmpty)
    }

    @Test func insertsAtTheCursorCountingGraphemes() {
        var composer = buffer("Grße", cursor: 2)
        composer.insert("ü")
        #expect(composer.text == "Grüße")
        #expect(composer.cursor == 3)
        composer.cursor = 5
        composer.insert(" 你好 👩‍💻")
        #expect(composer.text == "Grüße 你好 👩‍💻")
        #expect(composer.cursor == 10)
        composer.cursor = 0
        composer.insert("line 1\n\tline 2\n")
        #expect(composer.text == "line 1\n\tline 2\nGrüße 你好 👩‍💻")
        #expect(composer.cursor == 15)
    }

    @Test func aCombiningMarkJoinsTheCharacterBeforeIt() {
        var composer = ComposerBuffer()
        composer.insert("e")
        composer.insert("\u{301}")
        #expect(composer.text == "e\u{301}")
        #expect(composer.cursor == 1)
        composer.deleteBackward()
        #expect(composer.isEmpty)
    }

    @Test func cursorIsClampedToTheText() {
        var composer = buffer("abc")
        composer.cursor = 10
        #expect(composer.cursor == 3)
        composer.cursor = -4
        #expect(composer.cursor == 0)
        composer.cursor = 3
        composer.text = "a"
        #expect(composer.cursor == 1)
    }

    @Test func deletesWholeGraphemes() {
        var composer = buffer("a🇩🇪👨‍👩‍👧b", cursor: 3)
        composer.deleteBackward()
        #expect(composer.text == "a🇩🇪b")
        #expect(composer.cursor == 2)
        composer.deleteBackward()
        #expect(composer.text == "ab")
        composer.deleteForward()
        #expect(composer.text == "a")
        composer.deleteForward()
        #expect(composer.text == "a")
        composer.cursor = 0
        composer.deleteBackward()
        #expect(composer.text == "a")
    }

    @Test func newlineInsertsALineBreak() {
        var composer = buffer("HalloWelt", cursor: 5)
        composer.insertNewline()
        #expect(composer.text == "Hallo\nWelt")
        #expect(composer.cursor == 6)
    }

    @Test func deletesWordsBackward() {
        var composer = buffer("Grüße aus Köln  ")
        composer.deleteWordBackward()
        #expect(composer.text == "Grüße aus ")
        composer.deleteWordBackward()
        #expect(composer.text == "Grüße ")
        composer = buffer("path/to/file.swift")
        composer.deleteWordBackward()
        #expect(composer.text == "path/to/file.")
        composer.deleteWordBackward()
        #expect(composer.text == "path/to/file")
        composer = buffer("你好 世界")
        composer.deleteWordBackward()
        #expect(composer.text == "你好 ")
        composer = buffer("eins\nzwei", cursor: 5)
        composer.deleteWordBackward()
        #expect(composer.text == "zwei")
        #expect(composer.cursor == 0)
    }

    @Test func movesByWords() {
        var composer = buffer("Grüße aus Köln, 你好!", cursor: 0)
        composer.moveWordRight()
        #expect(composer.cursor == 5)
        composer.moveWordRight()
        #expect(composer.cursor == 9)
        composer.moveWordRight()
        #expect(composer.cursor == 14)
        composer.moveWordRight()
        #expect(composer.cursor == 15)
        composer.moveWordRight()
        #expect(composer.cursor == 18)
        composer.moveWordRight()
        #expect(composer.cursor == 19)
        composer.moveWordRight()
        #expect(composer.cursor == 19)
        composer.moveWordLeft()
        #expect(composer.cursor == 18)
        composer.moveWordLeft()
        #expect(composer.cursor == 16)
        composer.moveWordLeft()
        #expect(composer.cursor == 14)
        composer.moveWordLeft()
        #expect(composer.cursor == 10)
    }

    @Test func movesByGraphemes() {
        var composer = buffer("a😀b", cursor: 0)
        composer.moveRight()
        composer.moveRight()
        #expect(composer.cursor == 2)
        composer.moveRight()
        composer.moveRight()
        #expect(composer.cursor == 3)
        composer.moveLeft()
        #expect(composer.cursor == 2)
        composer.cursor = 0
        composer.moveLeft()
        #expect(composer.cursor == 0)
    }

    @Test func movesToLineStartAndEnd() {
        var composer = buffer("erste Zeile\nzweite Zeile\ndritte", cursor: 15)
        composer.moveLineStart()
        #expect(composer.cursor == 12)
        composer.moveLineEnd()
        #expect(composer.cursor == 24)
        composer.moveLineEnd()
        #expect(composer.cursor == 24)
    }

    @Test func deletesToLineStartAndJoinsAtTheStart() {
        var composer = buffer("erste\nzweite Zeile", cursor: 12)
        composer.deleteToLineStart()
        #expect(composer.text == "erste\n Zeile")
        #expect(composer.cursor == 6)
        composer.deleteToLineStart()
        #expect(composer.text == "erste Zeile")
        #expect(composer.cursor == 5)
    }

    @Test func deletesToLineEndAndJoinsAtTheEnd() {
        var composer = buffer("erste Zeile\nzweite", cursor: 5)
        composer.deleteToLineEnd()
        #expect(composer.text == "erste\nzweite")
        #expect(composer.cursor == 5)
        composer.deleteToLineEnd()
        #expect(composer.text == "erstezweite")
    }

    @Test func clearEmptiesTheBuffer() {
        var composer = buffer("你好")
        composer.clear()
        #expect(composer.isEmpty)
        #expect(composer.cursor == 0)
    }

    @Test func wrapsAtWordsAndHidesTheBreakingSpace() {
        let layout = buffer("Grüße aus Berlin").layout(width: 10)
        #expect(layout.lines == ["Grüße aus", "Berlin"])
        #expect(layout.cursorLine == 1)
        #expect(layout.cursorColumn == 6)
        #expect(buffer("hello world").layout(width: 5).lines == ["hello", "world"])
        #expect(
            buffer("hello world", cursor: 5).layout(width: 5)
                == ComposerLayout(lines: ["hello", "world"], cursorLine: 0, cursorColumn: 5))
        #expect(buffer("hello world", cursor: 6).layout(width: 5).cursorLine == 1)
    }

    @Test func hardWrapsWordsLongerThanTheWidth() {
        #expect(buffer("Donaudampfschifffahrt").layout(width: 8).lines == ["Donaudam", "pfschiff", "fahrt"])
    }

    @Test func wideGraphemesTakeTwoColumnsAndAreNeverSplit() {
        let chinese = buffer("你好世界你好世界").layout(width: 5)
        #expect(chinese.lines == ["你好", "世界", "你好", "世界"])
        #expect(chinese.cursorLine == 3)
        #expect(chinese.cursorColumn == 4)
        #expect(buffer("😀😀😀").layout(width: 3).lines == ["😀", "😀", "😀"])
        #expect(buffer("a👩‍💻🇩🇪").layout(width: 4).lines == ["a👩‍💻", "🇩🇪"])
        #expect(buffer("你").layout(width: 1).lines == ["你"])
        #expect(buffer("Grüße 你好 👋", cursor: 8).layout(width: 40).cursorColumn == 10)
    }

    @Test func keepsEmptyLinesAndLaysOutEmptyText() {
        #expect(ComposerBuffer().layout(width: 10) == ComposerLayout(lines: [""], cursorLine: 0, cursorColumn: 0))
        let layout = buffer("a\n\nb\n").layout(width: 10)
        #expect(layout.lines == ["a", "", "b", ""])
        #expect(layout.cursorLine == 3)
        #expect(buffer("a\n\nb\n", cursor: 2).layout(width: 10).cursorLine == 1)
    }

    @Test func movesUpAndDownOverVisualLines() {
        var composer = buffer("Grüße aus Berlin")
        #expect(!Self.moveDown(&composer, width: 10))
        #expect(Self.moveUp(&composer, width: 10))
        #expect(composer.cursor == 6)
        #expect(!Self.moveUp(&composer, width: 10))
        #expect(composer.cursor == 6)
        #expect(Self.moveDown(&composer, width: 10))
        #expect(composer.cursor == 16)
    }

    @Test func movingVerticallyStopsBeforeAWideCharacterItWouldPass() {
        var composer = buffer("ab\n你好", cursor: 1)
        #expect(Self.moveDown(&composer, width: 10))
        #expect(composer.cursor == 3)
        composer.cursor = 2
        #expect(Self.moveDown(&composer, width: 10))
        #expect(composer.cursor == 4)
        composer.cursor = 5
        #expect(Self.moveUp(&composer, width: 10))
        #expect(composer.cursor == 2)
    }

    @Test func movingDownToAShorterLineStopsAtItsEnd() {
        var composer = buffer("lange Zeile\nkurz\n", cursor: 9)
        #expect(Self.moveDown(&composer, width: 40))
        #expect(composer.cursor == 16)
        #expect(Self.moveDown(&composer, width: 40))
        #expect(composer.cursor == 17)
        #expect(!Self.moveDown(&composer, width: 40))
    }
}
