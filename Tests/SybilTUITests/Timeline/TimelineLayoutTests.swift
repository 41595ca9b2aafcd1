import Testing

@testable import SybilTUI

@Suite struct TimelineLayoutTests {
    private let theme = Theme.dark

    private func text(_ item: TimelineItem, width: Int = 30) -> [String] {
        TimelineLayout.lines(for: item, width: width, theme: theme).map(\.plainText)
    }

    @Test func rolesDecideTheLook() {
        #expect(
            text(TimelineItem(id: "u", role: .user, body: "Hallo Sybil")) == [
                String(repeating: " ", count: 19) + "Hallo Sybil", "",
            ], "the person's message flush right, without a name above it")
        #expect(
            text(TimelineItem(id: "a", role: .assistant, author: "Sybil", body: "**Hi** there", isMarkdown: true))
                == ["Sybil", "Hi there", ""])
        #expect(text(TimelineItem(id: "t", role: .thinking, body: "")) == ["✻ Thinking…"])
        #expect(
            text(TimelineItem(id: "s", role: .subagent, body: "Refactor the parser (4)")) == [
                "▸ Refactor the parser (4)"
            ])
        #expect(
            text(TimelineItem(id: "d", role: .dateSeparator, body: "Monday, 30 November")) == [
                "  ── Monday, 30 November ──"
            ])
        #expect(text(TimelineItem(id: "n", role: .unreadMarker, body: ""), width: 13) == ["  ── new ──"])
        #expect(
            text(
                TimelineItem(id: "x", role: .activity, body: "Read Package.swift and more", isMarkdown: false),
                width: 16)
                == ["· Read", "  Package.swift", "  and more"])
    }

    @Test func dimRolesUseTheSecondaryStyleAndTheMarkerTheAccent() {
        let system = TimelineLayout.lines(
            for: TimelineItem(id: "s", role: .system, body: "Offline"), width: 20, theme: theme)
        #expect(system[0].spans[0].style == theme.secondary)
        let marker = TimelineLayout.lines(
            for: TimelineItem(id: "n", role: .unreadMarker, body: ""), width: 20, theme: theme)
        #expect(marker[0].spans[0].style == theme.accent)
    }

    @Test func thePersonsMessagesWrapAtThreeQuartersAndEndAtTheRightEdge() {
        // 40 columns: a bubble of 30, its lines keeping one left edge, the block flush right.
        let item = TimelineItem(
            id: "u", role: .user, body: "Kannst du mir die Logs von gestern zeigen? 中文也可以", status: "Sending…",
            tone: .warning)
        let lines = TimelineLayout.lines(for: item, width: 40, theme: theme)
        let texts = lines.map(\.plainText)
        #expect(texts.last == "")
        let block = lines.dropLast()
        #expect(block.allSatisfy { $0.width <= 40 })
        let indents = Set(texts.dropLast().map { $0.prefix(while: { $0 == " " }).count })
        #expect(indents.count == 1, "one left edge for the whole block")
        let indent = indents.first ?? 0
        let widest = (block.map(\.width).max() ?? 0) - indent
        #expect(widest <= 30 && widest > 20, "wrapped at three quarters of the width")
        #expect(block.contains { $0.width == 40 }, "the widest line ends at the last column")
        #expect(texts[texts.count - 2].hasSuffix("Sending…"))
        #expect(lines[lines.count - 2].spans.last?.style == theme.warning, "the status under it in its tone")
        // Narrow screens give the message the whole width.
        #expect(TimelineLayout.bubbleWidth(23) == 23)
        #expect(TimelineLayout.bubbleWidth(24) == 18)
    }

    @Test func statusLinesTakeTheirTonesColour() {
        let item = TimelineItem(id: "u", role: .user, body: "hi", status: "Failed: offline — r to retry", tone: .error)
        let lines = TimelineLayout.lines(for: item, width: 20, theme: theme)
        #expect(lines.map(\.plainText) == ["hi", "Failed: offline — r…", ""])
        #expect(lines[1].spans[0].style == theme.error)
    }

    @Test func controlCharactersInPlainTextAreNotPassedThrough() {
        let lines = text(TimelineItem(id: "s", role: .system, body: "a\u{1B}[2Jb"))
        #expect(lines[0] == "a\u{FFFD}[2Jb")
    }

    @Test func aBidiOverrideIsShownAndTakesItsColumn() {
        // Shown as U+FFFD (Trojan Source), measured as drawn: the bubble still ends at the last column.
        let lines = TimelineLayout.lines(
            for: TimelineItem(id: "u", role: .user, body: "invoice\u{202E}fdp.exe"), width: 30, theme: theme)
        #expect(lines[0].plainText == String(repeating: " ", count: 15) + "invoice\u{FFFD}fdp.exe")
        #expect(lines[0].width == 30)
        var grid = CellGrid(columns: 30, rows: 1)
        grid.write(lines[0], column: 0, row: 0)
        #expect(grid.text(row: 0) == lines[0].plainText)
        let reply = TimelineItem(id: "a", role: .assistant, body: "x&#x202E;y\u{2067}z", isMarkdown: true)
        #expect(text(reply) == ["x\u{FFFD}y\u{FFFD}z", ""])
    }

    @Test func theCacheHitsByIdRevisionAndWidth() {
        var layout = TimelineLayout()
        var item = TimelineItem(id: "a", role: .assistant, body: "one")
        _ = layout.lines(for: item, width: 20, theme: theme)
        _ = layout.lines(for: item, width: 20, theme: theme)
        #expect(layout.layoutCount == 1)
        _ = layout.lines(for: item, width: 21, theme: theme)
        #expect(layout.layoutCount == 2)
        item.body = "two"
        item.revision = 1
        #expect(layout.lines(for: item, width: 20, theme: theme).map(\.plainText) == ["two", ""])
        #expect(layout.layoutCount == 3)
        _ = layout.lines(for: item, width: 20, theme: .light)
        #expect(layout.layoutCount == 4)
        #expect(layout.cachedCount == 1)
    }

    @Test func theCacheIsBoundedAndDropsTheLeastRecentlyUsed() {
        var layout = TimelineLayout(capacity: 3)
        let items = (0..<4).map { TimelineItem(id: "\($0)", role: .system, body: "item \($0)") }
        for item in items.prefix(3) { _ = layout.lines(for: item, width: 10, theme: theme) }
        _ = layout.lines(for: items[0], width: 10, theme: theme)  // 0 is now the most recent
        _ = layout.lines(for: items[3], width: 10, theme: theme)  // drops 1
        #expect(layout.cachedCount == 3)
        #expect(layout.layoutCount == 4)
        _ = layout.lines(for: items[0], width: 10, theme: theme)
        _ = layout.lines(for: items[2], width: 10, theme: theme)
        #expect(layout.layoutCount == 4)
        _ = layout.lines(for: items[1], width: 10, theme: theme)
        #expect(layout.layoutCount == 5)
    }
}
