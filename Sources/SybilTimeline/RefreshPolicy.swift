import SybilCore

/// When a host reloads its newest window (SPEC §4.2): the staleness triggers and the polling
/// interval with jitter.
public struct RefreshPolicy: Sendable, Hashable {
    /// Polling interval while nothing is pending.
    public var idleInterval: Duration
    /// Polling interval while a run, a message or a load is pending.
    public var busyInterval: Duration
    /// The largest extra fraction added to each wait.
    public var maximumJitter: Double

    /// The seed's numbers: 60 s, 10 s while busy, up to +30 %.
    public init(
        idleInterval: Duration = .seconds(60), busyInterval: Duration = .seconds(10), maximumJitter: Double = 0.3
    ) {
        precondition(maximumJitter >= 0, "jitter cannot be negative")
        self.idleInterval = idleInterval
        self.busyInterval = busyInterval
        self.maximumJitter = maximumJitter
    }

    /// The wait before the next poll: the interval plus a random part of up to
    /// ``maximumJitter`` of it, drawn from `random`.
    public func pollDelay(busy: Bool, random: some RandomSource) -> Duration {
        let base = busy ? busyInterval : idleInterval
        return base + base * (maximumJitter * random.nextUnitInterval())
    }
}

/// Why a chat's newest window counts as stale (each marks the selected target stale and may
/// enqueue its load).
public enum StalenessTrigger: Sendable, Hashable {
    /// How a run ended.
    public enum RunEnding: Sendable, Hashable, CaseIterable {
        /// Completed.
        case finished
        /// Failed.
        case failed
        /// Cancelled by the user.
        case cancelled
        /// Stopped by the desktop.
        case stopped
    }

    /// A run of this session ended.
    case runEnded(RunEnding)
    /// The desktop came back (reconnected or restored).
    case desktopRestored
    /// The app returned to the foreground.
    case returnedToForeground
    /// Another desktop was selected.
    case desktopChanged
    /// The user asked for a refresh.
    case explicitRefresh
    /// The user selected this chat again.
    case chatReselected
    /// The session list reported this `updatedAt` (milliseconds); stale only when newer than
    /// the last one seen.
    case sessionUpdated(updatedAt: Int64)
}

/// A host's staleness bookkeeping.
public struct RefreshState: Sendable, Hashable {
    /// The window should be reloaded.
    public private(set) var isStale = true
    /// A load failed: reload fully at the next activation.
    public private(set) var needsFreshLoad = false
    /// The newest session `updatedAt` seen.
    public private(set) var lastSeenUpdatedAt: Int64?

    /// Fresh state: stale until the first load.
    public init() {}

    /// Records a trigger; returns whether it made the window stale.
    @discardableResult
    public mutating func handle(_ trigger: StalenessTrigger) -> Bool {
        if case .sessionUpdated(let updatedAt) = trigger {
            if let seen = lastSeenUpdatedAt, updatedAt <= seen { return false }
            lastSeenUpdatedAt = updatedAt
        }
        isStale = true
        return true
    }

    /// A load was applied.
    public mutating func loaded() {
        isStale = false
        needsFreshLoad = false
    }

    /// A load failed: the rows stay, the next activation loads afresh.
    public mutating func loadFailed() {
        needsFreshLoad = true
        isStale = true
    }
}
