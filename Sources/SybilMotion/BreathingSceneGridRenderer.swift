/// Draws a ``BreathingScene`` as a grid of characters, one per terminal cell, with 24-bit
/// ANSI colours or, when `color` is off, characters alone: sky `' '`, horizon `~`, ripples
/// `-`, water `.`, and the guidance text in the cells its frame covers, coloured by the copy
/// whose mask holds the cell (the sky copy above the horizon, the water copy below). Each
/// cell samples the scene at its centre; the scene's size should be the grid's size times
/// the points per cell. Pure: returns strings.
public struct BreathingSceneGridRenderer: Sendable {
    /// The grid's size in cells.
    public let columns: Int, rows: Int
    /// Whether to emit ANSI colour sequences.
    public let color: Bool

    /// A renderer for a grid of `columns` × `rows` (each at least 1).
    public init(columns: Int, rows: Int, color: Bool) {
        self.columns = max(columns, 1)
        self.rows = max(rows, 1)
        self.color = color
    }

    private enum Cell: Equatable {
        case sky, horizon, ripple, water
        case text(Character, overSky: Bool)
    }

    /// The grid's lines, each ending with a colour reset when colour is on.
    public func lines(_ scene: BreathingScene) -> [String] {
        let cellWidth = scene.configuration.width / Double(columns)
        let cellHeight = scene.configuration.height / Double(rows)
        let crossing = scene.textCrossing
        let label = Array(scene.guidance)
        let horizon = (0..<columns).map { scene.horizonY(atX: (Double($0) + 0.5) * cellWidth) }
        var lines: [String] = []
        for row in 0..<rows {
            let y = (Double(row) + 0.5) * cellHeight
            var line = ""
            var lastStyle = ""
            for column in 0..<columns {
                let x = (Double(column) + 0.5) * cellWidth
                let cell = self.cell(
                    scene, x: x, y: y, horizon: horizon[column], cellWidth: cellWidth, half: cellHeight / 2,
                    crossing: crossing, label: label)
                let (character, style) = draw(cell, scene: scene, y: y)
                if color, style != lastStyle {
                    line += style
                    lastStyle = style
                }
                line.append(character)
            }
            lines.append(color ? line + "\u{1B}[0m" : line)
        }
        return lines
    }

    /// The grid as one string, a newline after each line.
    public func render(_ scene: BreathingScene) -> String {
        lines(scene).map { $0 + "\n" }.joined()
    }

    private func cell(
        _ scene: BreathingScene, x: Double, y: Double, horizon: Double, cellWidth: Double, half: Double,
        crossing: TextCrossingFrame, label: [Character]
    ) -> Cell {
        let frame = crossing.frame
        if frame.contains(x: x, y: y) {
            // One character per cell, the label centred in the frame.
            let start = frame.midX - Double(label.count) * cellWidth / 2
            let index = Int(((x - start) / cellWidth).rounded(.down))
            if label.indices.contains(index) {
                let local = (x: x - frame.x, y: y - frame.y)  // the masks are in the text's own coordinates
                return .text(label[index], overSky: crossing.skyMask.contains(x: local.x, y: local.y))
            }
        }
        if y < horizon - half { return .sky }
        if y <= horizon + half { return .horizon }
        for layer in scene.ripples.indices where abs(y - scene.rippleY(layer: layer, atX: x)) < half {
            return .ripple
        }
        return .water
    }

    private func draw(_ cell: Cell, scene: BreathingScene, y: Double) -> (Character, String) {
        let theme = scene.theme
        let height = scene.configuration.height
        let level = scene.waterLevel
        let sky = theme.skyTop.mixed(with: theme.skyBottom, fraction: y / max(level, 1))
        let water = theme.waterTop.mixed(with: theme.waterBottom, fraction: (y - level) / max(height - level, 1))
        switch cell {
        case .sky: return (" ", sgr(foreground: sky, background: sky))
        case .horizon: return ("~", sgr(foreground: theme.horizon, background: y < level ? sky : water))
        case .ripple: return ("-", sgr(foreground: theme.ripple, background: water))
        case .water: return (".", sgr(foreground: water.mixed(with: theme.ripple, fraction: 0.25), background: water))
        case .text(let character, let overSky):
            let foreground = overSky ? theme.textOverSky : theme.textOverWater
            return (character, sgr(foreground: foreground, background: overSky ? sky : water, bold: true))
        }
    }

    private func sgr(foreground: RGBAColor, background: RGBAColor, bold: Bool = false) -> String {
        guard color else { return "" }
        let f = foreground.bytes
        let b = background.bytes
        return "\u{1B}[0;\(bold ? "1;" : "")38;2;\(f.red);\(f.green);\(f.blue);48;2;\(b.red);\(b.green);\(b.blue)m"
    }
}
