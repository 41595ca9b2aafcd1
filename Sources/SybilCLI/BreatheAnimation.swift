import SybilMotion
import Synchronization

/// The live scene of `sybil breathe` and `sybil meditate`: the alternate screen, a frame
/// every 1/30 s from the clock until the time is up or SIGINT/SIGTERM arrives, then the
/// screen and cursor restored. The status line under the scene is the command's.
struct BreatheAnimation {
    static let enterScreen = "\u{1B}[?1049h\u{1B}[?25l"
    static let leaveScreen = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"

    let seconds: Int
    var scene: BreathingScene
    let grid: BreathingSceneGridRenderer
    let io: CommandIO
    /// The line under the scene for a frame `elapsed` seconds in.
    let status: @Sendable (_ scene: BreathingScene, _ elapsed: Double) -> String

    /// Animates until done or asked to stop; always leaves the alternate screen. Returns the
    /// seconds the animation ran on `clock`, at most ``seconds``.
    @discardableResult
    func run<C: Clock>(clock: C) async -> Double where C.Duration == Duration {
        let animation = Task { [scene, status] in
            var scene = scene
            io.writeOutput(Self.enterScreen)
            let start = clock.now
            let frame = Duration.seconds(1) / BreatheCommand.framesPerSecond
            var previous = 0.0
            var next = start
            while !Task.isCancelled {
                let time = Self.seconds(start.duration(to: clock.now))
                scene.advance(frame: FrameTick(timestamp: time, duration: time - previous))
                previous = time
                io.writeOutput("\u{1B}[H" + grid.render(scene) + "\u{1B}[0m\u{1B}[2K" + status(scene, time))
                if time >= Double(seconds) { break }
                next = next.advanced(by: frame)
                do { try await clock.sleep(until: next, tolerance: nil) } catch { break }
            }
            io.writeOutput(Self.leaveScreen)
            return min(Self.seconds(start.duration(to: clock.now)), Double(seconds))
        }
        let waiter = Task {
            await io.waitForTermination()
            animation.cancel()
        }
        let elapsed = await animation.value
        waiter.cancel()
        return elapsed
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
}
