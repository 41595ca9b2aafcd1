@testable import SybilTUI

/// A small terminal for tests: replays the bytes a ``FrameWriter`` writes (CUP and relative
/// cursor moves, CR, LF, SGR with 16, 256 and 24-bit colours, ED, EL, private modes and UTF-8
/// text with wide graphemes) into cells, so a test can compare what a terminal would show with
/// the grid that was drawn. It records what a frame must never do: scroll, or wrap a wide
/// grapheme at the right edge.
struct ScreenEmulator {
    let columns: Int
    let rows: Int
    private(set) var cells: [Cell]
    private(set) var column = 0
    private(set) var row = 0
    private(set) var cursorVisible = true
    private(set) var synchronized = false
    private(set) var scrolled = false
    private(set) var wrappedWide = false
    private(set) var unknownSequences: [String] = []
    private var pen = CellStyle.plain
    private var pendingWrap = false

    /// A screen filled with `?` so anything a frame leaves undrawn shows.
    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: Cell("?"), count: columns * rows)
    }

    /// The screen as a grid, to compare with what was drawn.
    var grid: [Cell] { cells }

    mutating func feed(_ bytes: [UInt8]) {
        var index = 0
        var text: [UInt8] = []
        func flush(_ emulator: inout ScreenEmulator) {
            guard !text.isEmpty else { return }
            for character in String(decoding: text, as: UTF8.self) { emulator.put(character) }
            text.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B {
                flush(&self)
                index = escape(bytes, from: index + 1)
            } else if byte < 0x20 || byte == 0x7F {
                flush(&self)
                control(byte)
                index += 1
            } else {
                text.append(byte)
                index += 1
            }
        }
        flush(&self)
    }

    private mutating func control(_ byte: UInt8) {
        switch byte {
        case 0x0D:
            column = 0
            pendingWrap = false
        case 0x0A:
            pendingWrap = false
            if row == rows - 1 { scrolled = true } else { row += 1 }
        default:
            unknownSequences.append("control \(byte)")
        }
    }

    private mutating func escape(_ bytes: [UInt8], from start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case 0x5B:  // CSI
            var index = start + 1
            var parameters: [UInt8] = []
            while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x40 {
                parameters.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { return index }
            csi(String(decoding: parameters, as: UTF8.self), final: bytes[index])
            return index + 1
        case 0x5D:  // OSC, to BEL or ST
            var index = start + 1
            while index < bytes.count {
                if bytes[index] == 0x07 { return index + 1 }
                if bytes[index] == 0x1B, index + 1 < bytes.count, bytes[index + 1] == 0x5C { return index + 2 }
                index += 1
            }
            return index
        default:
            unknownSequences.append("ESC \(bytes[start])")
            return start + 1
        }
    }

    private mutating func csi(_ parameters: String, final: UInt8) {
        if parameters.hasPrefix("?") {
            let mode = Int(parameters.dropFirst()) ?? -1
            let on = final == 0x68
            switch mode {
            case 25: cursorVisible = on
            case 2026: synchronized = on
            default: unknownSequences.append("?\(mode)")
            }
            return
        }
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ at: Int, _ fallback: Int) -> Int {
            guard at < numbers.count, let value = numbers[at], value != 0 else { return fallback }
            return value
        }
        switch final {
        case 0x48, 0x66:  // CUP
            row = min(number(0, 1), rows) - 1
            column = min(number(1, 1), columns) - 1
            pendingWrap = false
        case 0x41:
            row = max(0, row - number(0, 1))
            pendingWrap = false
        case 0x42:
            row = min(rows - 1, row + number(0, 1))
            pendingWrap = false
        case 0x43:
            column = min(columns - 1, column + number(0, 1))
            pendingWrap = false
        case 0x44:
            column = max(0, column - number(0, 1))
            pendingWrap = false
        case 0x4A:  // ED
            let start = numbers.first.flatMap { $0 } == 2 ? 0 : row * columns + column
            for index in start..<cells.count { cells[index] = .blank(CellStyle(background: pen.background)) }
        case 0x4B:  // EL
            let mode = numbers.first.flatMap { $0 } ?? 0
            let from = mode == 0 ? column : 0
            let to = mode == 1 ? column + 1 : columns
            for x in from..<to { cells[row * columns + x] = .blank(CellStyle(background: pen.background)) }
        case 0x6D:
            sgr(numbers.map { $0 ?? 0 })
        default:
            unknownSequences.append("CSI \(parameters) \(final)")
        }
    }

    private mutating func sgr(_ codes: [Int]) {
        var index = 0
        let codes = codes.isEmpty ? [0] : codes
        while index < codes.count {
            let code = codes[index]
            index += 1
            switch code {
            case 0: pen = .plain
            case 1: pen.attributes.insert(.bold)
            case 2: pen.attributes.insert(.dim)
            case 3: pen.attributes.insert(.italic)
            case 4: pen.attributes.insert(.underline)
            case 7: pen.attributes.insert(.inverse)
            case 9: pen.attributes.insert(.strikethrough)
            case 22: pen.attributes.subtract([.bold, .dim])
            case 23: pen.attributes.remove(.italic)
            case 24: pen.attributes.remove(.underline)
            case 27: pen.attributes.remove(.inverse)
            case 29: pen.attributes.remove(.strikethrough)
            case 30...37: pen.foreground = .indexed(UInt8(code - 30))
            case 90...97: pen.foreground = .indexed(UInt8(code - 90 + 8))
            case 40...47: pen.background = .indexed(UInt8(code - 40))
            case 100...107: pen.background = .indexed(UInt8(code - 100 + 8))
            case 39: pen.foreground = .default
            case 49: pen.background = .default
            case 38, 48:
                let color: TerminalColor
                if codes[index] == 5 {
                    color = .indexed(UInt8(codes[index + 1]))
                    index += 2
                } else {
                    color = .rgb(UInt8(codes[index + 1]), UInt8(codes[index + 2]), UInt8(codes[index + 3]))
                    index += 4
                }
                if code == 38 { pen.foreground = color } else { pen.background = color }
            default: unknownSequences.append("SGR \(code)")
            }
        }
    }

    private mutating func put(_ character: Character) {
        let width = DisplayWidth.of(character)
        guard width > 0 else { return }
        if pendingWrap {
            pendingWrap = false
            column = 0
            if row == rows - 1 { scrolled = true } else { row += 1 }
        }
        if width == 2, column == columns - 1 { wrappedWide = true }
        let index = row * columns + column
        if cells[index].isContinuation, column > 0 { cells[index - 1] = .blank(pen) }
        if cells[index].width == 2, column + 1 < columns, width != 2 { cells[index + 1] = .blank(pen) }
        cells[index] = Cell(character, width: UInt8(width), style: pen)
        if width == 2, column + 1 < columns {
            if cells[index + 1].width == 2, column + 2 < columns { cells[index + 2] = .blank(pen) }
            cells[index + 1] = .continuation(pen)
        }
        column += width
        if column >= columns {
            column = columns - 1
            pendingWrap = true
        }
    }
}
