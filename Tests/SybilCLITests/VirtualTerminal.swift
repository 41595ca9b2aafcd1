import SybilCore

/// A terminal screen for tests: prints characters with the deferred wrap real terminals use,
/// and obeys the few controls the reply printer writes (line feed as CR LF, carriage return,
/// CSI n A, CSI J, CSI K, CSI 2K; SGR ignored). Anything else is a test failure by design:
/// it is kept in ``unknown``.
struct VirtualTerminal {
    let columns: Int
    private(set) var lines: [[Character]] = [[]]
    private(set) var row = 0
    private(set) var column = 0
    /// Control sequences this terminal does not know.
    private(set) var unknown: [String] = []
    /// The farthest any cursor-up went above the first row (should stay 0).
    private(set) var overshoot = 0

    init(columns: Int) {
        self.columns = columns
    }

    /// The screen's text, one line per row, trailing spaces removed.
    var text: String {
        lines.map { line in String(line.reversed().drop(while: { $0 == " " }).reversed()) }.joined(separator: "\n")
    }

    /// The screen after writing `output` to a fresh terminal.
    static func screen(_ output: String, columns: Int) -> VirtualTerminal {
        var terminal = VirtualTerminal(columns: columns)
        terminal.write(output)
        return terminal
    }

    mutating func write(_ output: String) {
        var characters = output.makeIterator()
        while let character = characters.next() {
            switch character {
            case "\n":
                row += 1
                column = 0
                while lines.count <= row { lines.append([]) }
            case "\r":
                column = 0
            case "\u{1B}":
                guard characters.next() == "[" else {
                    unknown.append("ESC")
                    continue
                }
                var parameters = ""
                while let next = characters.next() {
                    if next.isLetter {
                        control(parameters, next)
                        break
                    }
                    parameters.append(next)
                }
            default:
                if column >= columns {
                    row += 1
                    column = 0
                    while lines.count <= row { lines.append([]) }
                }
                while lines[row].count < column { lines[row].append(" ") }
                if column < lines[row].count {
                    lines[row][column] = character
                } else {
                    lines[row].append(character)
                }
                column += 1
            }
        }
    }

    private mutating func control(_ parameters: String, _ final: Character) {
        switch (parameters, final) {
        case (_, "m"):
            break
        case (_, "A"):
            let count = Int(parameters) ?? 1
            if row - count < 0 { overshoot = max(overshoot, count - row) }
            row = max(0, row - count)
            column = min(column, columns - 1)
        case ("", "J"), ("0", "J"):
            lines[row] = Array(lines[row].prefix(column))
            lines.removeSubrange((row + 1)...)
        case ("", "K"), ("0", "K"):
            lines[row] = Array(lines[row].prefix(column))
        case ("2", "K"):
            lines[row] = []
        default:
            unknown.append(parameters + String(final))
        }
    }
}
