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

    @Test func oneLineJoinsLinesWithSpaces() {
        #expect(TerminalText.oneLine("a\nb\tc\r\nd\u{1B}") == "a b c d\u{FFFD}")
    }
}
