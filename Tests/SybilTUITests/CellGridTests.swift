import Testing

@testable import SybilTUI

@Suite struct CellGridTests {
    @Test func writeClipsAtTheRightEdgeAndReturnsTheNextColumn() {
        var grid = CellGrid(columns: 6, rows: 1)
        let end = grid.write("Sybil Agent", column: 1, row: 0, style: .plain)
        #expect(grid.text == " Sybil")
        #expect(end == 6)
    }

    @Test func aWideCharacterThatWouldStraddleTheEdgeIsLeftOut() {
        var grid = CellGrid(columns: 5, rows: 1)
        grid.write("ab你好", column: 0, row: 0, style: .plain)
        #expect(grid.text == "ab你")
        #expect(grid[2, 0].width == 2)
        #expect(grid[3, 0].isContinuation)
        #expect(!grid[4, 0].isContinuation)
    }

    @Test func overwritingHalfAWideCharacterBlanksTheOtherHalf() {
        var grid = CellGrid(columns: 4, rows: 1)
        grid.write("你好", column: 0, row: 0, style: .plain)
        grid.write("x", column: 1, row: 0, style: .plain)
        #expect(grid.text == " x好")
        grid.write("y", column: 2, row: 0, style: .plain)
        #expect(grid.text == " xy")
        #expect(!grid[3, 0].isContinuation)
    }

    @Test func writeHonoursTheClipOnBothSides() {
        var grid = CellGrid(columns: 10, rows: 2)
        let clip = GridRect(column: 2, row: 0, columns: 4, rows: 1)
        grid.write("0123456789", column: 0, row: 0, style: .plain, clip: clip)
        grid.write("outside", column: 0, row: 1, style: .plain, clip: clip)
        #expect(grid.text == "  2345\n")
    }

    @Test func controlCharactersAreNeverWritten() {
        var grid = CellGrid(columns: 10, rows: 1)
        grid.write("a\u{1B}[2Jb\n", column: 0, row: 0, style: .plain)
        #expect(grid.text == "a[2Jb")
    }

    @Test func fillPaintsOnlyInsideTheGrid() {
        var grid = CellGrid(columns: 3, rows: 2)
        let style = CellStyle(background: .indexed(4))
        grid.fill(GridRect(column: 2, row: 1, columns: 5, rows: 5), style: style)
        #expect(grid[2, 1].style == style)
        #expect(grid[1, 1].style == .plain)
        #expect(grid[2, 0].style == .plain)
    }

    @Test func styledLinesKeepEachSpansStyle() {
        var grid = CellGrid(columns: 10, rows: 1)
        let bold = CellStyle(attributes: .bold)
        grid.write(StyledLine([StyledSpan("ab"), StyledSpan("cd", style: bold)]), column: 0, row: 0)
        #expect(grid[1, 0].style == .plain)
        #expect(grid[2, 0].style == bold)
    }
}
