import SybilCore
import SybilMarkdown
import SybilNet
import Testing

@testable import SybilCLI

/// The reply on a terminal: completed blocks written once, the growing block redrawn in place,
/// and the screen at the end equal to the rendering of the whole text.
@Suite("Reply printer live redraw", .timeLimit(.minutes(2)))
struct ReplyPrinterLiveTests {
    static func terminal(columns: Int = 30, rows: Int = 20, styled: Bool = false) -> TerminalOutput {
        TerminalOutput(environment: styled ? [:] : ["NO_COLOR": "1"], isTerminal: true, size: (columns, rows))
    }

    static let reply = """
        # Sky

        The sky is blue because air scatters short wavelengths of sunlight more than long ones.

        - Rayleigh scattering
        - **Mie** scattering for larger particles

        ```swift
        let color = "blue, and a code line longer than the terminal is wide"
        ```

        Done.
        """

    /// Feeds `text` in pieces of `size` characters; returns every write.
    private func stream(_ text: String, size: Int, terminal: TerminalOutput) -> [String] {
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: terminal, raw: false, write: sink.write)
        var rest = Substring(text)
        while !rest.isEmpty {
            printer.write(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        printer.finish()
        return sink.writes
    }

    @Test(arguments: [1, 3, 7, 1_000])
    func theScreenEndsAsTheRenderingOfTheWholeText(pieceSize: Int) {
        for styled in [false, true] {
            let terminal = Self.terminal(styled: styled)
            let writes = stream(Self.reply, size: pieceSize, terminal: terminal)
            let rendered = TerminalMarkdownRenderer(width: terminal.columns, color: terminal.isStyled).render(
                markdown: Self.reply)
            let expected = VirtualTerminal.screen(rendered, columns: terminal.columns)
            #expect(rendered.hasSuffix("\n"))
            let shown = VirtualTerminal.screen(writes.joined(), columns: terminal.columns)
            #expect(shown.text == expected.text)
            #expect(shown.unknown.isEmpty && shown.overshoot == 0)
        }
    }

    @Test func theGrowingBlockIsVisibleBeforeItCompletesAndRedrawnFromItsStart() {
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: Self.terminal(), raw: false, write: sink.write)
        printer.write("one two")
        #expect(sink.writes == ["one two\n"], "the growing paragraph is drawn at once")
        printer.write(" three")
        // Back up the one row the first drawing went down, clear to the end of the screen, and
        // draw the paragraph again.
        #expect(sink.writes.last == "\r\u{1B}[1A\u{1B}[J" + "one two three\n")
        printer.write("\n\nNext\n")
        // The paragraph is complete: erased, written once for good, then the new growing
        // block after its blank line.
        #expect(sink.writes.last == "\r\u{1B}[1A\u{1B}[J" + "one two three\n" + "\nNext\n")
        printer.finish()
        #expect(sink.writes.last == "\r\u{1B}[2A\u{1B}[J" + "\nNext\n", "only the growing block is redrawn")
        let screen = VirtualTerminal.screen(sink.text, columns: 30)
        #expect(screen.text == "one two three\n\nNext\n")
    }

    @Test func aDeltaThatDoesNotChangeTheDrawingWritesNothing() {
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: Self.terminal(), raw: false, write: sink.write)
        printer.write("one")
        printer.write(" ")
        #expect(sink.writes == ["one\n"], "a trailing space renders the same paragraph")
        printer.write("two")
        #expect(sink.writes.count == 2)
    }

    @Test func eachDeltaRendersOnlyTheGrowingBlock() {
        // A long reply of complete paragraphs: what a delta writes stays the size of one
        // paragraph, however much came before.
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: Self.terminal(columns: 80, rows: 50), raw: false, write: sink.write)
        var largest = 0
        for index in 0..<400 {
            let before = sink.writes.count
            printer.write("Paragraph \(index) has some words.\n\n")
            largest = max(largest, sink.writes[before...].map(\.utf8.count).max() ?? 0)
        }
        printer.finish()
        #expect(largest < 200)
    }

    @Test func aLineExactlyAsWideAsTheTerminalTakesOneRow() {
        #expect(ReplyPrinter.rowsAdvanced(by: "0123456789\n", columns: 10) == 1)
        #expect(ReplyPrinter.rowsAdvanced(by: "0123456789A\n", columns: 10) == 2)
        #expect(ReplyPrinter.rowsAdvanced(by: "\u{1B}[1m0123456789\u{1B}[0m", columns: 10) == 0)
        #expect(ReplyPrinter.rowsAdvanced(by: "\nab\n\n", columns: 10) == 3)
    }

    @Test func aGrowingBlockTallerThanTheScreenWaitsForItsEnd() {
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: Self.terminal(columns: 20, rows: 5), raw: false, write: sink.write)
        printer.write("```\n1\n2\n3\n")
        #expect(sink.text.contains("1"))
        printer.write("4\n5\n6\n")
        let afterTall = sink.writes.count
        printer.write("7\n")
        #expect(sink.writes.count == afterTall, "the cursor could not get back to the block's top")
        #expect(
            VirtualTerminal.screen(sink.text, columns: 20).text.contains("3"),
            "the last drawing stays until the block completes")
        printer.write("```\n")
        printer.finish()
        let screen = VirtualTerminal.screen(sink.text, columns: 20)
        #expect(screen.overshoot == 0)
        #expect(screen.text.contains("7"))
    }

    @Test func theLiveBlockLimitHoldsAtItsBoundary() {
        // An unclosed fence: redrawn while at most the limit is pending, not past it.
        let line = String(repeating: "x", count: 63) + "\n"
        let fence = "```\n" + String(repeating: line, count: ReplyPrinter.maximumLiveBlockBytes / 64 - 1)
        let padding = String(repeating: "y", count: ReplyPrinter.maximumLiveBlockBytes - fence.utf8.count)
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: Self.terminal(columns: 80, rows: 500), raw: false, write: sink.write)
        printer.write(fence + padding)
        #expect(!sink.writes.isEmpty, "exactly at the limit the block is drawn")
        let sink2 = ReplyPrinterTests.Sink()
        let printer2 = ReplyPrinter(terminal: Self.terminal(columns: 80, rows: 500), raw: false, write: sink2.write)
        printer2.write(fence + padding + "y")
        #expect(sink2.writes.isEmpty, "one byte past the limit it waits for its end")
    }
}

/// Reasoning on a terminal and through a pipe.
@Suite("Reply printer reasoning", .timeLimit(.minutes(2)))
struct ReplyPrinterReasoningTests {
    @Test func aTerminalShowsOneDimmedThinkingLineErasedWhenTheAnswerStarts() {
        let sink = ReplyPrinterTests.Sink()
        let terminal = ReplyPrinterLiveTests.terminal(styled: true)
        let printer = ReplyPrinter(terminal: terminal, raw: false, write: sink.write)
        printer.receive(ChatDelta(reasoning: "Hmm"))
        printer.receive(ChatDelta(reasoning: " more"))
        #expect(sink.writes == ["\u{1B}[2mthinking…\u{1B}[0m"])
        printer.receive(ChatDelta(text: "Blue"))
        #expect(sink.writes.last?.hasPrefix("\r\u{1B}[2K") == true)
        printer.finish()
        #expect(VirtualTerminal.screen(sink.text, columns: 30).text == "Blue\n")
    }

    @Test func thinkingWithNoAnswerIsErasedAtTheEnd() {
        let sink = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: ReplyPrinterLiveTests.terminal(), raw: false, write: sink.write)
        printer.receive(ChatDelta(reasoning: "Hmm"))
        printer.finish()
        #expect(VirtualTerminal.screen(sink.text, columns: 30).text == "")
    }

    @Test func throughAPipeReasoningIsDroppedUnlessAskedFor() {
        let pipe = ReplyPrinterTests.pipe
        let quiet = ReplyPrinterTests.Sink()
        let printer = ReplyPrinter(terminal: pipe, raw: false, write: quiet.write)
        printer.receive(ChatDelta(reasoning: "Hmm"))
        printer.receive(ChatDelta(text: "Blue"))
        printer.finish()
        #expect(quiet.text == "Blue\n")
        let shown = ReplyPrinterTests.Sink()
        let showing = ReplyPrinter(terminal: pipe, raw: false, showReasoning: true, write: shown.write)
        showing.receive(ChatDelta(reasoning: "Hmm,"))
        showing.receive(ChatDelta(reasoning: " blue."))
        showing.receive(ChatDelta(text: "Blue"))
        showing.finish()
        #expect(shown.text == "Hmm, blue.\n\nBlue\n", "plain, before the answer, a blank line between")
    }

    @Test func onATerminalShownReasoningIsDimmedAndMadeSafe() {
        let sink = ReplyPrinterTests.Sink()
        let terminal = ReplyPrinterLiveTests.terminal(styled: true)
        let printer = ReplyPrinter(terminal: terminal, raw: false, showReasoning: true, write: sink.write)
        printer.receive(ChatDelta(reasoning: "Hmm\u{1B}[2J\n"))
        #expect(sink.writes == ["\u{1B}[2mHmm\u{FFFD}[2J\n\u{1B}[0m"])
        printer.receive(ChatDelta(text: "Blue"))
        printer.finish()
        #expect(VirtualTerminal.screen(sink.text, columns: 30).text == "Hmm\u{FFFD}[2J\n\nBlue\n")
    }
}
