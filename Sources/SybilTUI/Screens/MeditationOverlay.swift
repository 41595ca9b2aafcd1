import SybilClient

/// The meditation overlay (F5, or the Chats key pressed twice as the seed's double tap on the
/// tab): a calm timer over the breathing scene of SybilMotion, by the rules of
/// ``MeditationSession`` (the same as `sybil meditate`). Time is the inputs' time line, passed
/// in; when the planned time is up, or Esc ends it early, it says how many whole seconds the
/// record holds. Pure.
public struct MeditationOverlay: Sendable {
    /// The session's rules: the planned time, the timer, the seconds recorded.
    public let session: MeditationSession
    /// When it opened, on the inputs' time line.
    public let startedAt: Duration
    /// The scene drawn behind the timer.
    public private(set) var scene: BreathingScreen
    /// Seconds since it opened, as far as it was advanced.
    public private(set) var elapsed = 0.0

    /// A session of `session` opened at `now`, over a scene for `size`.
    public init(
        session: MeditationSession, now: Duration, size: TerminalSize, appearance: Theme.Appearance,
        reduceMotion: Bool
    ) {
        self.session = session
        startedAt = now
        scene = BreathingScreen(size: size, appearance: appearance, reduceMotion: reduceMotion)
    }

    /// Seconds from ``startedAt`` to `now` (never below 0).
    public func seconds(at now: Duration) -> Double {
        let span = now - startedAt
        let seconds = Double(span.components.seconds) + Double(span.components.attoseconds) * 1e-18
        return max(0, seconds)
    }

    /// Advances the timer and the scene to `now`; returns whether the screen changed (the
    /// scene moved, or the timer's text did).
    public mutating func advance(to now: Duration) -> Bool {
        let before = session.timer(after: elapsed)
        elapsed = seconds(at: now)
        scene.advance(to: elapsed)
        return !scene.reduceMotion || session.timer(after: elapsed) != before
    }

    /// Whether the planned time is up at `now`.
    public func isFinished(at now: Duration) -> Bool {
        session.isFinished(after: seconds(at: now))
    }

    /// The whole seconds a session ended at `now` records (at most the planned time), or `nil`
    /// under a second.
    public func recordedSeconds(at now: Duration) -> Int? {
        session.recordedSeconds(after: seconds(at: now))
    }

    /// The line under the scene: the timer and how to end.
    public var status: String {
        "meditating  \(session.timer(after: elapsed))  ·  Esc ends it and saves the time spent"
    }

    /// A new screen size: the scene is laid out again at the same time.
    public mutating func resize(_ size: TerminalSize) {
        scene.resize(size)
    }

    /// Draws the scene over `rect` with the timer on its last row.
    public func draw(into grid: inout CellGrid, in rect: GridRect, theme: Theme) {
        guard rect.rows > 1, rect.columns > 0 else { return }
        scene.draw(into: &grid, in: rect, theme: theme)
        let last = GridRect(column: rect.column, row: rect.endRow - 1, columns: rect.columns, rows: 1)
        grid.fill(last, style: theme.text)
        grid.write(
            DisplayWidth.truncate(status, to: rect.columns), column: rect.column, row: last.row,
            style: theme.secondary, clip: rect)
    }
}
