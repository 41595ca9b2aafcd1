import Foundation
import Testing

@testable import SybilTUI

@Suite struct FrameWriterTests {
    private static let blue = CellStyle(foreground: .indexed(75), attributes: .bold)
    private static let orange = CellStyle(foreground: .rgb(250, 140, 20), background: .indexed(236))
    private static let red = CellStyle(
        foreground: .indexed(1), background: .indexed(9), attributes: [.underline, .dim])

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Replays `bytes` on `screen` and checks it shows `grid` (colours stripped when `colors` is off).
    private func expectShows(
        _ screen: ScreenEmulator, _ grid: CellGrid, colors: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let wanted = grid.cells.map { cell -> Cell in
            var cell = cell
            if !colors { cell.style = CellStyle(attributes: cell.style.attributes) }
            return cell
        }
        #expect(screen.grid == wanted, sourceLocation: sourceLocation)
        #expect(!screen.scrolled, sourceLocation: sourceLocation)
        #expect(!screen.wrappedWide, sourceLocation: sourceLocation)
        #expect(screen.unknownSequences.isEmpty, sourceLocation: sourceLocation)
        #expect(!screen.synchronized, "every frame ends synchronized output", sourceLocation: sourceLocation)
    }

    private func sampleGrid(columns: Int = 20, rows: Int = 5) -> CellGrid {
        var grid = CellGrid(columns: columns, rows: rows)
        grid.write("Sybil 你好 ok", column: 0, row: 0, style: Self.blue)
        grid.write("orange 🙂 text", column: 2, row: 1, style: Self.orange)
        grid.fill(GridRect(column: 0, row: 2, columns: columns, rows: 1), style: CellStyle(background: .rgb(1, 2, 3)))
        grid.write("red", column: columns - 3, row: 3, style: Self.red)
        grid.write("edge中", column: columns - 5, row: 4, style: .plain)
        return grid
    }

    @Test func theFirstFrameRepaintsEverythingAndAReplayShowsTheGrid() {
        var writer = FrameWriter()
        var screen = ScreenEmulator(columns: 20, rows: 5)
        let grid = sampleGrid()
        let bytes = writer.render(grid, cursor: CursorPlacement(column: 3, row: 4))
        screen.feed(bytes)
        expectShows(screen, grid)
        #expect(text(bytes).hasPrefix("\u{1B}[?2026h"))
        #expect(text(bytes).hasSuffix("\u{1B}[?2026l"))
        #expect(text(bytes).contains("\u{1B}[2J"))
        #expect(screen.column == 3 && screen.row == 4 && screen.cursorVisible)
        #expect(writer.lastFrameChangedCells == 100)
        #expect(writer.lastFrameByteCount == bytes.count)
    }

    @Test func colorsAreWrittenAs256AndTrueColorSequences() {
        var writer = FrameWriter()
        let bytes = text(writer.render(sampleGrid(), cursor: nil))
        #expect(bytes.contains("38;5;75"))
        #expect(bytes.contains("38;2;250;140;20"))
        #expect(bytes.contains("48;5;236"))
        #expect(bytes.contains("48;2;1;2;3"))
    }

    @Test func aSequenceOfEditedFramesReplaysToEachGrid() {
        var writer = FrameWriter()
        var screen = ScreenEmulator(columns: 24, rows: 8)
        var grid = CellGrid(columns: 24, rows: 8)
        let words = ["a", "bc", "你", "🙂x", "def", "中文字", " ", "g"]
        let styles: [CellStyle] = [.plain, Self.blue, Self.orange, Self.red, CellStyle(attributes: .inverse)]
        var seed: UInt64 = 42
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for frame in 0..<120 {
            for _ in 0..<(1 + next(6)) {
                grid.write(
                    words[next(words.count)], column: next(26) - 1, row: next(8), style: styles[next(styles.count)])
            }
            if frame % 17 == 0 {
                grid.fill(GridRect(column: next(20), row: next(8), columns: 5, rows: 2), style: Self.orange)
            }
            let cursor = frame % 3 == 0 ? nil : CursorPlacement(column: next(24), row: next(8))
            screen.feed(writer.render(grid, cursor: cursor))
            expectShows(screen, grid)
            if let cursor {
                #expect(screen.column == cursor.column && screen.row == cursor.row && screen.cursorVisible)
            } else {
                #expect(!screen.cursorVisible)
            }
        }
    }

    @Test func aOneCellChangeWritesAHandfulOfBytes() {
        var writer = FrameWriter()
        var grid = CellGrid(columns: 200, rows: 60)
        for row in 0..<60 {
            grid.write(String(repeating: "lorem ipsum ", count: 17), column: 0, row: row, style: Self.blue)
        }
        let cursor = CursorPlacement(column: 10, row: 59)
        let first = writer.render(grid, cursor: cursor)
        #expect(first.count > 12_000)
        grid.write("X", column: 100, row: 30, style: Self.blue)
        var screen = ScreenEmulator(columns: 200, rows: 60)
        screen.feed(first)
        let second = writer.render(grid, cursor: cursor)
        screen.feed(second)
        expectShows(screen, grid)
        #expect(writer.lastFrameChangedCells == 1)
        #expect(second.count < 48, "one changed cell took \(second.count) bytes: \(text(second).debugDescription)")
        #expect(!text(second).contains("2J"))
    }

    @Test func anUnchangedFrameIsNoBytes() {
        var writer = FrameWriter()
        let grid = sampleGrid()
        _ = writer.render(grid, cursor: CursorPlacement(column: 1, row: 1))
        #expect(writer.render(grid, cursor: CursorPlacement(column: 1, row: 1)).isEmpty)
        #expect(writer.lastFrameByteCount == 0)
        #expect(writer.lastFrameChangedCells == 0)
        #expect(text(writer.render(grid, cursor: nil)) == "\u{1B}[?2026h\u{1B}[?25l\u{1B}[?2026l")
    }

    @Test func invalidateAndANewSizeRepaintTheWholeScreen() {
        var writer = FrameWriter()
        let grid = sampleGrid()
        _ = writer.render(grid, cursor: nil)
        writer.invalidate()
        var screen = ScreenEmulator(columns: 20, rows: 5)
        screen.feed(writer.render(grid, cursor: nil))
        expectShows(screen, grid)
        let larger = sampleGrid(columns: 30, rows: 6)
        var wide = ScreenEmulator(columns: 30, rows: 6)
        wide.feed(writer.render(larger, cursor: nil))
        expectShows(wide, larger)
        #expect(writer.lastFrameChangedCells == 180)
    }

    @Test func aChangedWideGraphemeIsRepaintedFromItsLead() {
        var writer = FrameWriter()
        var grid = CellGrid(columns: 10, rows: 2)
        grid.write("a你b好", column: 0, row: 0, style: .plain)
        var screen = ScreenEmulator(columns: 10, rows: 2)
        screen.feed(writer.render(grid, cursor: nil))
        grid.write("你", column: 1, row: 0, style: Self.red)
        let bytes = writer.render(grid, cursor: nil)
        screen.feed(bytes)
        expectShows(screen, grid)
        #expect(text(bytes).components(separatedBy: "你").count == 2, "the lead is written once, its continuation never")
        grid.write("xy", column: 4, row: 0, style: .plain)
        screen.feed(writer.render(grid, cursor: nil))
        expectShows(screen, grid)
        grid.write("中", column: 3, row: 0, style: Self.blue)
        screen.feed(writer.render(grid, cursor: nil))
        expectShows(screen, grid)
    }

    @Test func rewritingAWideGraphemeInPlaceKeepsIt() {
        var grid = CellGrid(columns: 4, rows: 1)
        grid.write("你", column: 1, row: 0, style: .plain)
        grid.write("你", column: 1, row: 0, style: Self.red)
        #expect(grid[1, 0] == Cell("你", width: 2, style: Self.red))
        #expect(grid[2, 0] == .continuation(Self.red))
    }

    @Test func clippedTextAndTheLastColumnNeverScroll() {
        var writer = FrameWriter()
        var grid = CellGrid(columns: 8, rows: 3)
        var screen = ScreenEmulator(columns: 8, rows: 3)
        grid.write("abcdefghij", column: 0, row: 2, style: Self.orange)
        grid.write("你好你好你", column: 1, row: 0, style: .plain, clip: GridRect(column: 0, row: 0, columns: 8, rows: 1))
        screen.feed(writer.render(grid, cursor: CursorPlacement(column: 50, row: 50)))
        expectShows(screen, grid)
        #expect(screen.column == 7 && screen.row == 2)
        grid.write("Z", column: 7, row: 2, style: .plain)
        grid.write("Y", column: 7, row: 1, style: .plain)
        screen.feed(writer.render(grid, cursor: CursorPlacement(column: 0, row: 0)))
        expectShows(screen, grid)
        #expect(screen.column == 0 && screen.row == 0)
    }

    @Test func withoutColorsOnlyAttributesAreWritten() {
        var writer = FrameWriter(colors: false)
        var screen = ScreenEmulator(columns: 20, rows: 5)
        var grid = sampleGrid()
        screen.feed(writer.render(grid, cursor: nil))
        expectShows(screen, grid, colors: false)
        grid.write("more", column: 0, row: 2, style: Self.orange.adding(.italic))
        let bytes = writer.render(grid, cursor: nil)
        screen.feed(bytes)
        expectShows(screen, grid, colors: false)
        let all = text(bytes)
        #expect(!all.contains("38;5") && !all.contains("48;5") && !all.contains("38;2"))
    }

    @Test func removingOneAttributeDoesNotResetTheRest() {
        var writer = FrameWriter()
        var grid = CellGrid(columns: 2, rows: 1)
        let styled = CellStyle(foreground: .rgb(9, 9, 9), attributes: [.bold, .underline])
        grid.write("ab", column: 0, row: 0, style: styled)
        _ = writer.render(grid, cursor: nil)
        var less = styled
        less.attributes = [.bold]
        grid.write("c", column: 1, row: 0, style: less)
        let bytes = text(writer.render(grid, cursor: nil))
        #expect(bytes.contains("\u{1B}[24m"), "\(bytes.debugDescription)")
        #expect(!bytes.contains("[0"))
    }
}
