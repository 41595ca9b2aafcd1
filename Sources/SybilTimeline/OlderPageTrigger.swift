/// Decides when scrolling loads the page before the window (SPEC §4.4): within 1,800 pt of
/// the top, at most every 0.25 s, and a load still running after 8 s counts as stale, so
/// another may start.
///
/// A load that failed is not asked again on the next scroll report: the next start waits
/// ``firstRetryDelay`` (1 s) after the failure, twice as long after each further failure in a
/// row, at most ``maximumRetryDelay`` (30 s). A load that ends without failing
/// (``finished()``) or a fresh newest window (``resetFailureBackoff()``) ends the wait.
public struct OlderPageTrigger<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// Distance from the top, in points, within which a load starts.
    public static var threshold: Double { 1_800 }
    /// Shortest time between two starts.
    public static var minimumInterval: Duration { .milliseconds(250) }
    /// After this long a running load no longer blocks a new one.
    public static var staleAfter: Duration { .seconds(8) }
    /// The wait after a first failed load before the next may start.
    public static var firstRetryDelay: Duration { .seconds(1) }
    /// The longest wait after failed loads.
    public static var maximumRetryDelay: Duration { .seconds(30) }

    private var lastStart: Instant?
    private var inFlightSince: Instant?
    /// Failed loads since the last one that did not fail (or the last reset).
    private var failuresInARow = 0
    /// No load starts before this, after a failed one.
    private var retryAt: Instant?

    /// A trigger that has started nothing.
    public init() {}

    /// The wait after the `failures`-th failed load in a row: 1 s, 2 s, 4 s, … at most 30 s.
    public static func retryDelay(afterFailures failures: Int) -> Duration {
        // 2^5 s already passes the limit; a larger shift is never needed.
        let doublings = min(max(failures - 1, 0), 5)
        return min(firstRetryDelay * (1 << doublings), maximumRetryDelay)
    }

    /// The list scrolled; returns whether to start loading the older page now.
    public mutating func scrolled(distanceFromTop: Double, hasOlderEntries: Bool, at now: Instant) -> Bool {
        guard hasOlderEntries, distanceFromTop <= Self.threshold else { return false }
        if let inFlightSince, inFlightSince.duration(to: now) < Self.staleAfter { return false }
        if let lastStart, lastStart.duration(to: now) < Self.minimumInterval { return false }
        if let retryAt, now < retryAt { return false }
        lastStart = now
        inFlightSince = now
        return true
    }

    /// The load ended without failing (applied, or dropped because it no longer continued the
    /// window): the next may start after ``minimumInterval``, whatever failed before.
    public mutating func finished() {
        inFlightSince = nil
        resetFailureBackoff()
    }

    /// The load failed at `now`: the next starts no earlier than
    /// ``retryDelay(afterFailures:)`` later.
    public mutating func failed(at now: Instant) {
        inFlightSince = nil
        failuresInARow += 1
        retryAt = now.advanced(by: Self.retryDelay(afterFailures: failuresInARow))
    }

    /// A fresh newest window arrived: the wait after failed loads ends, and the next failure
    /// waits ``firstRetryDelay`` again.
    public mutating func resetFailureBackoff() {
        failuresInARow = 0
        retryAt = nil
    }

    /// Whether a load is running and younger than ``staleAfter``.
    public func isLoading(at now: Instant) -> Bool {
        guard let inFlightSince else { return false }
        return inFlightSince.duration(to: now) < Self.staleAfter
    }
}
