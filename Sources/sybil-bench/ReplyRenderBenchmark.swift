import SybilCLI
import Synchronization

// `reply-render`: a long Markdown reply (paragraphs, lists, headings, short code blocks)
// streamed one word at a time through the printer `sybil ask` uses on a terminal, 100 columns,
// styled. Timed per token over the 500 tokens ending at the 1,000th and over the 500 ending at
// the 100,000th; the goal (issue 28) is bounded, flat cost, so the late/early ratio should be
// near 1. The terminal is a byte counter.

private let renderTokens = scaled(100_000, atLeast: 100)
private let earlyMark = min(1_000, max(10, renderTokens / 100))
private let renderWindow = min(500, earlyMark)
private let renderWords = [
    "the", "model", "streams", "**tokens**", "while", "a", "terminal", "draws", "`only`", "what", "changed",
    "since", "the", "last", "delta,", "so", "the", "reply", "costs", "a", "bounded", "amount", "of", "work.",
]

/// The reply's `index`th token: a word and a space, a paragraph break every 60 tokens, and now
/// and then a heading, a list or a short code block in between.
private func replyToken(_ index: Int) -> String {
    let word = renderWords[index % renderWords.count]
    guard index % 60 == 59 else { return word + " " }
    switch (index / 60) % 5 {
    case 1: return word + "\n\n## Part \(index / 60)\n\n"
    case 2: return word + "\n\n- one item\n- another item with `code`\n\n"
    case 3: return word + "\n\n```swift\nlet x = \(index)\nprint(x)\n```\n\n"
    default: return word + "\n\n"
    }
}

func benchmarkReplyRender() {
    let tokens = (0..<renderTokens).map(replyToken)
    var early = Double.infinity
    var late = Double.infinity
    var total = Double.infinity
    let written = Atomic<Int>(0)
    for _ in 0..<repetitions {
        written.store(0, ordering: .relaxed)
        let printer = ReplyPrinter(columns: 100) { written.add($0.utf8.count, ordering: .relaxed) }
        let start = clock.now
        var earlyStart = start
        var lateStart = start
        for (index, token) in tokens.enumerated() {
            let number = index + 1
            if number == earlyMark - renderWindow + 1 { earlyStart = clock.now }
            if number == renderTokens - renderWindow + 1 { lateStart = clock.now }
            printer.write(token)
            if number == earlyMark { early = min(early, seconds(earlyStart.duration(to: clock.now))) }
            if number == renderTokens { late = min(late, seconds(lateStart.duration(to: clock.now))) }
        }
        printer.finish()
        total = min(total, seconds(start.duration(to: clock.now)))
    }
    let perEarly = early / Double(renderWindow) * 1e6
    let perLate = late / Double(renderWindow) * 1e6
    print(
        "reply-render (\(renderTokens) tokens, 100 columns, styled): "
            + "\(format(perEarly)) µs/token at token \(earlyMark), \(format(perLate)) µs/token at token "
            + "\(renderTokens), ratio \(format(perLate / perEarly)); whole reply \(format(total * 1e3)) ms, "
            + "\(written.load(ordering: .relaxed) / renderTokens) bytes written per token")
}
