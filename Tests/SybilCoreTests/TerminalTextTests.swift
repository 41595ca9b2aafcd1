import SybilCore
import Testing

/// Peer text is shown on a terminal, never obeyed.
@Suite("Terminal text", .timeLimit(.minutes(2)))
struct TerminalTextTests {
    @Test(
        "escape sequences and controls become U+FFFD",
        arguments: [
            ("\u{1B}]52;c;cHduZWQ=\u{07}", "\u{FFFD}]52;c;cHduZWQ=\u{FFFD}"),  // sets the clipboard
            ("\u{1B}[2J", "\u{FFFD}[2J"),  // clears the screen
            ("\u{1B}]0;owned\u{1B}\\", "\u{FFFD}]0;owned\u{FFFD}\\"),  // retitles the window
            ("a\u{9B}31mb", "a\u{FFFD}31mb"),  // an 8-bit CSI (C1)
            ("a\u{85}b\u{7F}c", "a\u{FFFD}b\u{FFFD}c"),  // NEL and DEL
            ("shown\rhidden", "shown\u{FFFD}hidden"),  // a lone CR cannot return over the line
            ("\u{0}\u{8}", "\u{FFFD}\u{FFFD}"),
        ])
    func unsafe(text: String, shown: String) {
        #expect(TerminalText.safe(text) == shown)
    }

    @Test func tabsLineFeedsAndOrdinaryTextStay() {
        #expect(TerminalText.safe("plain\ttext\nGrüße 你好 🎉") == "plain\ttext\nGrüße 你好 🎉")
        #expect(TerminalText.safe("one\r\ntwo\r\n") == "one\ntwo\n", "CR LF is a line end")
        #expect(TerminalText.safe("\u{A0}\u{A1}") == "\u{A0}\u{A1}", "the first characters after C1 are kept")
        #expect(TerminalText.safe("\u{1F}\u{20}") == "\u{FFFD} ", "the last C0 control and the first printable")
    }

    /// Trojan Source (CVE-2021-42574): an override, embedding or isolate makes a terminal that
    /// implements bidi (VTE, Konsole, mlterm) show the bytes in another order.
    @Test(
        "bidi overrides, embeddings and isolates become U+FFFD",
        arguments: [
            ("invoice\u{202E}fdp.exe", "invoice\u{FFFD}fdp.exe"),  // RLO: shows as "invoiceexe.pdf"
            ("exit \u{202E}1\u{202C} 0", "exit \u{FFFD}1\u{FFFD} 0"),  // RLO … PDF
            ("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}", String(repeating: "\u{FFFD}", count: 5)),  // LRE … RLO
            ("\u{2066}\u{2067}\u{2068}\u{2069}", String(repeating: "\u{FFFD}", count: 4)),  // LRI RLI FSI PDI
        ])
    func bidiControls(text: String, shown: String) {
        #expect(TerminalText.safe(text) == shown)
        #expect(TerminalText.oneLine(text) == shown)
    }

    @Test func rightToLeftTextAndTheImplicitMarksStay() {
        // Hebrew and Arabic letters order themselves; LRM, RLM and ALM act like one invisible
        // letter of their direction, which the letters themselves can do as well.
        let text = "שלום עולם, مرحبا بالعالم 123\u{200E}.\u{200F} \u{061C}١٢٣"
        #expect(TerminalText.safe(text) == text)
        let neighbours = "a\u{2029}b\u{202F}c\u{2065}d\u{206A}e"  // just outside U+202A–U+202E and U+2066–U+2069
        #expect(TerminalText.safe(neighbours) == neighbours)
    }

    @Test func oneLineJoinsLinesWithSpaces() {
        #expect(TerminalText.oneLine("a\nb\tc\r\nd\u{1B}") == "a b c d\u{FFFD}")
    }
}
