import Foundation

/// Time as the routes see it, injected: a sleep and a monotonic reading from one clock (a
/// manual clock in tests), and the wall time in milliseconds for timestamps.
public struct ServerTime: Sendable {
    /// Sleeps for a duration on the injected clock; throws when cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// Monotonic time since an arbitrary start.
    public var uptime: @Sendable () -> Duration
    /// Milliseconds since the Unix epoch, for message timestamps.
    public var epochMilliseconds: @Sendable () -> Int64

    /// Time from `clock`, with timestamps from `epochMilliseconds`.
    public init<C: Clock>(clock: C, epochMilliseconds: @escaping @Sendable () -> Int64) where C.Duration == Duration {
        let start = clock.now
        sleep = { duration in try await clock.sleep(for: duration) }
        uptime = { start.duration(to: clock.now) }
        self.epochMilliseconds = epochMilliseconds
    }

    /// The real clocks.
    public static var live: ServerTime {
        ServerTime(clock: ContinuousClock()) { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    }
}
