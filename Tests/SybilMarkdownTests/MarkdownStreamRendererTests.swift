import SybilCore
import SybilMarkdown
import Testing

@Suite("Markdown stream renderer", .timeLimit(.minutes(2)))
struct MarkdownStreamRendererTests {
    let renderer = TerminalMarkdownRenderer(width: 50, color: true)

    /// A reply like the ones models write, with the constructs that may span blank lines.
    static let reply = """
        # Setting up

        Install the **package** first, then read [the guide](https://g.test/x).
        It has two parts.

        1. Download it
        2. Unpack it

        3. Run `make`
           with a continuation

        - item one

          second paragraph of item one
        - item two

        ```sh
        make install

        make test
        ```

        > A quote

        > Another quote

        | Tool | Version |
        |------|--------:|
        | cc   | 14      |

            indented code

            more indented code

        <!-- a comment

        spanning a blank line -->

        ~~~
        tilde fence with ``` inside

        ~~~
        中文段落，很长很长很长。

        Done.
        """

    /// Feeds `text` split at `cuts` (UTF-8 offsets rounded to characters); returns all output.
    private func streamed(_ text: String, cutsFrom random: SeededRandomSource, pieces: Int) -> String {
        let characters = Array(text)
        var offsets = (0..<pieces).map { _ in Int(random.next(below: UInt64(characters.count + 1))) }
        offsets.append(contentsOf: [0, characters.count])
        offsets.sort()
        var stream = MarkdownStreamRenderer(renderer: renderer)
        var output = ""
        for (start, end) in zip(offsets, offsets.dropFirst()) {
            output += stream.feed(String(characters[start..<end]))
        }
        return output + stream.finish()
    }

    @Test func randomSplitsConcatenateToTheWholeRendering() {
        let whole = renderer.render(markdown: Self.reply)
        let random = SeededRandomSource(seed: 2_024)
        for round in 0..<200 {
            let output = streamed(Self.reply, cutsFrom: random, pieces: 1 + round % 40)
            #expect(output == whole, "round \(round)")
            if output != whole { break }
        }
    }

    @Test func characterByCharacterEqualsTheWhole() {
        var stream = MarkdownStreamRenderer(renderer: renderer)
        var output = ""
        for character in Self.reply { output += stream.feed(String(character)) }
        output += stream.finish()
        #expect(output == renderer.render(markdown: Self.reply))
    }

    @Test func aBlockIsReleasedOnlyOnceABlankLineAndTheNextBlockStart() {
        let plain = TerminalMarkdownRenderer(width: 50, color: false)
        var stream = MarkdownStreamRenderer(renderer: plain)
        #expect(stream.feed("First paragraph\n") == "")
        #expect(stream.feed("\n") == "")
        #expect(stream.feed("Sec") == "")
        #expect(stream.feed("ond\n") == "First paragraph\n")
        #expect(stream.feed("\n- a\n\n") == "\nSecond\n")
        // A list may continue after a blank line: nothing until a line that cannot continue it.
        #expect(stream.feed("- b\n\n  more b\n\n") == "")
        #expect(stream.feed("After\n") == "\n• a\n\n• b\n\n  more b\n")
        #expect(stream.finish() == "\nAfter\n")
    }

    @Test func blankLinesInsideAFenceDoNotRelease() {
        let plain = TerminalMarkdownRenderer(width: 50, color: false)
        var stream = MarkdownStreamRenderer(renderer: plain)
        #expect(stream.feed("```\na\n\nb\n") == "")
        #expect(stream.feed("```\n\nnext\n") == "    a\n\n    b\n")
        #expect(stream.finish() == "\nnext\n")
    }

    @Test func heldTextIsBoundedByTheSizeLimit() {
        let limits = MarkdownLimits(maximumInputBytes: 64, maximumNestingDepth: 4)
        let plain = TerminalMarkdownRenderer(width: 80, color: false)
        var stream = MarkdownStreamRenderer(renderer: plain, limits: limits)
        #expect(stream.feed("```\n" + String(repeating: "x", count: 59) + "\n") == "")
        #expect(stream.pendingByteCount == 64)
        let flushed = stream.feed("y")
        #expect(flushed == "```\n" + String(repeating: "x", count: 59) + "\ny\n")
        #expect(stream.pendingByteCount == 0)
    }

    @Test func finishResetsForTheNextReply() {
        let plain = TerminalMarkdownRenderer(width: 50, color: false)
        var stream = MarkdownStreamRenderer(renderer: plain)
        _ = stream.feed("one")
        #expect(stream.finish() == "one\n")
        _ = stream.feed("two")
        #expect(stream.finish() == "two\n")
        #expect(stream.finish() == "")
    }
}
