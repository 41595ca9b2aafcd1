import Foundation
import SybilMotion
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sybil breathe [--seconds N] [--dark|--light] [--frames N]`: the breathing scene on the
/// terminal. Only this command touches the terminal and the clock; the scene and its grid
/// are pure (`SybilMotion`).
enum BreatheCommand {
    static let name = "sybil breathe"
    /// How long the animation runs without `--seconds`.
    static let defaultSeconds = 60
    static let framesPerSecond = 30
    /// Points per terminal cell: cells are about twice as tall as wide.
    static let pointsPerColumn = 2.0
    static let pointsPerRow = 4.0

    struct Options: CommandOptions, Equatable {
        var seconds: Int?
        var theme: BreathingTheme.Appearance = .dark
        var frames: Int?
    }

    static func run(_ arguments: [String], io: CommandIO) async throws(UsageError) -> ExitCode {
        try await run(arguments, io: io, isTerminal: io.outputIsTerminal, clock: ContinuousClock())
    }

    /// The command with the terminal check and the frame clock injected (tests pass a manual
    /// clock and say whether the output is a terminal).
    static func run<C: Clock>(_ arguments: [String], io: CommandIO, isTerminal: Bool, clock: C)
        async throws(UsageError) -> ExitCode where C.Duration == Duration
    {
        // Absent, the number of seconds depends on --frames; the last theme given wins.
        guard let options = try spec.parse(arguments)?.options else {
            io.writeOutput(spec.help)
            return .success
        }
        let output = TerminalOutput(
            environment: io.environment, isTerminal: isTerminal, size: isTerminal ? io.terminalSize() : nil)
        let color = output.isStyled
        let size = (columns: output.columns, rows: output.rows)
        if let frames = options.frames {
            printFrames(frames, options: options, size: size, color: color, io: io)
            return .success
        }
        guard isTerminal else {
            throw UsageError(
                command: name, message: "standard output is not a terminal; use --frames N to print frames")
        }
        let seconds = options.seconds ?? defaultSeconds
        await BreatheAnimation(
            seconds: seconds, scene: scene(options.theme, size),
            grid: BreathingSceneGridRenderer(columns: size.columns, rows: size.rows - 1, color: color), io: io,
            status: { scene, time in "\(scene.guidance)  \(max(seconds - Int(time), 0)) s left  (Ctrl+C stops)" }
        ).run(clock: clock)
        return .success
    }

    static func scene(
        _ appearance: BreathingTheme.Appearance, _ size: (columns: Int, rows: Int), cycle: BreathingCycle = .standard
    ) -> BreathingScene {
        var configuration = BreathingScene.Configuration(
            width: Double(size.columns) * pointsPerColumn, height: Double(size.rows - 1) * pointsPerRow)
        configuration.textWidth = 12 * pointsPerColumn
        configuration.textHeight = pointsPerRow
        configuration.cycle = cycle
        return BreathingScene(configuration: configuration, theme: .forAppearance(appearance))
    }

    /// `--frames`: frame i at i × (seconds / N), or i / 30 s; the state advanced in steps the
    /// scene accepts.
    static func printFrames(
        _ count: Int, options: Options, size: (columns: Int, rows: Int), color: Bool, io: CommandIO
    ) {
        var scene = scene(options.theme, size)
        let grid = BreathingSceneGridRenderer(columns: size.columns, rows: size.rows - 1, color: color)
        let interval = options.seconds.map { Double($0) / Double(count) } ?? 1 / Double(framesPerSecond)
        var time = 0.0
        for index in 0..<count {
            let target = Double(index) * interval
            repeat {
                let step = min(target - time, FrameTick.maximumDuration)
                time += step
                scene.advance(frame: FrameTick(timestamp: time, duration: step))
            } while time < target
            io.writeOutput(statusLine(scene, frame: index + 1, of: count) + "\n" + grid.render(scene))
        }
    }

    static func statusLine(_ scene: BreathingScene, frame: Int, of count: Int) -> String {
        "frame \(frame)/\(count)  \(String(format: "%.2f", scene.elapsed)) s  \(scene.guidance)"
    }

}
