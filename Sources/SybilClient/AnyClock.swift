import SybilCore

/// Any clock that measures in `Duration`, behind one concrete type: a model generic over its
/// clock can be kept by an owner that must name the type (the terminal app's services and
/// session screen), whichever clock it was given — the live `ContinuousClock` in the app, a
/// manual clock in tests. Its instants are the time since the wrapped clock's reading when
/// this clock was made; sleeps wait on the wrapped clock.
public struct AnyClock: Clock, Sendable {
    /// A point on the wrapped clock's time line, as the time since this clock was made.
    public typealias Instant = OffsetInstant

    private let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration, Duration?) async throws -> Void
    /// The wrapped clock's resolution.
    public let minimumResolution: Duration

    /// `clock`, behind this type; its origin is `clock`'s time now.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset, tolerance in
            try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance)
        }
        minimumResolution = clock.minimumResolution
    }

    /// The wrapped clock's time now.
    public var now: Instant { Instant(offset: elapsed()) }

    /// Sleeps on the wrapped clock until `deadline`; throws `CancellationError` when the task
    /// is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleepUntil(deadline.offset, tolerance)
    }
}
