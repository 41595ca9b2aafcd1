import SybilCore
import SybilMarkdown
import Testing

/// Peers send the text: size and nesting are bounded, and nothing crashes.
@Suite("Markdown hostile input", .timeLimit(.minutes(2)))
struct MarkdownHostileInputTests {
    @Test func sizeLimitIsCheckedAtTheBoundary() throws {
        let limits = MarkdownLimits(maximumInputBytes: 10, maximumNestingDepth: 4)
        #expect(try MarkdownDocument.parse("0123456789", limits: limits).blocks.count == 1)
        #expect(throws: MarkdownError.inputTooLarge(bytes: 11, limit: 10)) {
            try MarkdownDocument.parse("0123456789a", limits: limits)
        }
        // Bytes, not characters: 4 CJK characters are 12 bytes.
        #expect(throws: MarkdownError.inputTooLarge(bytes: 12, limit: 10)) {
            try MarkdownDocument.parse("中文中文", limits: limits)
        }
    }

    @Test func overSizedTextStillRendersAsIs() {
        let limits = MarkdownLimits(maximumInputBytes: 8, maximumNestingDepth: 4)
        let text = TerminalMarkdownRenderer(width: 40, color: false).render(markdown: "**not parsed**", limits: limits)
        #expect(text == "**not parsed**\n")
    }

    @Test func controlCharactersInAReplyAreShownNeverObeyed() {
        let hostile = "clear\u{1B}[2J title\u{1B}]0;owned\u{07} c1\u{9B}31m del\u{7F} nul\u{0}"
        let plain = TerminalMarkdownRenderer(width: 80, color: false)
        let rendered = plain.render(markdown: hostile)
        #expect(rendered == "clear\u{FFFD}[2J title\u{FFFD}]0;owned\u{FFFD} c1\u{FFFD}31m del\u{FFFD} nul\u{FFFD}\n")
        // Over the size limit, shown as it is: still made safe.
        let small = MarkdownLimits(maximumInputBytes: 4, maximumNestingDepth: 4)
        #expect(!plain.render(markdown: "x\u{1B}[31my", limits: small).contains("\u{1B}"))
        // In a code block too; the stored text keeps tab and line ends.
        let code = plain.render(markdown: "```\na\tb\u{1B}[1m\n```")
        #expect(code == "    a    b\u{FFFD}[1m\n")  // tabs expand in code blocks
        #expect(TerminalText.safe("plain\ttext\r\n") == "plain\ttext\n")
        #expect(TerminalText.safe("shown\rhidden") == "shown\u{FFFD}hidden", "no return over the line")
        #expect(plain.render(markdown: "Safe&#13;EVIL") == "Safe\u{FFFD}EVIL\n")
    }

    @Test func characterReferencesDecodedByTheParserAreMadeSafeToo() {
        let plain = TerminalMarkdownRenderer(width: 80, color: false)
        let references = [
            "&#27;]0;PWNED&#7;", "&#x1b;[2J", "[link](http://x/&#27;[31m)", "`&#27;`", "```&#27;\ncode\n```",
            "&#x9b;31m", "&#127;",
        ]
        for markdown in references {
            let rendered = plain.render(markdown: markdown)
            #expect(!rendered.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(markdown)")
            #expect(!rendered.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) }, "\(markdown)")
        }
        #expect(plain.render(markdown: "&#x1b;[2J") == "\u{FFFD}[2J\n")
    }

    @Test func bidiOverridesAreShownNeverObeyed() {
        // Trojan Source: written or as a character reference, an override shows as U+FFFD.
        let plain = TerminalMarkdownRenderer(width: 80, color: false)
        #expect(plain.render(markdown: "invoice\u{202E}fdp.exe") == "invoice\u{FFFD}fdp.exe\n")
        #expect(plain.render(markdown: "invoice&#x202E;fdp.exe") == "invoice\u{FFFD}fdp.exe\n")
        for markdown in ["`a\u{202E}b`", "[a&#8238;](http://x/&#x2066;)", "```&#x202d;\nb\u{2069}\n```", "# h&#x202B;"]
        {
            let rendered = plain.render(markdown: markdown)
            #expect(
                !rendered.unicodeScalars.contains {
                    (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
                },
                "\(markdown)")
        }
        #expect(plain.render(markdown: "שלום \u{200F}مرحبا") == "שלום \u{200F}مرحبا\n", "right-to-left text stays")
    }

    /// Depth of block quotes in a parsed document.
    private func quoteDepth(_ blocks: [MarkdownBlock]) -> Int {
        var depth = 0
        var current = blocks
        while case .blockQuote(let inner)? = current.first {
            depth += 1
            current = inner
        }
        return depth
    }

    @Test func nestingIsCappedAtTheLimitAndKeepsTheText() throws {
        let limits = MarkdownLimits(maximumInputBytes: 1 << 20, maximumNestingDepth: 3)
        let atLimit = try MarkdownDocument.parse(">>> deep", limits: limits)
        #expect(quoteDepth(atLimit.blocks) == 3)
        let overLimit = try MarkdownDocument.parse(">>>> deep", limits: limits)
        #expect(quoteDepth(overLimit.blocks) == 3)
        let underLimit = try MarkdownDocument.parse(">> deep", limits: limits)
        #expect(quoteDepth(underLimit.blocks) == 2)
        let rendered = TerminalMarkdownRenderer(width: 40, color: false).render(overLimit)
        #expect(rendered == "│ │ │ deep\n")
    }

    @Test func tenThousandQuoteMarksParseAndRender() throws {
        let text = String(repeating: ">", count: 10_000) + " bottom\n"
        let document = try MarkdownDocument.parse(text)
        #expect(quoteDepth(document.blocks) == MarkdownLimits.standard.maximumNestingDepth)
        let rendered = TerminalMarkdownRenderer(width: 80, color: true).render(document)
        #expect(rendered.contains("bottom"))
    }

    @Test func deepListsBracketsAndEmphasisDoNotCrash() throws {
        let lists = (0..<500).map { String(repeating: "  ", count: $0) + "- item \($0)" }.joined(separator: "\n")
        let hostile = [
            lists,
            String(repeating: "[", count: 50_000) + "x" + String(repeating: "]", count: 50_000),
            String(repeating: "*a", count: 50_000),
            String(repeating: "_", count: 100_000),
            "|" + String(repeating: " a |", count: 5_000) + "\n|" + String(repeating: "---|", count: 5_000),
            String(repeating: "> - 1. ", count: 3_000) + "x",
            "\u{0}\u{1}\u{7F}\u{FEFF}" + String(repeating: "\u{301}", count: 1_000),
        ]
        for text in hostile {
            let document = try MarkdownDocument.parse(text)
            _ = TerminalMarkdownRenderer(width: 60, color: true).render(document)
        }
    }

    @Test func concurrentParsesAgree() async throws {
        let text = "~~struck~~ and https://example.com and | a |\n|---|\n| b |\n"
        let expected = try MarkdownDocument.parse(text)
        let results = await withTaskGroup(of: MarkdownDocument?.self) { group in
            for _ in 0..<64 { group.addTask { try? MarkdownDocument.parse(text) } }
            var all: [MarkdownDocument?] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.allSatisfy { $0 == expected })
    }
}
