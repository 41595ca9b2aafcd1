import Observation
import SybilCore
import SybilTimeline
import SybilWire

/// The view model of one workspace chat (a "host", SPEC §4.1–4.3): its timeline, its
/// latest-window scheduler and its refresh policy. The host cache creates, mounts and parks
/// hosts; a parked host keeps its rows and overlay and starts nothing.
@MainActor
@Observable
public final class WorkspaceChatHost {
    /// The chat this host shows.
    public let key: WorkspaceChatKey
    /// What the chat list shows.
    public private(set) var timeline = WorkspaceTimeline()
    /// Staleness bookkeeping.
    public private(set) var refreshState = RefreshState()
    /// Whether the host is selected and the app is in the foreground.
    public private(set) var isActive = false
    /// Why the last load failed; the rows stay as they were. Cleared by the next applied load,
    /// unless older loading stays stopped (``WorkspaceTimeline/olderPageStop``), which it names.
    public private(set) var lastLoadError: String?
    /// Whether a newest-window load is in flight.
    public var isLoading: Bool { scheduler.active != nil }
    /// Loads applied so far (each one a snapshot that passed the fences).
    public private(set) var appliedLoads = 0

    /// Called with the operation ids of pending messages that history or the overlay now
    /// carries (the composer completes their outbox entries).
    @ObservationIgnored public var onConfirmedOperations: (@MainActor ([String]) -> Void)?

    @ObservationIgnored private var scheduler = LatestWindowScheduler()
    /// The desktop's load calls; the screen model opens thread viewers on the same seam.
    @ObservationIgnored let rpc: any WorkspaceChatRPC
    @ObservationIgnored private let clock: any Clock<Duration>
    @ObservationIgnored private let random: any RandomSource
    @ObservationIgnored private let policy: RefreshPolicy
    @ObservationIgnored private var pollTask: Task<Void, Never>?
    /// The newest-window load in flight, if one runs: ``park()`` cancels it, and so does
    /// releasing the host.
    @ObservationIgnored private let loadTask = OwnedTasks<LoadTaskKey>()

    private enum LoadTaskKey: Hashable, Sendable { case newestWindow }
    /// Whether the current poll wait was chosen for a busy host (10 s) or an idle one (60 s).
    @ObservationIgnored private var pollAssumedBusy: Bool?
    /// Which pending messages were already looked for before the window, and from where.
    @ObservationIgnored private var lookBack = PendingLookBack()
    /// The look-back reading older pages for pending messages, if one runs.
    @ObservationIgnored private var lookBackTask: Task<Void, Never>?
    /// Whether older pages are being read for pending messages that may have settled before
    /// the window (the status line says so while it lasts).
    public private(set) var isLookingBack = false

    /// A parked host for `key`. Nothing loads until ``activate()``.
    public init(
        key: WorkspaceChatKey, rpc: any WorkspaceChatRPC, clock: any Clock<Duration>, random: any RandomSource,
        policy: RefreshPolicy = RefreshPolicy()
    ) {
        self.key = key
        self.rpc = rpc
        self.clock = clock
        self.random = random
        self.policy = policy
        scheduler.setTarget(key)
    }

    // MARK: Lifecycle

    /// The host is on screen and the app is active: loads when stale (always the first time,
    /// and afresh after a failed load) and polls while active.
    public func activate() {
        guard !isActive else { return }
        isActive = true
        if refreshState.isStale || refreshState.needsFreshLoad {
            timeline.beginFreshLoad()
            _ = scheduler.request(fence)
        }
        perform(scheduler.setRunning(true, fence))
        startPolling()
    }

    /// The host left the screen or the app went to the background: nothing new starts.
    public func park() {
        guard isActive else { return }
        isActive = false
        pollTask?.cancel()
        pollTask = nil
        lookBackTask?.cancel()
        lookBackTask = nil
        isLookingBack = false
        pollAssumedBusy = nil
        perform(scheduler.setRunning(false, fence))
        if let operation = scheduler.active {
            // The load in flight is cancelled and never applies; it is asked for again, to
            // start when the host is active once more.
            loadTask.cancel(.newestWindow)
            _ = scheduler.fail(operation, current: fence)
            _ = scheduler.request(fence)
        }
    }

    /// The user selected this chat again: a new target generation (a load that started
    /// before cannot apply) and a reload.
    public func reselect() {
        scheduler.setTarget(key)
        handle(.chatReselected)
    }

    /// Something made the newest window stale; loads now when active, else at activation.
    public func handle(_ trigger: StalenessTrigger) {
        guard refreshState.handle(trigger) else { return }
        perform(scheduler.request(fence))
    }

    /// A live overlay update arrived (from the desktop's event stream).
    public func applyLiveOverlay(_ overlay: LiveOverlay) {
        report(timeline.applyOverlay(overlay))
        reschedulePollingIfBusinessChanged()
    }

    /// Shows a message being sent from this phone until a row carries its operation id.
    public func addPendingMessage(_ message: PendingMessage) {
        report(timeline.addPending(message))
        reschedulePollingIfBusinessChanged()
    }

    /// Removes a pending message the desktop rejected for good.
    public func removePendingMessage(operationId: String) {
        timeline.removePending(operationId: operationId)
        reschedulePollingIfBusinessChanged()
    }

    // MARK: Older pages

    /// Loads the page before the window and prepends it; a page that no longer continues the
    /// window (a refresh replaced it meanwhile) is dropped. Returns whether rows were added,
    /// none were, or the load failed (``lastLoadError`` then says why).
    ///
    /// Only a ``WorkspaceChatScreenModel`` issues the `permit`, when its older-page trigger
    /// (1,800 pt, 0.25 s, 8 s) or its first-display cover allows a load, so scrolling cannot
    /// load pages around those rules. A permit issued for another cursor loads nothing.
    /// `willPrepend` runs after the page arrived and just before it is prepended (the screen
    /// model remembers the reader's row there).
    ///
    /// A page that brings nothing new while the desktop says older entries exist can stop older
    /// loading for this window (``WorkspaceTimeline/olderPageStop``); ``lastLoadError`` then
    /// says so while the stop lasts. A newest window lifts it unless it keeps the rows loaded
    /// before it (``WorkspaceTimeline/apply(_:)``).
    @discardableResult
    public func loadOlderPage(_ permit: OlderPagePermit, willPrepend: () -> Void = {}) async -> OlderPageLoadResult {
        guard timeline.hasOlderEntries, let cursor = timeline.oldestCursor, cursor == permit.cursor else {
            return .nothingAdded
        }
        do {
            let page = try await rpc.codexChatLoadPageBefore(key, cursor: cursor)
            willPrepend()
            let (stoppedBefore, rowsBefore) = (timeline.olderPageStop, timeline.window.count)
            timeline.prependOlderPage(page, requestedWith: cursor)
            if stoppedBefore == nil, let stop = timeline.olderPageStop {
                lastLoadError = Self.describe(stop)
            }
            // A stop or a last empty page changes the timeline but adds no row to keep in place.
            return timeline.window.count > rowsBefore ? .added : .nothingAdded
        } catch {
            lastLoadError = Self.describe(error)
            return .failed
        }
    }

    // MARK: Loading the newest window

    private var fence: LatestWindowScheduler.TimelineFence {
        .init(viewport: timeline.viewport, displayEpoch: timeline.displayEpoch)
    }

    private func perform(_ action: LatestWindowScheduler.Action) {
        guard case .start(let operation) = action else { return }
        let rpc = rpc
        let task = Task { [weak self] in
            let result: Result<WorkspaceChatLoadEnvelope, any Error>
            do {
                result = .success(try await rpc.codexChatLoad(operation.target))
            } catch {
                result = .failure(error)
            }
            guard !Task.isCancelled, let self else { return }
            switch result {
            case .success(let envelope): self.loadFinished(operation, with: envelope)
            case .failure(let error): self.loadFailed(operation, error)
            }
        }
        loadTask.set(.newestWindow, task)
    }

    private func loadFinished(_ operation: LatestWindowScheduler.Operation, with envelope: WorkspaceChatLoadEnvelope) {
        let (verdict, next) = scheduler.finish(operation, current: fence)
        if verdict == .apply {
            report(timeline.apply(TimelineSnapshot(envelope: envelope)))
            refreshState.loaded()
            // A stop the window kept (with the rows loaded before it) is still the reader's to know.
            lastLoadError = timeline.olderPageStop.map(Self.describe)
            appliedLoads += 1
            startLookBackIfNeeded()
        }
        perform(next)
        reschedulePollingIfBusinessChanged()
    }

    /// After a newest window: reads older pages, without showing them, for pending messages
    /// that may have settled before the window (``PendingLookBack``), and confirms those found.
    /// A look-back cut short (a page failed to load, the host parked) is tried again after a
    /// later load.
    private func startLookBackIfNeeded() {
        guard lookBackTask == nil, let plan = lookBack.plan(for: timeline) else { return }
        let rpc = rpc
        let key = key
        isLookingBack = true
        lookBackTask = Task { [weak self] in
            var progress = PendingLookBack.Progress(plan)
            var cursor: String? = plan.cursor
            var complete = true
            while let current = cursor {
                guard !Task.isCancelled, let page = try? await rpc.codexChatLoadPageBefore(key, cursor: current) else {
                    complete = false
                    break
                }
                cursor = progress.read(page)
            }
            self?.lookBackFinished(progress, complete: complete)
        }
    }

    private func lookBackFinished(_ progress: PendingLookBack.Progress, complete: Bool) {
        if !Task.isCancelled { lookBackTask = nil }
        if !complete { lookBack.forget(progress.plan) }
        isLookingBack = lookBackTask != nil
        report(timeline.confirmFromOlderHistory(progress.found))
        reschedulePollingIfBusinessChanged()
    }

    private func loadFailed(_ operation: LatestWindowScheduler.Operation, _ error: any Error) {
        refreshState.loadFailed()
        lastLoadError = Self.describe(error)
        perform(scheduler.fail(operation, current: fence))
        reschedulePollingIfBusinessChanged()
    }

    private func report(_ outcome: SnapshotOutcome) {
        guard !outcome.confirmedOperations.isEmpty else { return }
        onConfirmedOperations?(outcome.confirmedOperations)
    }

    // MARK: Polling

    /// Busy: a run, a message or a load is pending (the window is stale: requested, or a load
    /// failed), so polls come every 10 s instead of 60 s.
    public var isBusy: Bool {
        timeline.activeRunId != nil || !timeline.pending.isEmpty || refreshState.isStale
    }

    private func startPolling() {
        pollTask?.cancel()
        let clock = clock
        pollTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let delay = self?.nextPollDelay() else { return }
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    return
                }
                self?.poll()
            }
        }
    }

    /// Chooses the next wait (and remembers which kind it was).
    private func nextPollDelay() -> Duration {
        let busy = isBusy
        pollAssumedBusy = busy
        return policy.pollDelay(busy: busy, random: random)
    }

    /// A wait chosen for an idle host is too long once it is busy, and the other way round:
    /// start a new wait with the right interval.
    private func reschedulePollingIfBusinessChanged() {
        guard isActive, let assumed = pollAssumedBusy, assumed != isBusy else { return }
        startPolling()
    }

    private func poll() {
        guard isActive else { return }
        perform(scheduler.request(fence))
    }

    private static func describe(_ error: any Error) -> String {
        String(describing: error)
    }

    private static func describe(_ stop: OlderPageStop) -> String {
        let sent =
            switch stop {
            case .cursorDidNotMove: "sent nothing new before the oldest one shown"
            case .tooManyEmptyPages:
                "sent \(WorkspaceTimeline.maximumEmptyOlderPagesFollowed + 1) empty pages in a row"
            }
        return
            "The desktop said older entries exist but \(sent); no older page is asked for again while the oldest rows shown stay loaded."
    }
}
