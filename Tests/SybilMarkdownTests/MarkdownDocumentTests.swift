import SybilMarkdown
import Testing

@Suite("Markdown document", .timeLimit(.minutes(2)))
struct MarkdownDocumentTests {
    @Test func headingsParagraphsAndInlineStyles() throws {
        let document = try MarkdownDocument.parse(
            "# Title\n\nSome *soft* and **strong** `code` ~~gone~~ [link](https://x.test/a) text.\n\n###### Six\n")
        #expect(
            document.blocks == [
                .heading(level: 1, runs: [MarkdownRun("Title")]),
                .paragraph([
                    MarkdownRun("Some "), MarkdownRun("soft", style: .emphasis), MarkdownRun(" and "),
                    MarkdownRun("strong", style: .strong), MarkdownRun(" "), MarkdownRun("code", style: .code),
                    MarkdownRun(" "), MarkdownRun("gone", style: .strikethrough), MarkdownRun(" "),
                    MarkdownRun("link", style: .link, link: "https://x.test/a"), MarkdownRun(" text."),
                ]),
                .heading(level: 6, runs: [MarkdownRun("Six")]),
            ])
    }

    @Test func nestedStylesCombine() throws {
        let document = try MarkdownDocument.parse("***both*** [**bold link**](u)")
        #expect(
            document.blocks == [
                .paragraph([
                    MarkdownRun("both", style: [.emphasis, .strong]), MarkdownRun(" "),
                    MarkdownRun("bold link", style: [.strong, .link], link: "u"),
                ])
            ])
    }

    @Test func breaksAndAutolinks() throws {
        let document = try MarkdownDocument.parse("one\ntwo  \nthree see https://example.com now")
        #expect(
            document.blocks == [
                .paragraph([
                    MarkdownRun("one two"), MarkdownRun("\n"), MarkdownRun("three see "),
                    MarkdownRun("https://example.com", style: .link, link: "https://example.com"),
                    MarkdownRun(" now"),
                ])
            ])
    }

    @Test func codeBlocksKeepInfoAndText() throws {
        let document = try MarkdownDocument.parse("```swift\nlet x = 1\n\nprint(x)\n```\n\n    indented\n")
        #expect(
            document.blocks == [
                .codeBlock(info: "swift", code: "let x = 1\n\nprint(x)"),
                .codeBlock(info: "", code: "indented"),
            ])
    }

    @Test func listsKeepKindStartTightnessAndItems() throws {
        let document = try MarkdownDocument.parse("3. three\n4. four\n   - nested\n\n---\n\n- a\n\n- b\n")
        #expect(
            document.blocks == [
                .list(
                    MarkdownList(
                        kind: .ordered(start: 3), isTight: true,
                        items: [
                            [.paragraph([MarkdownRun("three")])],
                            [
                                .paragraph([MarkdownRun("four")]),
                                .list(
                                    MarkdownList(
                                        kind: .bullet, isTight: true, items: [[.paragraph([MarkdownRun("nested")])]])),
                            ],
                        ])),
                .thematicBreak,
                .list(
                    MarkdownList(
                        kind: .bullet, isTight: false,
                        items: [[.paragraph([MarkdownRun("a")])], [.paragraph([MarkdownRun("b")])]])),
            ])
    }

    @Test func blockQuotesAndHTML() throws {
        let document = try MarkdownDocument.parse("> quoted\n> > inner\n\n<div>raw</div>\n")
        #expect(
            document.blocks == [
                .blockQuote([.paragraph([MarkdownRun("quoted")]), .blockQuote([.paragraph([MarkdownRun("inner")])])]),
                .html("<div>raw</div>"),
            ])
    }

    @Test func tablesKeepAlignmentsHeaderAndRows() throws {
        let document = try MarkdownDocument.parse("| a | b | c | d |\n|---|:--|:-:|--:|\n| 1 | **2** |\n")
        #expect(
            document.blocks == [
                .table(
                    MarkdownTable(
                        alignments: [.none, .left, .center, .right],
                        header: [[MarkdownRun("a")], [MarkdownRun("b")], [MarkdownRun("c")], [MarkdownRun("d")]],
                        rows: [[[MarkdownRun("1")], [MarkdownRun("2", style: .strong)], [], []]]))
            ])
    }

    @Test func emptyTextIsAnEmptyDocument() throws {
        #expect(try MarkdownDocument.parse("").blocks == [])
        #expect(try MarkdownDocument.parse("\n\n  \n").blocks == [])
    }
}
