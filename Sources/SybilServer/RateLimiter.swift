import SybilCore

/// At most `limit` events in any `window`; a refused event is told when to retry.
final class RateLimiter: Sendable {
    private let limit: Int
    private let window: Duration
    private let events = Locked<[Duration]>([])

    init(limit: Int, window: Duration = .seconds(60)) {
        self.limit = limit
        self.window = window
    }

    /// Records an event at `now` and returns `nil`, or returns the wait before one fits.
    func admit(now: Duration) -> Duration? {
        events.withLock { events in
            events.removeAll { now - $0 >= window }
            guard events.count >= limit, let oldest = events.first else {
                events.append(now)
                return nil
            }
            return window - (now - oldest)
        }
    }
}
