/// Turns frames into the bytes that draw them, writing only what changed since the previous
/// frame. Pure: it keeps the previous frame, the pen (the SGR state it left the terminal in) and
/// where it left the cursor, and never touches a terminal itself.
///
/// The first frame, a frame of another size, and the first frame after ``invalidate()`` clear the
/// screen and draw every row. Later frames move the cursor to each changed cell (absolute `CUP` or
/// a shorter relative move) and change the SGR state only as far as needed. A wide grapheme is
/// drawn from its lead cell; a changed continuation repaints its lead. Every frame is wrapped in
/// synchronized output (`CSI ? 2026 h` … `CSI ? 2026 l`) and ends by placing or hiding the
/// cursor. A frame that changes nothing, cursor included, is no bytes at all.
public struct FrameWriter: Sendable {
    /// Whether colours are written; without them only attributes (bold, underline…) are.
    public let colors: Bool
    /// The bytes of the last frame rendered.
    public private(set) var lastFrameByteCount = 0
    /// The cells that differed in the last frame (every cell on a full repaint).
    public private(set) var lastFrameChangedCells = 0

    private var previous: CellGrid?
    private var pen: CellStyle?
    private var cursorColumn: Int?
    private var cursorRow: Int?
    private var cursorVisible: Bool?
    private var output: [UInt8] = []
    private var dirty: [Bool] = []

    /// Creates a writer; `colors: false` writes attributes only (for `NO_COLOR`).
    public init(colors: Bool = true) {
        self.colors = colors
    }

    /// Forgets what the terminal shows, so the next frame repaints the whole screen (after a
    /// resume, or after anything else wrote to the terminal).
    public mutating func invalidate() {
        previous = nil
        pen = nil
        cursorColumn = nil
        cursorRow = nil
        cursorVisible = nil
    }

    /// The bytes that turn the screen from the previous frame into `grid` and leave the cursor
    /// at `cursor` (`nil` hides it).
    public mutating func render(_ grid: CellGrid, cursor: CursorPlacement?) -> [UInt8] {
        output = []
        output.reserveCapacity(previous == nil ? grid.columns * grid.rows * 2 + 64 : 256)
        append(Self.synchronizedBegin)
        let emptyLength = output.count
        let cells = grid.cells
        var changed = 0
        if let old = previous, old.columns == grid.columns, old.rows == grid.rows {
            changed = drawChanges(cells, old: old.cells, columns: grid.columns, rows: grid.rows)
        } else {
            drawAll(cells, columns: grid.columns, rows: grid.rows)
            changed = grid.columns * grid.rows
        }
        placeCursor(cursor, cells: cells, columns: grid.columns, rows: grid.rows)
        previous = grid
        lastFrameChangedCells = changed
        if output.count == emptyLength {
            output = []
        } else {
            append(Self.synchronizedEnd)
        }
        lastFrameByteCount = output.count
        let frame = output
        output = []
        return frame
    }

    // MARK: Drawing

    private mutating func drawAll(_ cells: [Cell], columns: Int, rows: Int) {
        append(Self.resetAndClear)
        pen = .plain
        cursorColumn = 0
        cursorRow = 0
        for row in 0..<rows {
            moveCursor(column: 0, row: row, cells: cells, columns: columns)
            var column = 0
            while column < columns {
                column += drawCell(cells, column: column, row: row, columns: columns)
            }
        }
    }

    private mutating func drawChanges(_ cells: [Cell], old: [Cell], columns: Int, rows: Int) -> Int {
        var changed = 0
        if dirty.count != columns { dirty = Array(repeating: false, count: columns) }
        for row in 0..<rows {
            let start = row * columns
            var any = false
            for column in 0..<columns {
                let differs = cells[start + column] != old[start + column]
                dirty[column] = differs
                if differs {
                    changed += 1
                    any = true
                    if cells[start + column].isContinuation, column > 0 { dirty[column - 1] = true }
                }
            }
            guard any else { continue }
            var column = 0
            while column < columns {
                guard dirty[column] else {
                    column += 1
                    continue
                }
                moveCursor(column: column, row: row, cells: cells, columns: columns)
                column += drawCell(cells, column: column, row: row, columns: columns)
            }
        }
        return changed
    }

    /// Draws the cell at the cursor and returns the columns it took.
    private mutating func drawCell(_ cells: [Cell], column: Int, row: Int, columns: Int) -> Int {
        let cell = cells[row * columns + column]
        setPen(cell.style)
        let advance: Int
        if cell.isContinuation {
            // A continuation whose lead is not to its left: nothing to draw but its background.
            let leadIsWide = column > 0 && cells[row * columns + column - 1].width == 2
            if leadIsWide { return 1 }
            output.append(0x20)
            advance = 1
        } else if cell.width == 2, column + 1 < columns {
            appendGrapheme(cell.grapheme)
            advance = 2
        } else if cell.width == 2 {
            output.append(0x20)
            advance = 1
        } else {
            appendGrapheme(cell.grapheme)
            advance = 1
        }
        let next = column + advance
        // Past the last column the terminal's cursor waits to wrap: its position is unknown.
        cursorColumn = next < columns ? next : nil
        cursorRow = next < columns ? row : nil
        return advance
    }

    private mutating func appendGrapheme(_ grapheme: Character) {
        if let ascii = grapheme.asciiValue {
            output.append(ascii >= 0x20 && ascii < 0x7F ? ascii : 0x20)
            return
        }
        let scalar = grapheme.unicodeScalars.first?.value ?? 0x20
        if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) {
            output.append(0x20)
            return
        }
        output.append(contentsOf: grapheme.utf8)
    }

    private mutating func placeCursor(_ placement: CursorPlacement?, cells: [Cell], columns: Int, rows: Int) {
        if let placement, placement.visible, columns > 0, rows > 0 {
            let column = min(max(placement.column, 0), columns - 1)
            let row = min(max(placement.row, 0), rows - 1)
            moveCursor(column: column, row: row, cells: cells, columns: columns)
            if cursorVisible != true {
                append(Self.showCursor)
                cursorVisible = true
            }
        } else if cursorVisible != false {
            append(Self.hideCursor)
            cursorVisible = false
        }
    }

    // MARK: Cursor moves

    private mutating func moveCursor(column: Int, row: Int, cells: [Cell], columns: Int) {
        guard let fromColumn = cursorColumn, let fromRow = cursorRow else {
            appendCursorPosition(column: column, row: row)
            return
        }
        if fromColumn == column, fromRow == row { return }
        if fromRow == row, column > fromColumn,
            rewriteGap(from: fromColumn, to: column, row: row, cells: cells, columns: columns)
        {
            return
        }
        var relative: [UInt8] = []
        if row == fromRow + 1, column == 0 {
            relative = [0x0D, 0x0A]
        } else {
            if row > fromRow {
                Self.appendCSI(&relative, row - fromRow, final: 0x42)
            } else if row < fromRow {
                Self.appendCSI(&relative, fromRow - row, final: 0x41)
            }
            if column == 0, fromColumn != 0 {
                relative.append(0x0D)
            } else if column > fromColumn {
                Self.appendCSI(&relative, column - fromColumn, final: 0x43)
            } else if column < fromColumn {
                Self.appendCSI(&relative, fromColumn - column, final: 0x44)
            }
        }
        var absolute: [UInt8] = []
        Self.appendPosition(&absolute, column: column, row: row)
        output.append(contentsOf: relative.count < absolute.count ? relative : absolute)
        cursorColumn = column
        cursorRow = row
    }

    /// Moves right by writing the unchanged cells in between again when that is shorter than a
    /// cursor move: narrow printable ASCII already in the pen's style.
    private mutating func rewriteGap(from start: Int, to end: Int, row: Int, cells: [Cell], columns: Int) -> Bool {
        guard end - start <= 3, let pen else { return false }
        for column in start..<end {
            let cell = cells[row * columns + column]
            guard cell.width == 1, let ascii = cell.grapheme.asciiValue, ascii >= 0x20, ascii < 0x7F,
                visibleStyle(cell.style) == pen
            else { return false }
        }
        for column in start..<end {
            output.append(cells[row * columns + column].grapheme.asciiValue ?? 0x20)
        }
        cursorColumn = end
        cursorRow = row
        return true
    }

    private mutating func appendCursorPosition(column: Int, row: Int) {
        Self.appendPosition(&output, column: column, row: row)
        cursorColumn = column
        cursorRow = row
    }

    private static func appendPosition(_ bytes: inout [UInt8], column: Int, row: Int) {
        bytes.append(contentsOf: [0x1B, 0x5B])
        if row != 0 || column != 0 {
            appendNumber(&bytes, row + 1)
            if column != 0 {
                bytes.append(0x3B)
                appendNumber(&bytes, column + 1)
            }
        }
        bytes.append(0x48)
    }

    private static func appendCSI(_ bytes: inout [UInt8], _ count: Int, final: UInt8) {
        bytes.append(contentsOf: [0x1B, 0x5B])
        if count != 1 { appendNumber(&bytes, count) }
        bytes.append(final)
    }

    // MARK: SGR

    private func visibleStyle(_ style: CellStyle) -> CellStyle {
        colors ? style : CellStyle(attributes: style.attributes)
    }

    private mutating func setPen(_ wanted: CellStyle) {
        let style = visibleStyle(wanted)
        if let pen, pen == style { return }
        let reset = Self.sgr(reset: style)
        if let pen {
            let step = Self.sgr(from: pen, to: style)
            output.append(contentsOf: step.count <= reset.count ? step : reset)
        } else {
            output.append(contentsOf: reset)
        }
        pen = style
    }

    private static func sgr(reset style: CellStyle) -> [UInt8] {
        var parameters: [Int] = [0]
        appendAttributes(&parameters, style.attributes)
        if style.foreground != .default { appendColor(&parameters, style.foreground, background: false) }
        if style.background != .default { appendColor(&parameters, style.background, background: true) }
        return serialize(parameters)
    }

    private static func sgr(from old: CellStyle, to new: CellStyle) -> [UInt8] {
        var parameters: [Int] = []
        let removed = old.attributes.subtracting(new.attributes)
        var added = new.attributes.subtracting(old.attributes)
        let intensity: CellAttributes = [.bold, .dim]
        if !removed.isDisjoint(with: intensity) {
            parameters.append(22)
            added.formUnion(new.attributes.intersection(intensity))
        }
        if removed.contains(.italic) { parameters.append(23) }
        if removed.contains(.underline) { parameters.append(24) }
        if removed.contains(.inverse) { parameters.append(27) }
        if removed.contains(.strikethrough) { parameters.append(29) }
        appendAttributes(&parameters, added)
        if old.foreground != new.foreground { appendColor(&parameters, new.foreground, background: false) }
        if old.background != new.background { appendColor(&parameters, new.background, background: true) }
        return serialize(parameters)
    }

    private static func appendAttributes(_ parameters: inout [Int], _ attributes: CellAttributes) {
        if attributes.contains(.bold) { parameters.append(1) }
        if attributes.contains(.dim) { parameters.append(2) }
        if attributes.contains(.italic) { parameters.append(3) }
        if attributes.contains(.underline) { parameters.append(4) }
        if attributes.contains(.inverse) { parameters.append(7) }
        if attributes.contains(.strikethrough) { parameters.append(9) }
    }

    private static func appendColor(_ parameters: inout [Int], _ color: TerminalColor, background: Bool) {
        let base = background ? 40 : 30
        switch color {
        case .default: parameters.append(base + 9)
        case .indexed(let index) where index < 8: parameters.append(base + Int(index))
        case .indexed(let index) where index < 16: parameters.append(base + 60 + Int(index) - 8)
        case .indexed(let index): parameters.append(contentsOf: [base + 8, 5, Int(index)])
        case .rgb(let red, let green, let blue):
            parameters.append(contentsOf: [base + 8, 2, Int(red), Int(green), Int(blue)])
        }
    }

    private static func serialize(_ parameters: [Int]) -> [UInt8] {
        var bytes: [UInt8] = [0x1B, 0x5B]
        for (index, parameter) in parameters.enumerated() {
            if index > 0 { bytes.append(0x3B) }
            appendNumber(&bytes, parameter)
        }
        bytes.append(0x6D)
        return bytes
    }

    // MARK: Bytes

    private mutating func append(_ bytes: [UInt8]) {
        output.append(contentsOf: bytes)
    }

    private static func appendNumber(_ bytes: inout [UInt8], _ number: Int) {
        if number >= 10 { appendNumber(&bytes, number / 10) }
        bytes.append(UInt8(0x30 + number % 10))
    }

    private static let synchronizedBegin: [UInt8] = Array("\u{1B}[?2026h".utf8)
    private static let synchronizedEnd: [UInt8] = Array("\u{1B}[?2026l".utf8)
    private static let resetAndClear: [UInt8] = Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
    private static let showCursor: [UInt8] = Array("\u{1B}[?25h".utf8)
    private static let hideCursor: [UInt8] = Array("\u{1B}[?25l".utf8)
}
