import SybilCore
import Testing

@testable import SybilCLI

/// How a streamed reply reaches standard output.
@Suite("Reply printer", .timeLimit(.minutes(2)))
struct ReplyPrinterTests {
    /// Collects what the printer writes.
    final class Sink: Sendable {
        private let written = Locked<[String]>([])
        var writes: [String] { written.withLock { $0 } }
        var text: String { writes.joined() }
        func write(_ text: String) { written.withLock { $0.append(text) } }
    }

    static let terminal = TerminalOutput(environment: ["NO_COLOR": "1"], isTerminal: true, size: (40, 20))
    static let pipe = TerminalOutput(environment: [:], isTerminal: false, size: nil)

    @Test func onATerminalEachBlockIsWrittenOnceItIsCompleteAndTheGrowingOneRedrawn() {
        let sink = Sink()
        let printer = ReplyPrinter(terminal: Self.terminal, raw: false, write: sink.write)
        printer.write("# Title\n\nFirst ")
        #expect(sink.text == "# Title\n\nFirst\n", "drawn while its block may still grow")
        printer.write("paragraph.\n\n- one\n")
        #expect(sink.writes.last?.hasPrefix("\r\u{1B}[3A\u{1B}[J# Title\n\nFirst paragraph.\n") == true)
        printer.write("- two")
        printer.finish()
        #expect(
            VirtualTerminal.screen(sink.text, columns: 40).text == "# Title\n\nFirst paragraph.\n\n• one\n• two\n")
    }

    @Test func throughAPipeTheTextGoesOutAsItArrivesWithOneLineBreakAtTheEnd() {
        let sink = Sink()
        let printer = ReplyPrinter(terminal: Self.pipe, raw: false, write: sink.write)
        printer.write("**bold**\u{1B}[2J")
        printer.write(" rest")
        printer.finish()
        #expect(sink.writes == ["**bold**\u{1B}[2J", " rest", "\n"], "a script gets the bytes the model sent")
    }

    @Test func rawOnATerminalKeepsTheMarkdownButNeverAControlCharacter() {
        let sink = Sink()
        let printer = ReplyPrinter(terminal: Self.terminal, raw: true, write: sink.write)
        printer.write("**bold**\u{1B}[2J")
        printer.finish()
        #expect(sink.text == "**bold**\u{FFFD}[2J\n")
    }

    @Test func nothingIsWrittenAfterTheReplyFinished() {
        for raw in [false, true] {
            let sink = Sink()
            let printer = ReplyPrinter(terminal: Self.terminal, raw: raw, write: sink.write)
            printer.write("kept")
            printer.finish()
            let shown = sink.text
            printer.write(" late delta")
            printer.finish()
            #expect(sink.text == shown, "a delta after the end is neither shown nor a second line break")
        }
    }

    @Test func noTextWritesNothingNotEvenALineBreak() {
        for (terminal, raw) in [(Self.terminal, false), (Self.terminal, true), (Self.pipe, false)] {
            let sink = Sink()
            let printer = ReplyPrinter(terminal: terminal, raw: raw, write: sink.write)
            printer.write("")
            printer.finish()
            #expect(sink.writes.isEmpty)
        }
    }
}

/// What peers said reaches standard error shown, never obeyed.
@Suite("Standard error is display-safe", .timeLimit(.minutes(2)))
struct StandardErrorSafetyTests {
    @Test func controlCharactersInAnErrorLineAreShownAsReplacementCharacters() {
        let test = TestIO()
        test.io.writeError("sybil records sync: rejected (x): \u{1B}]0;owned\u{07}\u{1B}[2J done\r\n\tnext\n")
        #expect(test.stderr == "sybil records sync: rejected (x): \u{FFFD}]0;owned\u{FFFD}\u{FFFD}[2J done\n\tnext\n")
    }
}
