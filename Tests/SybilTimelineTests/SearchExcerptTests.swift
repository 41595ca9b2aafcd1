import SybilCore
import SybilTimeline
import Testing

@Suite("Search excerpt", .timeLimit(.minutes(2)))
struct SearchExcerptTests {
    private func marked(_ excerpt: SearchExcerpt) -> String {
        excerpt.runs.map { $0.isMatch ? "[\($0.text)]" : $0.text }.joined()
    }

    private func excerpt(_ text: String, _ terms: [String], width: Int = 80) -> String {
        marked(SearchExcerpt(text: text, terms: terms, width: width))
    }

    @Test func oneLineWithWholeWordsMarked() {
        #expect(excerpt("Planning\nthe\r\n trip\tsoon", ["plan"]) == "[Planning] the trip soon")
        #expect(excerpt("An airplane; PLAN b", ["plan"]) == "An airplane; [PLAN] b")
        #expect(excerpt("  padded  ", []) == "padded")
        #expect(excerpt("Größe zählt, Café", ["gro", "ZAH", "cafe"]) == "[Größe] [zählt], [Café]")
        #expect(excerpt("e-mail me", ["mail"]) == "e-[mail] me")
        #expect(excerpt("Привет мир", ["прив"]) == "[Привет] мир")
    }

    /// A saved reply's bidi override (Trojan Source) is shown as U+FFFD, which takes its column,
    /// never written for a terminal to obey; right-to-left letters and the implicit marks stay.
    @Test func bidiOverridesAreShownAndCounted() {
        let hit = SearchExcerpt(text: "invoice\u{202E}fdp.exe plan \u{2067}x\u{2069}", terms: ["plan"], width: 80)
        #expect(marked(hit) == "invoice\u{FFFD}fdp.exe [plan] \u{FFFD}x\u{FFFD}")
        #expect(hit.columns == 24)
        let cut = SearchExcerpt(text: "a\u{202E}bcdef", terms: [], width: 4)
        #expect(cut.text == "a\u{FFFD}…f" && cut.columns == 4, "the shown U+FFFD counts when the line is cut")
        #expect(excerpt("שלום \u{200F}مرحبا", []) == "שלום \u{200F}مرحبا")
    }

    @Test func cjkTermsMatchAnywhere() {
        #expect(excerpt("今天天气很好", ["天气"]) == "今天[天气]很好")
        #expect(excerpt("iPhone用户", ["iphone", "用户"]) == "[iPhone用户]")
    }

    @Test func widthsCountWideCharactersTwice() {
        #expect(DisplayWidth.columns(of: "abc") == 3)
        #expect(DisplayWidth.columns(of: "今天") == 4)
        #expect(DisplayWidth.columns(of: "🙂") == 2)
        #expect(DisplayWidth.columns(of: "👩‍👩‍👧") == 2)
        #expect(DisplayWidth.columns(of: "e\u{301}") == 1)
        #expect(DisplayWidth.columns(of: "Ä") == 1)
        #expect(DisplayWidth.columns(of: "❤️") == 2)
    }

    @Test(
        "a line exactly as wide as the width is whole; one column more is cut",
        arguments: [("abcdefghij", 10), ("今天天气很好", 12), ("Straße über", 11), ("🙂🙂🙂🙂", 8)])
    func widthBoundary(text: String, columns: Int) {
        #expect(SearchExcerpt(text: text, terms: [], width: columns).text == text)
        let cut = SearchExcerpt(text: text, terms: [], width: columns - 1)
        #expect(cut.text.contains("…"))
        #expect(cut.columns <= columns - 1)
    }

    /// `sybil search plan` at 60 columns left 25 columns for this excerpt and printed
    /// "How do I [pla]…n for login?": only the match's first character was kept in the head.
    @Test func theFirstMatchIsWholeAtTheWidthWhereItWasCut() {
        let text = "How do I plan the screen for login?"
        #expect(excerpt(text, ["plan"], width: 25) == "How do I [plan] the screen…")
        #expect(excerpt(text, ["plan"], width: 26) == "How do I [plan]…n for login?")
        // An `…` standing for a single space is no cut: the start is kept whole instead.
        #expect(excerpt(text, ["plan"], width: 20) == "How do I [plan] the s…")
    }

    @Test func aMatchNearTheStartKeepsTheStartAndTheEnd() {
        let text = "plan the first day then walk along the river and finish at the old market square"
        #expect(excerpt(text, ["plan"], width: 30) == "[plan] the first…market square")
    }

    @Test func aLateMatchKeepsTheStartThenTheMatchInView() {
        let text = "The morning was quiet and long, nothing happened until we discussed the budget for next year"
        #expect(excerpt(text, ["budget"], width: 40) == "The morning…the [budget] for next year")
        let chinese = "我们今天早上一直在讨论很多事情，最后才谈到明年的预算问题和计划"
        let line = SearchExcerpt(text: chinese, terms: ["预算"], width: 24)
        #expect(marked(line) == "我们今…年的[预算]问题和计…")
        #expect(line.columns <= 24)
    }

    /// Every width from 0 to 70 (so every cut around each text's boundaries): never wider than
    /// the width, and whenever the first match fits with an `…` on each side, its whole matched
    /// text is the line's first marked run (never cut by an `…`, never only its start).
    @Test func neverWiderThanTheWidthAndTheFirstMatchStaysInView() throws {
        let texts = [
            "How do I plan the screen for login?",
            "Ein sehr langer deutscher Satz über die Größe der Straßenbahnhaltestelle und ihre Planung",
            "今天我们讨论了很多事情，包括旅行计划和预算，还有很多别的东西要做",
            "🙂 emoji 🎉 everywhere 👩‍👩‍👧 and a plan at the very end of this line 🙂",
            "A long preamble that goes on and on before the planning begins in earnest today",
            String(repeating: "x", count: 200) + " plan",
            String(repeating: "y", count: 30) + " Straßenbahnhaltestellenplanung and more words after it",
        ]
        let terms = ["plan", "預算", "größe", "计划", "straßen"]
        for text in texts {
            let whole = SearchExcerpt(text: text, terms: terms, width: 10_000)
            let firstMatch = try #require(whole.runs.first { $0.isMatch }?.text)
            for width in 0...70 {
                let line = SearchExcerpt(text: text, terms: terms, width: width)
                let note = Comment(rawValue: "\(text) at \(width): \(marked(line))")
                #expect(line.columns <= width, note)
                if width >= DisplayWidth.columns(of: firstMatch) + 2 {
                    #expect(line.runs.first { $0.isMatch }?.text == firstMatch, note)
                }
            }
        }
        #expect(SearchExcerpt(text: "abc", terms: [], width: 0).runs.isEmpty)
        #expect(SearchExcerpt(text: "abcdef", terms: [], width: 1).text == "…")
    }

    /// ASCII text is read as bytes, other text character by character: a trailing no-break
    /// space (whitespace, so trimmed away) sends the same text down the character path, and
    /// the two excerpts must be the same for every width.
    @Test func asciiTextGivesTheSameExcerptAsTheCharacterByCharacterReading() {
        let random = SeededRandomSource(seed: 30)
        let words = ["plan", "Planning", "PLAN", "trip", "a", "e-mail", "x9", "over-long-word", "3rd", "plan's"]
        let blanks = [" ", "  ", "\t", "\n", "\r\n", "\u{01}", "\u{7F}", " \u{1F} "]
        let terms = [["plan"], ["PL"], ["tri", "mail"], ["zz"], [], ["3"], ["over"]]
        for _ in 0..<300 {
            var text = Int(random.next(below: 3)) == 0 ? blanks[Int(random.next(below: UInt64(blanks.count)))] : ""
            for _ in 0..<Int(random.next(below: 40)) {
                text += words[Int(random.next(below: UInt64(words.count)))]
                text += blanks[Int(random.next(below: UInt64(blanks.count)))]
            }
            let query = terms[Int(random.next(below: UInt64(terms.count)))]
            for width in [0, 1, 2, 3, 5, 12, 20, 33, 60, 80, 200] {
                let bytes = SearchExcerpt(text: text, terms: query, width: width)
                let characters = SearchExcerpt(text: text + "\u{A0}", terms: query, width: width)
                #expect(bytes == characters, "\(text.debugDescription) \(query) at \(width)")
            }
        }
    }
}
