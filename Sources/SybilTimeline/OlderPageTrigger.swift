/// Decides when scrolling loads the page before the window (SPEC §4.4): within 1,800 pt of
/// the top, at most every 0.25 s, and a load still running after 8 s counts as stale, so
/// another may start.
public struct OlderPageTrigger<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Distance from the top, in points, within which a load starts.
    public static var threshold: Double { 1_800 }
    /// Shortest time between two starts.
    public static var minimumInterval: Duration { .milliseconds(250) }
    /// After this long a running load no longer blocks a new one.
    public static var staleAfter: Duration { .seconds(8) }

    private var lastStart: Instant?
    private var inFlightSince: Instant?

    /// A trigger that has started nothing.
    public init() {}

    /// The list scrolled; returns whether to start loading the older page now.
    public mutating func scrolled(distanceFromTop: Double, hasOlderEntries: Bool, at now: Instant) -> Bool {
        guard hasOlderEntries, distanceFromTop <= Self.threshold else { return false }
        if let inFlightSince, inFlightSince.duration(to: now) < Self.staleAfter { return false }
        if let lastStart, lastStart.duration(to: now) < Self.minimumInterval { return false }
        lastStart = now
        inFlightSince = now
        return true
    }

    /// The load ended (applied, dropped or failed).
    public mutating func finished() {
        inFlightSince = nil
    }

    /// Whether a load is running and younger than ``staleAfter``.
    public func isLoading(at now: Instant) -> Bool {
        guard let inFlightSince else { return false }
        return inFlightSince.duration(to: now) < Self.staleAfter
    }
}
