import SybilMotion

/// The breathing screen (F3 or Ctrl+B): the motion math's scene — the horizon, the ripples, the
/// guidance text changing colour as it crosses the water line — drawn over the whole screen at
/// the terminal's frame rate. Time comes from the runner's frame clock (``advance(to:)``);
/// with reduced motion the scene stays still. Pure.
public struct BreathingScreen: Sendable {
    /// Points per cell, as `sybil breathe` draws the scene.
    static let pointsPerColumn = 2.0
    static let pointsPerRow = 4.0

    /// The scene as of ``elapsed``.
    public private(set) var scene: BreathingScene
    /// Seconds since the screen opened, as far as the scene has been advanced.
    public private(set) var elapsed = 0.0
    /// Whether the scene stays still (reduced motion).
    public let reduceMotion: Bool
    private let appearance: BreathingTheme.Appearance
    private var size: TerminalSize

    /// A scene for a screen of `size`.
    public init(size: TerminalSize, appearance: Theme.Appearance, reduceMotion: Bool) {
        self.appearance = appearance == .light ? .light : .dark
        self.reduceMotion = reduceMotion
        self.size = size
        scene = Self.scene(size: size, appearance: self.appearance)
    }

    private static func scene(size: TerminalSize, appearance: BreathingTheme.Appearance) -> BreathingScene {
        var configuration = BreathingScene.Configuration(
            width: Double(size.columns) * pointsPerColumn, height: Double(max(1, size.rows - 1)) * pointsPerRow)
        configuration.textWidth = 12 * pointsPerColumn
        configuration.textHeight = pointsPerRow
        return BreathingScene(configuration: configuration, theme: .forAppearance(appearance))
    }

    /// Advances the scene to `seconds` after it opened, in the steps the scene accepts.
    public mutating func advance(to seconds: Double) {
        guard !reduceMotion else { return }
        while elapsed < seconds {
            let step = min(seconds - elapsed, FrameTick.maximumDuration)
            elapsed += step
            scene.advance(frame: FrameTick(timestamp: elapsed, duration: step))
        }
    }

    /// A new size: the scene is laid out again and brought to the same time.
    public mutating func resize(_ newSize: TerminalSize) {
        guard newSize != size else { return }
        size = newSize
        let time = elapsed
        scene = Self.scene(size: newSize, appearance: appearance)
        elapsed = 0
        advance(to: time)
    }

    /// Draws the scene over `rect` (its last row says what to do).
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) {
        guard rect.rows > 1, rect.columns > 0 else { return }
        let renderer = BreathingSceneGridRenderer(
            columns: rect.columns, rows: rect.rows - 1, color: theme.appearance != .monochrome)
        for (offset, line) in renderer.lines(scene).prefix(rect.rows - 1).enumerated() {
            Self.write(ansi: line, into: &grid, column: rect.column, row: rect.row + offset, clip: rect)
        }
        let status = "\(scene.guidance)  ·  Esc closes"
        grid.fill(
            GridRect(column: rect.column, row: rect.endRow - 1, columns: rect.columns, rows: 1), style: theme.text)
        grid.write(
            DisplayWidth.truncate(status, to: rect.columns), column: rect.column, row: rect.endRow - 1,
            style: theme.secondary, clip: rect)
    }

    /// Writes a renderer line (characters and `ESC [ … m` colour changes) as cells.
    static func write(ansi line: String, into grid: inout CellGrid, column: Int, row: Int, clip: GridRect) {
        var style = CellStyle.plain
        var x = column
        var characters = line.makeIterator()
        while let character = characters.next() {
            guard character == "\u{1B}" else {
                x = grid.write(String(character), column: x, row: row, style: style, clip: clip)
                continue
            }
            var parameters = ""
            while let next = characters.next(), next != "m" {
                if next != "[" { parameters.append(next) }
            }
            style = Self.style(parameters, from: style)
        }
    }

    /// The style after the SGR parameters `parameters` (0, 1, 38;2;r;g;b, 48;2;r;g;b).
    static func style(_ parameters: String, from current: CellStyle) -> CellStyle {
        var style = current
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        var index = 0
        func channel(_ offset: Int) -> UInt8 {
            numbers.indices.contains(index + offset) ? UInt8(clamping: numbers[index + offset]) : 0
        }
        while index < numbers.count {
            switch numbers[index] {
            case 0: style = .plain
            case 1: style.attributes.insert(.bold)
            case 38 where numbers.count > index + 4 && numbers[index + 1] == 2:
                style.foreground = .rgb(channel(2), channel(3), channel(4))
                index += 4
            case 48 where numbers.count > index + 4 && numbers[index + 1] == 2:
                style.background = .rgb(channel(2), channel(3), channel(4))
                index += 4
            default: break
            }
            index += 1
        }
        return style
    }
}
