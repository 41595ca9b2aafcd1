/// A point on a time line counted from its clock's origin: the instant of the clocks whose time
/// starts when they are made (the test suites' manual clock, and the app's `AnyClock`, which
/// counts from the reading of the clock it wraps).
public struct OffsetInstant: InstantProtocol, Sendable, Hashable, Comparable {
    /// Time since the clock's origin.
    public var offset: Duration

    /// An instant at `offset` from the origin.
    public init(offset: Duration) {
        self.offset = offset
    }

    /// This instant moved by `duration`.
    public func advanced(by duration: Duration) -> OffsetInstant {
        OffsetInstant(offset: offset + duration)
    }

    /// The duration from this instant to `other`.
    public func duration(to other: OffsetInstant) -> Duration {
        other.offset - offset
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: OffsetInstant, rhs: OffsetInstant) -> Bool {
        lhs.offset < rhs.offset
    }
}
