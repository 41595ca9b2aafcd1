import SybilMarkdown
import Testing

@testable import SybilTUI

@Suite struct MarkdownLinesTests {
    private let theme = Theme.dark

    private func text(_ markdown: String, width: Int) -> [String] {
        MarkdownLines.lines(markdown: markdown, width: width, theme: theme).map(\.plainText)
    }

    @Test func paragraphsWrapByWordsAtTheWidth() {
        #expect(
            text("Die Größe der Übergänge wächst schnell", width: 14) == [
                "Die Größe der", "Übergänge", "wächst schnell",
            ])
    }

    @Test func chineseWrapsBetweenCharacters() {
        #expect(text("中文字符换行测试", width: 7) == ["中文字", "符换行", "测试"])
    }

    @Test func emojiStayWholeAndCountTwoColumns() {
        let lines = MarkdownLines.lines(markdown: "ok 👍🏽 👨‍👩‍👧 done", width: 6, theme: theme)
        #expect(lines.map(\.plainText) == ["ok 👍🏽", "👨‍👩‍👧", "done"])
        #expect(lines.allSatisfy { $0.width <= 6 })
    }

    @Test func anOverlongWordIsHardWrappedByGrapheme() {
        #expect(text("Donaudampfschifffahrt", width: 8) == ["Donaudam", "pfschiff", "fahrt"])
    }

    @Test func inlineStylesMapToThemeRoles() {
        let lines = MarkdownLines.lines(markdown: "*a* **b** ~~c~~ `d` [e](https://x.example)", width: 60, theme: theme)
        let spans = lines[0].spans
        func style(of text: String) -> CellStyle? { spans.first { $0.text == text }?.style }
        #expect(style(of: "a")?.attributes.contains(.italic) == true)
        #expect(style(of: "b")?.attributes.contains(.bold) == true)
        #expect(style(of: "c")?.attributes.contains(.strikethrough) == true)
        #expect(style(of: "d")?.background == theme.code.background)
        #expect(style(of: "e")?.foreground == theme.link.foreground)
        #expect(lines[0].plainText == "a b c d e (https://x.example)")
    }

    @Test func headingsAreAccentAndBold() {
        let lines = MarkdownLines.lines(markdown: "## Überblick", width: 20, theme: theme)
        #expect(lines.map(\.plainText) == ["Überblick"])
        #expect(lines[0].spans[0].style.foreground == theme.accent.foreground)
        #expect(lines[0].spans[0].style.attributes.contains(.bold))
    }

    @Test func listsHangTheirIndentAndNest() {
        let markdown = "- one two three\n  - inner item\n- four\n\n1. erste\n2. zweite"
        #expect(
            text(markdown, width: 12) == [
                "• one two", "  three", "  ◦ inner", "    item", "• four", "", "1. erste", "2. zweite",
            ])
    }

    @Test func quotesCarryABarOnEveryLine() {
        #expect(text("> quoted text that wraps", width: 12) == ["│ quoted", "│ text that", "│ wraps"])
    }

    @Test func codeBlocksFillTheWidthAndAreCutNotWrapped() {
        let lines = MarkdownLines.lines(
            markdown: "```\nshort\nlet value = compute(everything)\n```", width: 12, theme: theme)
        #expect(lines.map(\.plainText) == [" short      ", " let value …"])
        #expect(lines.allSatisfy { $0.width == 12 && $0.spans.allSatisfy { $0.style == theme.code } })
    }

    @Test func thematicBreaksSpanTheWidth() {
        #expect(text("a\n\n---\n\nb", width: 5) == ["a", "", "─────", "", "b"])
    }

    @Test func tablesAreBoxedAlignedAndShrunk() {
        let markdown = "| Name | Größe |\n|:--|--:|\n| 中文 | 7 |\n| emoji 👍 | 1234 |"
        #expect(
            text(markdown, width: 40) == [
                "┌──────────┬───────┐",
                "│ Name     │ Größe │",
                "├──────────┼───────┤",
                "│ 中文     │     7 │",
                "│ emoji 👍 │  1234 │",
                "└──────────┴───────┘",
            ])
        let narrow = text(markdown, width: 16)
        #expect(narrow.allSatisfy { DisplayWidth.of($0) <= 16 })
        #expect(narrow.first == "┌──────┬───────┐")
    }

    @Test func noLineIsWiderThanTheWidth() {
        let markdown = "> - ```\n>   a very long line of code here\n>   ```\n\n| a | b | c | d | e | f |\n|-|-|-|-|-|-|"
        for width in 1...12 {
            for line in MarkdownLines.lines(markdown: markdown, width: width, theme: theme) {
                #expect(line.width <= width, "\(line.plainText) at \(width)")
            }
        }
    }
}
