import SybilTUI

// `tui-output`: a 200×60 screen while a reply streams: a styled history above, the reply
// growing by a few characters per frame at the bottom (wrapped at 196 columns, the view
// anchored to the bottom so each new line scrolls everything up), and a status line with a
// frame counter. `FrameWriter` writes only the changed cells; the baseline, same frames in the
// same run, repaints the whole screen every frame (the writer invalidated before each frame).

private let outputColumns = 200
private let outputRows = 60
private let outputFrames = scaled(2_000)
private let replyWords = [
    "the", "server", "streams", "tokens", "while", "the", "terminal", "draws", "only", "what", "changed", "中文",
    "since", "the", "last", "frame", "so", "a", "reply", "costs", "bytes", "per", "word", "🙂",
]

private struct OutputFrames {
    var history: [(String, CellStyle)] = []
    var reply = ""

    init() {
        let styles = [Theme.dark.user, Theme.dark.assistant, Theme.dark.secondary, Theme.dark.code]
        for index in 0..<120 {
            let words = (0..<(8 + index % 20)).map { replyWords[($0 * 7 + index) % replyWords.count] }
            history.append((words.joined(separator: " "), styles[index % styles.count]))
        }
    }

    /// The reply after `frame` frames: four more characters each.
    mutating func advance(to frame: Int) {
        while reply.count < frame * 4 {
            reply += replyWords[reply.count % replyWords.count] + " "
        }
    }

    func grid(frame: Int) -> CellGrid {
        var lines: [(String, CellStyle)] = history
        var remaining = Substring(reply.prefix(frame * 4))
        while !remaining.isEmpty {
            let (line, _) = DisplayWidth.prefix(of: remaining, fitting: outputColumns - 4)
            lines.append((String(line), Theme.dark.assistant))
            remaining = remaining.dropFirst(max(1, line.count))
        }
        var grid = CellGrid(columns: outputColumns, rows: outputRows)
        let visible = lines.suffix(outputRows - 1)
        for (row, line) in visible.enumerated() {
            grid.write(line.0, column: 2, row: row, style: line.1)
        }
        grid.fill(
            GridRect(column: 0, row: outputRows - 1, columns: outputColumns, rows: 1), style: Theme.dark.selection)
        grid.write(
            "streaming · frame \(frame) · \(frame * 4) characters", column: 1, row: outputRows - 1,
            style: Theme.dark.selection)
        return grid
    }
}

func benchmarkTUIOutput() {
    var frames = OutputFrames()
    frames.advance(to: outputFrames)
    func run(fullRepaint: Bool) -> (seconds: Double, bytes: Int) {
        var fastest = Double.infinity
        var bytes = 0
        for _ in 0..<repetitions {
            var writer = FrameWriter()
            var elapsed = Duration.zero
            bytes = 0
            for frame in 0..<outputFrames {
                let grid = frames.grid(frame: frame)
                if fullRepaint { writer.invalidate() }
                let start = clock.now
                let output = writer.render(grid, cursor: CursorPlacement(column: 2, row: outputRows - 2))
                elapsed += start.duration(to: clock.now)
                bytes += output.count
                blackHole(output)
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            fastest = min(fastest, seconds)
        }
        return (fastest, bytes)
    }
    let diff = run(fullRepaint: false)
    let full = run(fullRepaint: true)
    let frameCount = Double(outputFrames)
    print("tui-output: \(outputColumns)×\(outputRows), \(outputFrames) frames of a streaming reply")
    print(
        "  diff:   \(format(Double(diff.bytes) / frameCount, 0)) bytes/frame, "
            + "\(format(diff.seconds / frameCount * 1e6, 1)) µs/frame")
    print(
        "  repaint (baseline): \(format(Double(full.bytes) / frameCount, 0)) bytes/frame, "
            + "\(format(full.seconds / frameCount * 1e6, 1)) µs/frame")
    print(
        "  ratio: \(format(Double(full.bytes) / Double(max(1, diff.bytes)), 1))× fewer bytes, "
            + "\(format(full.seconds / diff.seconds, 1))× less time than repainting")
}
