import SybilTimeline
import SybilWire

/// Turns the desktop's events into what the selected host does (SPEC §4.2): a new overlay is
/// shown; a run that finished, failed, was cancelled or stopped, a newer session `updatedAt`,
/// and the desktop coming back online are staleness triggers; a `reset` (events were lost)
/// makes every host stale. Pure: the caller feeds events and performs the actions.
public struct WorkspaceEventTriggers: Sendable, Hashable {
    /// What to do for one event.
    public enum Action: Sendable, Hashable {
        /// Show this overlay (through the screen's throttle).
        case applyOverlay(LiveOverlay)
        /// Apply this delta to the overlay shown when it is its base; when it is not (and it
        /// is newer than what is shown), the chat is stale and reloads.
        case applyOverlayDelta(LiveOverlayDelta)
        /// Mark the chat stale for this reason (it loads when active).
        case trigger(StalenessTrigger)
        /// Events were lost: mark every cached host stale, not just this one.
        case markEveryHostStale
        /// The desktop's reachability changed (`false`: offline; calls would answer 503).
        case desktopOnline(Bool)
    }

    /// The desktop's last known state, `nil` before any `desktop` event.
    public private(set) var desktopOnline: Bool?

    /// Nothing seen yet.
    public init() {}

    /// The actions for `event`.
    public mutating func handle(_ event: WorkspaceEvent) -> [Action] {
        switch event {
        case .overlay(let overlay):
            return [.applyOverlay(overlay)]
        case .overlayDelta(let delta):
            return [.applyOverlayDelta(delta)]
        case .run(_, let state):
            guard let ending = Self.ending(state) else { return [] }
            return [.trigger(.runEnded(ending))]
        case .session(_, let updatedAt):
            return [.trigger(.sessionUpdated(updatedAt: updatedAt))]
        case .desktop(_, let online):
            let wasOffline = desktopOnline == false
            desktopOnline = online
            if online && wasOffline { return [.desktopOnline(true), .trigger(.desktopRestored)] }
            return [.desktopOnline(online)]
        case .reset:
            return [.markEveryHostStale]
        }
    }

    private static func ending(_ state: WorkspaceRunState) -> StalenessTrigger.RunEnding? {
        switch state {
        case .queued, .started: nil
        case .finished: .finished
        case .failed: .failed
        case .cancelled: .cancelled
        case .stopped: .stopped
        }
    }
}
