import Testing

@testable import SybilTUI

@Suite struct DisplayWidthTests {
    @Test func asciiTakesOneColumnPerCharacter() {
        #expect(DisplayWidth.of("Hallo, Welt") == 11)
    }

    @Test func germanUmlautsTakeOneColumnComposedOrDecomposed() {
        #expect(DisplayWidth.of("Grüße") == 5)
        #expect(DisplayWidth.of("Gru\u{308}ße") == 5)
    }

    @Test func chineseTakesTwoColumnsPerCharacter() {
        #expect(DisplayWidth.of("你好世界") == 8)
        #expect(DisplayWidth.of("（全角）") == 8)
    }

    @Test func emojiTakeTwoColumnsIncludingZWJSequencesFlagsAndVS16() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👩‍💻") == 2)
        #expect(DisplayWidth.of("👨‍👩‍👧‍👦") == 2)
        #expect(DisplayWidth.of("🇩🇪") == 2)
        #expect(DisplayWidth.of("❤\u{FE0F}") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)
    }

    @Test func textPresentationSymbolsTakeOneColumn() {
        #expect(DisplayWidth.of("❤") == 1)
        #expect(DisplayWidth.of("→") == 1)
    }

    @Test func controlsAndLoneMarksTakeNoColumns() {
        #expect(DisplayWidth.of("\u{1B}") == 0)
        #expect(DisplayWidth.of("\u{200B}") == 0)
        #expect(DisplayWidth.of(Character("\u{301}")) == 0)
    }

    @Test func prefixNeverSplitsAWideCharacter() {
        let (text, width) = DisplayWidth.prefix(of: "ab你好", fitting: 5)
        #expect(text == "ab你")
        #expect(width == 4)
    }

    @Test func truncateEndsInAnEllipsisOnlyWhenCut() {
        #expect(DisplayWidth.truncate("Sybil", to: 5) == "Sybil")
        #expect(DisplayWidth.truncate("Sybil Agent", to: 6) == "Sybil…")
        #expect(DisplayWidth.truncate("你好世界", to: 4) == "你…")
    }
}
