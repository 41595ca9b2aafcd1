/// The settle passes after a scroll (SPEC §4.4): a pass every 32 ms, or first 350 ms after an
/// animated scroll; they end after two stable passes in a row (offset within 1 pt and content
/// height within 0.5 pt of the previous pass) or after eight passes.
public struct SettlePasses: Sendable {
    /// Time between passes.
    public static var interval: Duration { .milliseconds(32) }
    /// Wait before the first pass after an animated scroll.
    public static var afterAnimatedScroll: Duration { .milliseconds(350) }
    /// Offset change that still counts as stable, in points.
    public static var offsetTolerance: Double { 1 }
    /// Content height change that still counts as stable, in points.
    public static var heightTolerance: Double { 0.5 }
    /// Stable passes in a row that end the settling.
    public static var stablePassesNeeded: Int { 2 }
    /// Passes after which settling ends regardless.
    public static var maximumPasses: Int { 8 }

    /// Passes run so far.
    public private(set) var passes = 0
    /// Stable passes in a row.
    public private(set) var stableRun = 0
    /// Whether settling ended.
    public private(set) var isDone = false
    private let animated: Bool
    private var last: (offset: Double, height: Double)?

    /// Settling after a scroll, animated or not.
    public init(afterAnimatedScroll animated: Bool) {
        self.animated = animated
    }

    /// The wait before the next pass.
    public var nextDelay: Duration {
        passes == 0 && animated ? Self.afterAnimatedScroll : Self.interval
    }

    /// Runs a pass with the measured offset and content height; returns whether settling ended.
    public mutating func pass(offset: Double, contentHeight: Double) -> Bool {
        guard !isDone else { return true }
        passes += 1
        if let last, abs(offset - last.offset) <= Self.offsetTolerance,
            abs(contentHeight - last.height) <= Self.heightTolerance
        {
            stableRun += 1
        } else {
            stableRun = 0
        }
        last = (offset, contentHeight)
        isDone = stableRun >= Self.stablePassesNeeded || passes >= Self.maximumPasses
        return isDone
    }
}
