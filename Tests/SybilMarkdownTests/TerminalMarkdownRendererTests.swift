import SybilCore
import SybilMarkdown
import Testing

/// Snapshots: the exact text, escape sequences included, for small documents.
@Suite("Terminal Markdown renderer", .timeLimit(.minutes(2)))
struct TerminalMarkdownRendererTests {
    let plain = TerminalMarkdownRenderer(width: 30, color: false)
    let colored = TerminalMarkdownRenderer(width: 30, color: true)

    @Test func paragraphsWrapAtTheWidthBoundary() {
        // 30 columns fit exactly; one more wraps.
        let thirty = String(repeating: "a", count: 14) + " " + String(repeating: "b", count: 15)
        #expect(plain.render(markdown: thirty) == thirty + "\n")
        let thirtyOne = String(repeating: "a", count: 14) + " " + String(repeating: "b", count: 16)
        #expect(
            plain.render(markdown: thirtyOne) == String(repeating: "a", count: 14) + "\n"
                + String(repeating: "b", count: 16) + "\n")
    }

    @Test func longWordsSplitAndStyledWordsStayWhole() {
        #expect(
            plain.render(markdown: String(repeating: "x", count: 35)) == String(repeating: "x", count: 30) + "\nxxxxx\n"
        )
        #expect(
            plain.render(markdown: String(repeating: "w ", count: 13) + "**bold**ed")
                == "w w w w w w w w w w w w w\nbolded\n")
    }

    @Test func chineseWrapsBetweenCharactersByColumns() {
        let text = String(repeating: "中", count: 16)
        #expect(plain.render(markdown: text) == String(repeating: "中", count: 15) + "\n中\n")
    }

    @Test func germanAndEmojiCountTheirColumns() {
        // 16 + 1 + 9 + 1 + 2 (the emoji ends at column 29) + 1 + 2 = 32 columns.
        let text = "Größenänderungen übernimmt 👍🏽 ok"
        #expect(DisplayWidth.columns(of: text) == 32)
        #expect(plain.render(markdown: text) == "Größenänderungen übernimmt 👍🏽\nok\n")
        // 28 columns and the 2-column emoji end exactly at the edge; one more column wraps it.
        #expect(plain.render(markdown: "Größenänderungen übernimmt, 👍🏽") == "Größenänderungen übernimmt, 👍🏽\n")
        #expect(plain.render(markdown: "Größenänderungen übernimmt,, 👍🏽") == "Größenänderungen übernimmt,,\n👍🏽\n")
    }

    @Test func inlineStylesAsSGR() {
        #expect(
            colored.render(markdown: "*it* **bo ld** `c` ~~s~~")
                == "\u{1B}[3mit\u{1B}[0m \u{1B}[1mbo ld\u{1B}[0m \u{1B}[7mc\u{1B}[0m \u{1B}[9ms\u{1B}[0m\n")
    }

    @Test func linksAreUnderlinedWithTheURLAfter() {
        #expect(colored.render(markdown: "[docs](https://d.test)") == "\u{1B}[4mdocs\u{1B}[0m (https://d.test)\n")
        #expect(plain.render(markdown: "[docs](https://d.test)") == "docs (https://d.test)\n")
        #expect(plain.render(markdown: "see https://d.test") == "see https://d.test\n")
        #expect(plain.render(markdown: "<me@d.test>") == "me@d.test\n")
    }

    @Test func headingsAreBoldWithDimMarkers() {
        #expect(colored.render(markdown: "## Two") == "\u{1B}[2m## \u{1B}[0m\u{1B}[1mTwo\u{1B}[0m\n")
        #expect(plain.render(markdown: "# One\ntext") == "# One\n\ntext\n")
    }

    @Test func codeBlocksAreIndentedDimAndNeverWrapped() {
        let long = String(repeating: "x", count: 40)
        #expect(plain.render(markdown: "```\n\(long) y\n\n\tz\n```") == "    \(long) y\n\n        z\n")
        #expect(colored.render(markdown: "```\nlet a\n```") == "\u{1B}[2m    let a\u{1B}[0m\n")
    }

    @Test func listsHaveMarkersNumbersAndHangingIndent() {
        let markdown = "9. nine\n10. ten words that wrap past the width\n\n- a\n  - b\n"
        #expect(
            plain.render(markdown: markdown) == """
                 9. nine
                10. ten words that wrap past
                    the width

                • a
                  ◦ b

                """)
        #expect(plain.render(markdown: "- a\n\n- b") == "• a\n\n• b\n")
    }

    @Test func blockQuotesHaveABar() {
        #expect(
            plain.render(markdown: "> quoted words that wrap at the width\n>\n> two") == """
                │ quoted words that wrap at
                │ the width
                │
                │ two

                """)
        #expect(colored.render(markdown: "> q") == "\u{1B}[2m│ \u{1B}[0mq\n")
    }

    @Test func tablesAlignColumnsByWidth() {
        let markdown = "| k | Wert |\n|:-:|---:|\n| 中文 | 1 |\n| abcdef | 22 |\n"
        #expect(
            plain.render(markdown: markdown) == """
                ┌────────┬──────┐
                │   k    │ Wert │
                ├────────┼──────┤
                │  中文  │    1 │
                │ abcdef │   22 │
                └────────┴──────┘

                """)
    }

    @Test func wideTablesShrinkAndWrapCells() {
        let markdown = "| a | b |\n|---|---|\n| one two three four five | x |\n"
        #expect(
            plain.render(markdown: markdown) == """
                ┌────────────────────────┬───┐
                │ a                      │ b │
                ├────────────────────────┼───┤
                │ one two three four     │ x │
                │ five                   │   │
                └────────────────────────┴───┘

                """)
    }

    @Test func columnsShrinkNoNarrowerThanThree() {
        // Five columns need 16 columns of borders; 30 leave 14 for the cells, less than 3 each:
        // the table overflows rather than squeeze a column to 2.
        let markdown = "| aaaa | bbbb | cccc | dddd | eeee |\n|---|---|---|---|---|\n"
        let lines = plain.render(markdown: markdown).split(separator: "\n")
        #expect(lines[0] == "┌─────┬─────┬─────┬─────┬─────┐")
        #expect(lines[1] == "│ aaa │ bbb │ ccc │ ddd │ eee │")
        #expect(lines[2] == "│ a   │ b   │ c   │ d   │ e   │")
        // Four columns: 13 of borders, 17 for cells: the widest shrink first, leftmost first: 4, 4, 4, 5.
        let four = plain.render(markdown: "| aaaaa | bbbbb | ccccc | ddddd |\n|---|---|---|---|\n")
        #expect(four.split(separator: "\n")[0] == "┌──────┬──────┬──────┬───────┐")
    }

    @Test func thematicBreaksSpanTheWidth() {
        #expect(plain.render(markdown: "a\n\n***\n\nb") == "a\n\n" + String(repeating: "─", count: 30) + "\n\nb\n")
    }

    @Test func plainAndColoredShareTheLayout() throws {
        let markdown = "# T\n\n**a** [l](u) `c`\n\n> q\n\n1. x\n\n| h |\n|---|\n| v |\n\n```\nk\n```\n"
        let stripped = colored.render(markdown: markdown).replacing(/\x{1B}\[[0-9;]*m/, with: "")
        #expect(stripped == plain.render(markdown: markdown))
        #expect(!plain.render(markdown: markdown).contains("\u{1B}"))
    }

    @Test func narrowWidthsAreRaisedToTheMinimum() {
        #expect(TerminalMarkdownRenderer(width: 1).width == TerminalMarkdownRenderer.minimumWidth)
        #expect(TerminalMarkdownRenderer(width: 19).width == 20)
        #expect(TerminalMarkdownRenderer(width: 20).width == 20)
        #expect(TerminalMarkdownRenderer(width: 21).width == 21)
    }
}
