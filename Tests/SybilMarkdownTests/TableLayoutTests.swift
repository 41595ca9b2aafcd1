import SybilCore
import Testing

@testable import SybilMarkdown

/// Column widths of a table wider than the terminal.
@Suite("Table layout", .timeLimit(.minutes(2)))
struct TableLayoutTests {
    /// The rule stated plainly: take one column off the leftmost widest until it fits or every
    /// column is at the minimum.
    private func oneAtATime(_ widths: [Int], toFit available: Int) -> [Int] {
        var widths = widths
        var total = widths.reduce(0, +)
        while total > available {
            guard let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                widths[widest] > TableLayout.minimumColumnWidth
            else { break }
            widths[widest] -= 1
            total -= 1
        }
        return widths
    }

    @Test func shrinkingGivesTheSameWidthsAsTakingOneColumnAtATime() {
        let random = SeededRandomSource(seed: 13)
        for _ in 0..<2_000 {
            let count = 1 + Int(random.next(below: 12))
            let widths = (0..<count).map { _ in 1 + Int(random.next(below: 40)) }
            let available = Int(random.next(below: 200)) - 20
            var shrunk = widths
            TableLayout.shrink(&shrunk, toFit: available)
            #expect(shrunk == oneAtATime(widths, toFit: available), "\(widths) into \(available)")
        }
    }

    @Test func theMinimumWidthIsKeptWhenNothingFits() {
        var widths = [10, 2, 7]
        TableLayout.shrink(&widths, toFit: 0)
        #expect(widths == [3, 2, 3])
        var fitting = [4, 4]
        TableLayout.shrink(&fitting, toFit: 8)
        #expect(fitting == [4, 4])
        var oneOver = [4, 5]
        TableLayout.shrink(&oneOver, toFit: 8)
        #expect(oneOver == [4, 4])
    }

    @Test func aTableOfThousandsOfColumnsRendersEveryColumn() {
        let columns = 5_000
        let header = "|" + String(repeating: "abcd|", count: columns)
        let delimiter = "|" + String(repeating: "-|", count: columns)
        let rendered = TerminalMarkdownRenderer(width: 80, color: false).render(markdown: header + "\n" + delimiter)
        let top = rendered.split(separator: "\n").first.map(String.init) ?? ""
        #expect(top.filter { $0 == "┬" }.count == columns - 1)
    }
}
