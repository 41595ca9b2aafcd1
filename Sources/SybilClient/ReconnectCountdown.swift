/// A reconnect wait counted down on a status line: the wait is announced once (its reason and
/// `retryIn`), and each later frame shows the whole seconds left of it, from when it was first
/// seen on the frame clock the front end passes in (``ReconnectDelay/seconds(_:)`` rounds
/// up, so the line never shows 0 s while still waiting).
public struct ReconnectCountdown: Sendable, Hashable {
    private var shown: (reason: String, retryIn: Duration, since: Duration)?

    /// A countdown showing nothing yet.
    public init() {}

    /// The whole seconds left of a wait of `retryIn` for `reason`, at frame time `now`. A wait
    /// that differs from the one shown (a new attempt) starts counting at `now`.
    public mutating func secondsLeft(reason: String, retryIn: Duration, now: Duration) -> Int64 {
        if let shown, shown.reason == reason, shown.retryIn == retryIn {
            let left = retryIn - (now - shown.since)
            return ReconnectDelay.seconds(left > .zero ? left : .zero)
        }
        shown = (reason, retryIn, now)
        return ReconnectDelay.seconds(retryIn)
    }

    /// Forgets the wait shown (connected again, or the screen closed).
    public mutating func reset() {
        shown = nil
    }

    public static func == (lhs: ReconnectCountdown, rhs: ReconnectCountdown) -> Bool {
        lhs.shown?.reason == rhs.shown?.reason && lhs.shown?.retryIn == rhs.shown?.retryIn
            && lhs.shown?.since == rhs.shown?.since
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(shown?.reason)
        hasher.combine(shown?.retryIn)
        hasher.combine(shown?.since)
    }
}
