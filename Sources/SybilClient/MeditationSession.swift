import SybilWire

/// A meditation session's rules (seed 004: a session is saved as a local-first record), the
/// same for `sybil meditate` and the app's overlay: how long it was planned for, what the
/// timer shows, and how many seconds its record holds when it ends, on time or early.
///
/// Pure: the caller passes the seconds elapsed on its own clock.
public struct MeditationSession: Sendable, Hashable {
    /// The minutes a session may be planned for.
    public static let minutesRange = 1...180
    /// The minutes a session lasts when none are given.
    public static let defaultMinutes = 10

    /// How long the session is planned to last, in seconds.
    public let plannedSeconds: Int

    /// A session of `minutes`, or `nil` when it is outside ``minutesRange``.
    public init?(minutes: Int) {
        guard Self.minutesRange.contains(minutes) else { return nil }
        plannedSeconds = minutes * 60
    }

    /// Whole seconds left after `elapsed` seconds, never below 0. Rounds up, so the timer
    /// reads 10:00 at the start and 0:00 only when the time is up.
    public func secondsLeft(after elapsed: Double) -> Int {
        guard elapsed.isFinite, elapsed > 0 else { return plannedSeconds }
        let left = Double(plannedSeconds) - elapsed
        return left <= 0 ? 0 : Int(left.rounded(.up))
    }

    /// Whether the planned time has passed after `elapsed` seconds.
    public func isFinished(after elapsed: Double) -> Bool { secondsLeft(after: elapsed) == 0 }

    /// The timer: `m:ss left`, or `done` when the time is up.
    public func timer(after elapsed: Double) -> String {
        let left = secondsLeft(after: elapsed)
        guard left > 0 else { return "done" }
        let seconds = left % 60
        return "\(left / 60):\(seconds < 10 ? "0" : "")\(seconds) left"
    }

    /// The seconds the record of a session that ended after `elapsed` seconds holds: the
    /// whole seconds spent, at most the planned time; `nil` when under a second was spent,
    /// which is no session to save (a record's duration is at least 1 s).
    public func recordedSeconds(after elapsed: Double) -> Int? {
        guard elapsed.isFinite, elapsed >= 1 else { return nil }
        let spent = min(elapsed, Double(plannedSeconds))
        let seconds = Int(spent.rounded(.down))
        return Int64(seconds) >= Record.durationRange.lowerBound ? seconds : nil
    }
}
