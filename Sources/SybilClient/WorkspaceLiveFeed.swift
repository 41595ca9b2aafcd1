import Observation
import SybilTimeline
import SybilWire

/// Follows the selected chat's live events and turns them into what its host does
/// (``WorkspaceEventTriggers``): overlays go to the screen (or straight to the host), run
/// endings, newer `updatedAt` and a restored desktop mark the chat stale, a `reset` marks
/// every cached host stale. It owns its task: ``stop()`` cancels and awaits it.
@MainActor
@Observable
public final class WorkspaceLiveFeed {
    /// The connection as a status line shows it.
    public enum Connection: Sendable, Hashable {
        /// Not following anything.
        case idle
        /// Connecting for the first time.
        case connecting
        /// Events arrive.
        case connected
        /// Dropped; the next attempt starts after `retryIn`.
        case reconnecting(reason: String, retryIn: Duration)
    }

    /// The connection's state.
    public private(set) var connection = Connection.idle
    /// Whether the desktop is offline, as its last `desktop` event said.
    public private(set) var desktopOffline = false
    /// The last event that broke the contract (it was skipped and the chat reloads).
    public private(set) var lastProblem: String?
    /// Events handled so far (a test or status line can wait on it).
    public private(set) var eventsHandled = 0
    /// The id of the last event handled.
    public private(set) var lastEventId: String?

    @ObservationIgnored private var task: Task<Void, Never>?
    @ObservationIgnored private var triggers = WorkspaceEventTriggers()
    /// The newest settlement epoch whose first overlay made the chat reload.
    @ObservationIgnored private var reloadedForEpoch: Int64?
    @ObservationIgnored private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// A feed that follows nothing yet.
    public init() {}

    /// Follows `updates` for `host`: overlays go to `showOverlay` (the screen model's throttle;
    /// the host itself by default), `everyHostStale` runs on `reset`.
    public func follow(
        _ updates: AsyncStream<WorkspaceEventsClient<some Clock<Duration>>.Update>, host: WorkspaceChatHost,
        showOverlay: (@MainActor (LiveOverlay) -> Void)? = nil,
        everyHostStale: (@MainActor () -> Void)? = nil
    ) {
        task?.cancel()
        triggers = WorkspaceEventTriggers()
        reloadedForEpoch = nil
        connection = .connecting
        task = Task { [weak self] in
            for await update in updates {
                guard let self, !Task.isCancelled else { return }
                self.handle(update, host: host, showOverlay: showOverlay, everyHostStale: everyHostStale)
            }
        }
    }

    /// Stops following and waits until the feed's task has ended.
    public func stop() async {
        let task = task
        self.task = nil
        task?.cancel()
        await task?.value
        connection = .idle
        // Nothing more will be handled: whoever waits for events stops waiting.
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.continuation.resume() }
    }

    /// Returns once `count` events have been handled in total.
    public func waitForEvents(_ count: Int) async {
        guard eventsHandled < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    private func handle<C: Clock<Duration>>(
        _ update: WorkspaceEventsClient<C>.Update, host: WorkspaceChatHost,
        showOverlay: (@MainActor (LiveOverlay) -> Void)?, everyHostStale: (@MainActor () -> Void)?
    ) {
        switch update {
        case .connected:
            connection = .connected
        case .disconnected(let reason, let retryIn):
            connection = .reconnecting(reason: reason, retryIn: retryIn)
        case .malformed(let problem):
            lastProblem = problem
            host.handle(.explicitRefresh)
        case .event(let event, let id):
            if !id.isEmpty { lastEventId = id }
            for action in triggers.handle(event) {
                switch action {
                case .applyOverlay(let overlay):
                    show(overlay, host: host, showOverlay: showOverlay)
                case .applyOverlayDelta(let delta):
                    // The stream's own overlay was not its base (the events client applies those):
                    // the one shown may be, else the chat reloads unless the delta is old news.
                    let shown = host.timeline.overlay
                    if let overlay = delta.applied(to: shown) {
                        show(overlay, host: host, showOverlay: showOverlay)
                    } else if (delta.settlementEpoch, delta.revision) > (shown.settlementEpoch, shown.revision) {
                        host.handle(.explicitRefresh)
                    }
                case .trigger(let trigger):
                    host.handle(trigger)
                case .markEveryHostStale:
                    if let everyHostStale { everyHostStale() } else { host.handle(.explicitRefresh) }
                case .desktopOnline(let online):
                    desktopOffline = !online
                }
            }
            eventsHandled += 1
            let ready = waiters.filter { $0.count <= eventsHandled }
            waiters.removeAll { $0.count <= eventsHandled }
            for waiter in ready { waiter.continuation.resume() }
        }
    }

    private func show(_ overlay: LiveOverlay, host: WorkspaceChatHost, showOverlay: (@MainActor (LiveOverlay) -> Void)?)
    {
        // A newer epoch means history settled what the window shows as live (and events
        // before this stream began may be gone). Shown alone it would take those rows away
        // until the next load, so the window reloads instead: the snapshot brings history and
        // the new epoch's overlay together (SPEC §4.3). One reload per epoch: while history is
        // unavailable the snapshot keeps the older epoch, and the new epoch's further overlays
        // must not each start another load (the busy host's polls load again).
        if host.timeline.isConfirmed && overlay.settlementEpoch > host.timeline.overlay.settlementEpoch {
            guard reloadedForEpoch.map({ overlay.settlementEpoch > $0 }) ?? true else { return }
            reloadedForEpoch = overlay.settlementEpoch
            host.handle(.runEnded(.finished))
        } else if let showOverlay {
            showOverlay(overlay)
        } else {
            host.applyLiveOverlay(overlay)
        }
    }
}
