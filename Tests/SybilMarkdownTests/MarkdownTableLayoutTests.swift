import SybilMarkdown
import Testing

@Suite struct MarkdownTableLayoutTests {
    private func table(_ widths: [Int]) -> MarkdownTable {
        MarkdownTable(
            alignments: widths.map { _ in .none },
            header: widths.map { [MarkdownRun(String(repeating: "x", count: $0))] }, rows: [])
    }

    @Test func columnsAreAsWideAsTheirWidestCellWhenTheyFit() {
        let table = MarkdownTable(
            alignments: [.left, .right], header: [[MarkdownRun("Name")], [MarkdownRun("Größe")]],
            rows: [[[MarkdownRun("中文字")], [MarkdownRun("1"), MarkdownRun("\n"), MarkdownRun("2")]]])
        #expect(table.columnWidths(fitting: 80) == [6, 5])
    }

    @Test func theWidestColumnsShrinkToFit() {
        // 3 × 3 + 1 = 10 columns of borders leave 20 for content.
        #expect(table([30, 4, 10]).columnWidths(fitting: 30) == [8, 4, 8])
        #expect(table([30, 30, 30]).columnWidths(fitting: 10) == [3, 3, 3])
    }

    @Test func alignmentSplitsTheRoom() {
        #expect(MarkdownTable.Alignment.right.padding(room: 5) == (5, 0))
        #expect(MarkdownTable.Alignment.center.padding(room: 5) == (2, 3))
        #expect(MarkdownTable.Alignment.left.padding(room: 5) == (0, 5))
        #expect(MarkdownTable.Alignment.none.padding(room: -2) == (0, 0))
    }
}
