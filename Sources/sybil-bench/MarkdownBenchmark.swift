import CCMarkGFM
import SybilCore
import SybilMarkdown

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// `markdown`: a seeded synthetic history of 10,000 assistant replies (paragraphs with
// emphasis, code spans and links, lists, fenced code, tables, quotes, headings), parsed into
// styled runs (`MarkdownDocument.parse`) and then rendered for an 80-column terminal
// (`TerminalMarkdownRenderer`). The baseline, timed in the same run on the same text:
// cmark-gfm's own parse with the same extensions plus its HTML renderer, straight from C.

private let markdownWords = [
    "the", "server", "cache", "request", "returns", "stream", "token", "build", "fails", "because", "config", "retry",
    "window", "scroll", "render", "table", "value", "swift", "module", "planning", "quickly", "中文", "Größe", "emoji",
]

private func markdownWord(_ random: SeededRandomSource) -> String {
    markdownWords[Int(random.next(below: UInt64(markdownWords.count)))]
}

private func markdownSentence(_ random: SeededRandomSource) -> String {
    var words: [String] = []
    for index in 0..<(6 + Int(random.next(below: 14))) {
        var word = markdownWord(random)
        switch random.next(below: 14) {
        case 0: word = "**\(word)**"
        case 1: word = "*\(word)*"
        case 2: word = "`\(word)()`"
        case 3: word = "[\(word)](https://docs.example.com/\(word)/\(index))"
        default: break
        }
        words.append(word)
    }
    return words.joined(separator: " ") + "."
}

/// One reply: a few blocks chosen by the seeded source.
func markdownReply(_ random: SeededRandomSource) -> String {
    var blocks: [String] = []
    for _ in 0..<(2 + Int(random.next(below: 5))) {
        switch random.next(below: 10) {
        case 0: blocks.append("## " + markdownWord(random).capitalized + " " + markdownWord(random))
        case 1, 2:
            let ordered = random.next(below: 2) == 0
            blocks.append(
                (0..<(2 + Int(random.next(below: 4)))).map {
                    (ordered ? "\($0 + 1). " : "- ") + markdownSentence(random)
                }
                .joined(separator: "\n"))
        case 3:
            let lines = (0..<(3 + Int(random.next(below: 8)))).map {
                "    let \(markdownWord(random))\($0) = compute(\($0))"
            }
            blocks.append("```swift\n" + lines.joined(separator: "\n") + "\n```")
        case 4:
            let rows = (0..<(2 + Int(random.next(below: 5)))).map {
                "| \(markdownWord(random)) | \($0 * 17) | \(markdownWord(random)) |"
            }
            blocks.append("| Name | Size | Note |\n|:-----|-----:|:----:|\n" + rows.joined(separator: "\n"))
        case 5: blocks.append("> " + markdownSentence(random))
        default:
            blocks.append(
                (0..<(1 + Int(random.next(below: 4)))).map { _ in markdownSentence(random) }.joined(separator: " "))
        }
    }
    return blocks.joined(separator: "\n\n")
}

/// cmark-gfm alone: parse with the same extensions, render HTML; returns the HTML's bytes.
private func cmarkHTMLBytes(_ text: String) -> Int {
    guard let parser = cmark_parser_new(CMARK_OPT_DEFAULT) else { return 0 }
    defer { cmark_parser_free(parser) }
    for name in ["table", "strikethrough", "autolink"] {
        if let syntax = cmark_find_syntax_extension(name) { _ = cmark_parser_attach_syntax_extension(parser, syntax) }
    }
    var text = text
    text.withUTF8 { bytes in
        bytes.withMemoryRebound(to: CChar.self) { cmark_parser_feed(parser, $0.baseAddress, $0.count) }
    }
    guard let root = cmark_parser_finish(parser) else { return 0 }
    defer { cmark_node_free(root) }
    guard let html = cmark_render_html(root, CMARK_OPT_DEFAULT, cmark_parser_get_syntax_extensions(parser)) else {
        return 0
    }
    defer { free(html) }
    return strlen(html)
}

func benchmarkMarkdown(messages: Int = scaled(10_000)) {
    let random = SeededRandomSource(seed: 4)
    let history = (0..<messages).map { _ in markdownReply(random) }
    let bytes = history.reduce(0) { $0 + $1.utf8.count }
    cmark_gfm_core_extensions_ensure_registered()  // single-threaded here; the module does it under its lock
    var blocks = 0
    let parseSeconds = best {
        var count = 0
        for text in history { count += (try? MarkdownDocument.parse(text))?.blocks.count ?? 0 }
        blocks = count
    }
    let renderer = TerminalMarkdownRenderer(width: 80, color: true)
    var rendered = 0
    let renderSeconds = best {
        var count = 0
        for text in history { count += renderer.render(markdown: text).utf8.count }
        rendered = count
    }
    var htmlBytes = 0
    let htmlSeconds = best {
        var count = 0
        for text in history { count += cmarkHTMLBytes(text) }
        htmlBytes = count
    }
    precondition(blocks > messages && rendered > 0 && htmlBytes > 0, "every path did the work")
    let perMessage = { (seconds: Double) in format(seconds * 1e6 / Double(messages), 1) }
    print(
        "markdown \(messages) messages (\(format(Double(bytes) / 1_048_576)) MiB, \(blocks) blocks): "
            + "parse+style \(format(parseSeconds * 1000, 0)) ms (\(perMessage(parseSeconds)) µs/message), "
            + "parse+style+terminal render \(format(renderSeconds * 1000, 0)) ms (\(perMessage(renderSeconds)) µs/message), "
            + "cmark-gfm parse+HTML \(format(htmlSeconds * 1000, 0)) ms (\(perMessage(htmlSeconds)) µs/message); "
            + "ratio parse+style \(format(parseSeconds / htmlSeconds)) x, with render \(format(renderSeconds / htmlSeconds)) x "
            + "cmark-gfm's HTML time")
}
