import SybilCore

/// When a streamed body last delivered bytes, and a wait that returns once it has been silent
/// for `timeout` on the injected clock (heartbeats count: a healthy stream is never silent
/// that long). The chat transport and the workspace events follower end a stalled stream with it.
public final class StreamStallWatch<C: Clock>: Sendable where C.Duration == Duration {
    private let clock: C
    /// How long the stream may stay silent.
    public let timeout: Duration
    private let last: Locked<C.Instant>

    /// A watch that counts from now.
    public init(clock: C, timeout: Duration) {
        self.clock = clock
        self.timeout = timeout
        last = Locked(clock.now)
    }

    /// Bytes arrived.
    public func touch() {
        let now = clock.now
        last.withLock { $0 = now }
    }

    /// Returns once no bytes arrived for `timeout`; throws when the waiting task is cancelled.
    public func waitForStall() async throws {
        while true {
            let seen = last.withLock { $0 }
            try await clock.sleep(until: seen.advanced(by: timeout), tolerance: nil)
            if last.withLock({ $0 }) == seen { return }
        }
    }
}
