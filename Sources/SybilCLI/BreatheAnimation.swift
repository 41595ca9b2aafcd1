import SybilMotion

/// The live `sybil breathe`: the alternate screen, a frame every 1/30 s from the clock
/// until the time is up or SIGINT/SIGTERM arrives, then the screen and cursor restored.
struct BreatheAnimation {
    static let enterScreen = "\u{1B}[?1049h\u{1B}[?25l"
    static let leaveScreen = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    let seconds: Int
    var scene: BreathingScene
    let grid: BreathingSceneGridRenderer
    let io: CommandIO

    /// Animates until done or asked to stop; always leaves the alternate screen.
    func run<C: Clock>(clock: C) async where C.Duration == Duration {
        let animation = Task { [scene] in
            var scene = scene
            io.writeOutput(Self.enterScreen)
            let start = clock.now
            let frame = Duration.seconds(1) / BreatheCommand.framesPerSecond
            var previous = 0.0
            var next = start
            while !Task.isCancelled {
                let elapsed = start.duration(to: clock.now)
                let time = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                scene.advance(frame: FrameTick(timestamp: time, duration: time - previous))
                previous = time
                let status = "\(scene.guidance)  \(max(seconds - Int(time), 0)) s left  (Ctrl+C stops)"
                io.writeOutput("\u{1B}[H" + grid.render(scene) + "\u{1B}[0m\u{1B}[2K" + status)
                if time >= Double(seconds) { break }
                next = next.advanced(by: frame)
                do { try await clock.sleep(until: next, tolerance: nil) } catch { break }
            }
            io.writeOutput(Self.leaveScreen)
        }
        let waiter = Task {
            await io.waitForTermination()
            animation.cancel()
        }
        await animation.value
        waiter.cancel()
    }
}
