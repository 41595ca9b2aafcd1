/// Keeps the reader's place when older rows are prepended (SPEC §4.4): before the update it
/// remembers the first visible row and its offset from the viewport's top; after it, that row
/// is scrolled back to the same offset. Live rows are held back while the restoration runs,
/// for at most 1.5 s, so a streaming reply does not move the rows being read.
public struct PrependAnchor<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// The longest live rows are held back.
    public static var maximumHold: Duration { .milliseconds(1_500) }

    /// The first visible row.
    public let rowId: String
    /// Its top's distance below the viewport's top, in points (negative when partly above).
    public let offset: Double
    /// When the anchor was taken.
    public let capturedAt: Instant
    /// Whether the position has been restored.
    public private(set) var isRestored = false

    /// Remembers `rowId`, whose top is `rowMinY` in content coordinates while the content is
    /// scrolled to `contentOffset`.
    public init(rowId: String, rowMinY: Double, contentOffset: Double, at now: Instant) {
        self.rowId = rowId
        self.offset = rowMinY - contentOffset
        self.capturedAt = now
    }

    /// The content offset that puts the anchor row back at its offset, given where the row's
    /// top is after the update; marks the anchor restored.
    public mutating func restore(rowMinY: Double) -> Double {
        isRestored = true
        return rowMinY - offset
    }

    /// Whether live rows are still held back.
    public func holdsLiveRows(at now: Instant) -> Bool {
        !isRestored && capturedAt.duration(to: now) < Self.maximumHold
    }
}
