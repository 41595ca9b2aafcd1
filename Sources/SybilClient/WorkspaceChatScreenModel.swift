import Observation
import SybilTimeline
import SybilWire

/// What a chat screen draws (SPEC §4.4), for one mounted ``WorkspaceChatHost``: the display
/// rows, the cover, where to scroll, and the subagent thread viewer. A front end (SwiftUI, the
/// terminal) reports viewport facts with ``updateViewport(_:)``, calls ``frame()`` on each
/// display tick, forwards user intents and live overlays, and applies ``scrollCommand``; it
/// decides nothing itself.
///
/// The model binds the pure decision types of `SybilTimeline` to real inputs:
/// ``DisplayRows``, ``OverlayDeliveryThrottle`` (≤ 6/s, ≤ 2/s with the composer or a preview
/// open, newest only while dragging), ``FirstDisplayCover`` (≤ 2 s; a short history loads ≤ 2
/// older pages beneath it), ``OlderPageTrigger`` (1,800 pt, 0.25 s, stale after 8 s; after a
/// failed load 1 s doubling to 30 s, until a load succeeds or a newest window arrives),
/// ``PrependAnchor`` (the reader's row stays put; live rows held ≤ 1.5 s), ``FollowBottom`` and
/// ``SettlePasses``. Time comes only from the injected clock; every wait is a task the model
/// holds and cancels in ``close()`` (or when it is released).
///
/// Rows are rebuilt from the host's timeline on each ``frame()``, each viewport report and after
/// every change the model makes itself.
@MainActor
@Observable
public final class WorkspaceChatScreenModel<C: Clock> where C.Duration == Duration {
    /// Which cover hides the list.
    public enum Cover: Sendable, Hashable {
        /// The list is shown.
        case none
        /// The chat's first display: until layout settles (≤ 2 s); a short history loads up to
        /// two older pages beneath it.
        case firstDisplay
        /// A parked host came back: its scroll position belonged to the unmounted view, so the
        /// list returns to the end behind a short cover (≤ 2 s).
        case returning
    }

    /// Remaining distance (points) that still counts as being at the bottom.
    public static var bottomTolerance: Double { 0.5 }

    /// The host shown.
    public let host: WorkspaceChatHost
    /// The rows to draw and the pinned status.
    public private(set) var displayRows: DisplayRows
    /// The cover over the list, if any.
    public private(set) var cover: Cover
    /// The newest scroll decision; apply it once per ``scrollCommandSequence``.
    public private(set) var scrollCommand: ScrollCommand = .none
    /// Advances with every published ``scrollCommand``, so an equal command is applied again.
    public private(set) var scrollCommandSequence: UInt64 = 0
    /// Whether the list follows the bottom as content grows.
    public private(set) var isFollowingBottom = true
    /// Whether settle passes run.
    public private(set) var isSettling = false
    /// Whether an older page is being loaded.
    public private(set) var isLoadingOlderPage = false
    /// The row whose place is being restored after a prepend; the front end reports its frame.
    public private(set) var anchorRowId: String?
    /// Whether live rows are held back while the reader's place is restored.
    public private(set) var isHoldingLiveRows = false
    /// The open subagent thread viewer.
    public private(set) var threadViewer: SubagentThreadViewModel?
    /// The last viewport reported.
    public private(set) var viewport: WorkspaceChatViewport?
    /// Whether ``close()`` ended the model.
    public private(set) var isClosed = false

    /// Whether a cover hides the list.
    public var isCovered: Bool { cover != .none }

    private enum TaskKey: Hashable, Sendable {
        case coverDeadline, overlay, liveHold, settle, olderPage, thread
    }

    private enum SettlePurpose {
        case cover, follow
    }

    private struct RowsKey: Equatable {
        var displayEpoch: UInt64
        var revision: UInt64
        var activeRunId: String?
    }

    @ObservationIgnored private let clock: C
    @ObservationIgnored private let tasks = OwnedTasks<TaskKey>()
    @ObservationIgnored private var firstDisplay: FirstDisplayCover<C.Instant>?
    @ObservationIgnored private var throttle = OverlayDeliveryThrottle<LiveOverlay, C.Instant>()
    @ObservationIgnored private var trigger = OlderPageTrigger<C.Instant>()
    @ObservationIgnored private var olderPageGeneration: UInt64 = 0
    /// The host's applied newest windows when older pages were last asked for: a new one ends
    /// the wait after failed older-page loads.
    @ObservationIgnored private var appliedLoadsSeen: Int
    @ObservationIgnored private var anchor: PrependAnchor<C.Instant>?
    @ObservationIgnored private var anchorAwaitsLayout = false
    @ObservationIgnored private var heldForAnchor: LiveOverlay?
    @ObservationIgnored private var settle: SettlePasses?
    @ObservationIgnored private var settlePurpose = SettlePurpose.follow
    @ObservationIgnored private var settleDueAt: C.Instant?
    /// Set when the list scrolled towards the bottom: whether that scroll was animated.
    @ObservationIgnored private var scrolledAnimated: Bool?
    @ObservationIgnored private var lastFrameAt: C.Instant?
    @ObservationIgnored private var rowsKey: RowsKey
    @ObservationIgnored private var commandThisCall = ScrollCommand.none

    /// The screen of `host`, mounted now: covered at once. A host that has loaded before (a
    /// parked host that came back) gets the short ``Cover/returning`` cover, a new one the
    /// ``Cover/firstDisplay`` cover.
    public init(host: WorkspaceChatHost, clock: C) {
        self.host = host
        self.clock = clock
        let timeline = host.timeline
        displayRows = DisplayRows(timeline: timeline.rows, activeRunId: timeline.activeRunId)
        rowsKey = RowsKey(
            displayEpoch: timeline.displayEpoch, revision: timeline.revision, activeRunId: timeline.activeRunId)
        cover = host.appliedLoads > 0 ? .returning : .firstDisplay
        appliedLoadsSeen = host.appliedLoads
        let shown = FirstDisplayCover(shownAt: clock.now)
        firstDisplay = shown
        schedule(.coverDeadline, at: shown.deadline)
    }

    // MARK: Inputs

    /// The front end measured the list: content, visible area, rows on screen, composer and
    /// preview, drag, Reduce Motion.
    public func updateViewport(_ newViewport: WorkspaceChatViewport) {
        guard !isClosed else { return }
        let now = clock.now
        let previous = viewport
        viewport = newViewport
        refreshRows()
        catchUp(now)
        throttle.isComposerOrPreviewOpen = newViewport.isComposerOrPreviewOpen
        if throttle.isDragging != newViewport.isDragging,
            let update = throttle.setDragging(newViewport.isDragging, at: now)
        {
            deliver(update)
        }
        scheduleOverlayDelivery()
        if newViewport.isDragging {
            stopFollowing()
        } else if previous?.isDragging == true, newViewport.distanceFromBottom <= Self.bottomTolerance {
            isFollowingBottom = true
        }
        if restoreAnchorIfLaidOut(newViewport) { return }
        if isCovered {
            advanceCover(now)
        } else if !anchorAwaitsLayout {
            _ = requestOlderPageIfAllowed(now)
        }
    }

    /// A display tick: rebuilds rows, runs what is due, and returns the scroll decision for this
    /// frame (also published as ``scrollCommand``). Following the bottom moves by
    /// ``FollowBottom/step(remaining:frame:reduceMotion:)`` for the time since the previous frame
    /// of the same movement (the first frame of a movement only starts its clock); with Reduce
    /// Motion it jumps. Once at the bottom, settle passes run.
    @discardableResult
    public func frame() -> ScrollCommand {
        guard !isClosed else { return .none }
        commandThisCall = .none
        let now = clock.now
        refreshRows()
        catchUp(now)
        if isCovered {
            advanceCover(now)
        } else {
            followBottom(now)
        }
        return commandThisCall
    }

    /// A live overlay update from the desktop's event stream. It reaches the host through the
    /// throttle, and not while the reader's place is being restored (up to 1.5 s).
    public func receiveOverlay(_ overlay: LiveOverlay) {
        guard !isClosed else { return }
        let now = clock.now
        catchUp(now)
        if isHoldingLiveRows {
            heldForAnchor = overlay
            return
        }
        offer(overlay, at: now)
    }

    // MARK: Intents

    /// Scroll to the bottom and keep following it.
    public func scrollToBottom() {
        guard !isClosed else { return }
        isFollowingBottom = true
        lastFrameAt = nil
    }

    /// Asks for the page before the window; it loads only when the older-page trigger allows
    /// (within 1,800 pt of the top, ≥ 0.25 s after the last start, no load younger than 8 s,
    /// the wait after failed loads over) and no cover is up. Returns whether a load started.
    @discardableResult
    public func loadOlder() -> Bool {
        guard !isClosed, !isCovered, !anchorAwaitsLayout else { return false }
        return requestOlderPageIfAllowed(clock.now)
    }

    /// Opens the subagent thread of the displayed row `rowId` in its own viewer and loads it
    /// through the host's RPC seam. Returns `false` when the row opens no thread.
    @discardableResult
    public func openThread(fromRow rowId: String) -> Bool {
        guard !isClosed, let row = displayRows.rows.first(where: { $0.id == rowId }),
            let threadId = row.subagentThreadId
        else { return false }
        if threadViewer?.threadId == threadId { return true }
        let viewer = SubagentThreadViewModel(chat: host.key, threadId: threadId, rpc: host.rpc)
        threadViewer = viewer
        tasks.set(.thread, Task { await viewer.load() })
        return true
    }

    /// Closes the thread viewer; a load still running is cancelled.
    public func closeThread() {
        tasks.cancel(.thread)
        threadViewer = nil
    }

    /// The screen is torn down: every timer and load the model started is cancelled and
    /// nothing more is published or delivered.
    public func close() {
        isClosed = true
        tasks.cancelAll()
        threadViewer = nil
        isSettling = false
        isLoadingOlderPage = false
    }

    /// How many tasks (timers, loads) the model holds; 0 after ``close()``.
    public var ownedTaskCount: Int { tasks.count }

    // MARK: Rows

    private func refreshRows() {
        let timeline = host.timeline
        let key = RowsKey(
            displayEpoch: timeline.displayEpoch, revision: timeline.revision, activeRunId: timeline.activeRunId)
        guard key != rowsKey else { return }
        let epochChanged = key.displayEpoch != rowsKey.displayEpoch
        rowsKey = key
        displayRows = DisplayRows(timeline: timeline.rows, activeRunId: timeline.activeRunId)
        if epochChanged, anchor != nil {
            // Scroll assumptions never cross windows: the reader's row belongs to the old one.
            finishAnchor()
        }
    }

    // MARK: Timers

    /// Runs everything whose time has come: the cover's deadline, the end of the live-row hold,
    /// a held overlay delivery, a settle pass.
    private func catchUp(_ now: C.Instant) {
        if isCovered, firstDisplay?.tick(at: now) == .reveal { reveal() }
        if isHoldingLiveRows, anchor?.holdsLiveRows(at: now) != true { releaseLiveRows(at: now) }
        if let update = throttle.deliverIfDue(at: now) { deliver(update) }
        scheduleOverlayDelivery()
        if let due = settleDueAt, due <= now { runSettlePass(now) }
    }

    private func schedule(_ key: TaskKey, at deadline: C.Instant) {
        let clock = clock
        tasks.set(
            key,
            Task { [weak self] in
                do {
                    try await clock.sleep(until: deadline, tolerance: nil)
                } catch {
                    return
                }
                self?.timerFired()
            })
    }

    private func timerFired() {
        guard !isClosed else { return }
        commandThisCall = .none
        let now = clock.now
        refreshRows()
        catchUp(now)
        if isCovered { advanceCover(now) }
    }

    private func publish(_ command: ScrollCommand) {
        scrollCommand = command
        scrollCommandSequence += 1
        commandThisCall = command
    }

    // MARK: Overlay delivery

    private func offer(_ overlay: LiveOverlay, at now: C.Instant) {
        if let update = throttle.offer(overlay, at: now) { deliver(update) }
        scheduleOverlayDelivery()
    }

    private func deliver(_ overlay: LiveOverlay) {
        host.applyLiveOverlay(overlay)
        refreshRows()
    }

    private func scheduleOverlayDelivery() {
        if let next = throttle.nextDeliveryTime {
            schedule(.overlay, at: next)
        } else {
            tasks.cancel(.overlay)
        }
    }

    // MARK: Cover

    /// Under the cover: once the host has loaded and the viewport is known, jump to the end and
    /// let layout settle; the settled layout tells the cover what to do.
    private func advanceCover(_ now: C.Instant) {
        guard isCovered, settle == nil, !isLoadingOlderPage, host.appliedLoads > 0, viewport != nil else { return }
        publish(.jumpToBottom)
        startSettle(.cover, animated: false, at: now)
    }

    private func coverSettled(_ now: C.Instant) {
        guard isCovered, var shown = firstDisplay, let viewport else { return }
        let action = shown.layoutSettled(
            isShortHistory: cover == .firstDisplay && viewport.isShortHistory,
            hasOlderEntries: host.timeline.hasOlderEntries, at: now)
        firstDisplay = shown
        switch action {
        case .none: break
        case .loadOlderPage: startOlderPageLoad(forCover: true)
        case .reveal: reveal()
        }
    }

    private func reveal() {
        cover = .none
        firstDisplay = nil
        tasks.cancel(.coverDeadline)
        if settlePurpose == .cover { stopSettle() }
        lastFrameAt = nil
    }

    // MARK: Older pages

    private func requestOlderPageIfAllowed(_ now: C.Instant) -> Bool {
        guard let viewport else { return false }
        if host.appliedLoads != appliedLoadsSeen {
            // A fresh newest window: what failed before may well work now.
            appliedLoadsSeen = host.appliedLoads
            trigger.resetFailureBackoff()
        }
        let hasOlder = host.timeline.hasOlderEntries && host.timeline.oldestCursor != nil
        guard trigger.scrolled(distanceFromTop: viewport.distanceFromTop, hasOlderEntries: hasOlder, at: now) else {
            return false
        }
        startOlderPageLoad(forCover: false)
        return true
    }

    private func startOlderPageLoad(forCover: Bool) {
        olderPageGeneration += 1
        let generation = olderPageGeneration
        guard let cursor = host.timeline.oldestCursor else {
            olderPageFinished(generation, .nothingAdded, forCover: forCover)
            return
        }
        isLoadingOlderPage = true
        let permit = OlderPagePermit(cursor: cursor)
        let host = host
        tasks.set(
            .olderPage,
            Task { [weak self] in
                let result = await host.loadOlderPage(permit) { self?.willPrepend(generation) }
                self?.olderPageFinished(generation, result, forCover: forCover)
            })
    }

    /// The page arrived and is about to be prepended: remember the first visible row and its
    /// offset, and hold live rows back.
    private func willPrepend(_ generation: UInt64) {
        guard generation == olderPageGeneration, !isClosed, !isCovered, let viewport,
            let first = viewport.visibleRows.first
        else { return }
        let now = clock.now
        let taken = PrependAnchor(rowId: first.id, rowMinY: first.minY, contentOffset: viewport.contentOffset, at: now)
        anchor = taken
        anchorRowId = taken.rowId
        isHoldingLiveRows = true
        schedule(.liveHold, at: now.advanced(by: PrependAnchor<C.Instant>.maximumHold))
    }

    private func olderPageFinished(_ generation: UInt64, _ result: OlderPageLoadResult, forCover: Bool) {
        guard generation == olderPageGeneration, !isClosed else { return }
        let now = clock.now
        isLoadingOlderPage = false
        if result == .failed {
            // Asked again only after a wait that grows with each failure in a row (1 s … 30 s).
            trigger.failed(at: now)
        } else {
            trigger.finished()
        }
        refreshRows()
        if forCover { firstDisplay?.olderPageFinished() }
        if anchor != nil {
            if result == .added { anchorAwaitsLayout = true } else { finishAnchor() }
        }
        if isCovered { advanceCover(now) }
    }

    // MARK: Prepend anchor

    /// After the prepend, the anchor row's new frame gives the offset that puts it back.
    private func restoreAnchorIfLaidOut(_ viewport: WorkspaceChatViewport) -> Bool {
        guard anchorAwaitsLayout, var restoring = anchor,
            let row = viewport.visibleRows.first(where: { $0.id == restoring.rowId })
        else { return false }
        let offset = restoring.restore(rowMinY: row.minY)
        anchor = restoring
        publish(.setOffset(offset))
        finishAnchor()
        return true
    }

    private func finishAnchor() {
        anchor = nil
        anchorRowId = nil
        anchorAwaitsLayout = false
        releaseLiveRows(at: clock.now)
    }

    private func releaseLiveRows(at now: C.Instant) {
        guard isHoldingLiveRows else { return }
        isHoldingLiveRows = false
        tasks.cancel(.liveHold)
        if let held = heldForAnchor {
            heldForAnchor = nil
            offer(held, at: now)
        }
    }

    // MARK: Follow-bottom and settle passes

    private func stopFollowing() {
        isFollowingBottom = false
        lastFrameAt = nil
        scrolledAnimated = nil
        if settlePurpose == .follow { stopSettle() }
    }

    private func followBottom(_ now: C.Instant) {
        guard isFollowingBottom, !anchorAwaitsLayout, let viewport, !viewport.isDragging else {
            lastFrameAt = nil
            return
        }
        let remaining = viewport.distanceFromBottom
        if remaining <= Self.bottomTolerance {
            lastFrameAt = nil
            if let animated = scrolledAnimated {
                scrolledAnimated = nil
                startSettle(.follow, animated: animated, at: now)
            }
            return
        }
        if settle != nil { stopSettle() }
        if viewport.reduceMotion {
            lastFrameAt = nil
            scrolledAnimated = false
            publish(.jumpToBottom)
            return
        }
        guard let last = lastFrameAt else {
            lastFrameAt = now
            return
        }
        lastFrameAt = now
        let step = FollowBottom.step(remaining: remaining, frame: last.duration(to: now), reduceMotion: false)
        guard step > 0 else { return }
        scrolledAnimated = true
        publish(.step(by: step))
    }

    private func startSettle(_ purpose: SettlePurpose, animated: Bool, at now: C.Instant) {
        let passes = SettlePasses(afterAnimatedScroll: animated)
        settle = passes
        settlePurpose = purpose
        isSettling = true
        let due = now.advanced(by: passes.nextDelay)
        settleDueAt = due
        schedule(.settle, at: due)
    }

    private func runSettlePass(_ now: C.Instant) {
        guard var passes = settle, let viewport else { return }
        let done = passes.pass(offset: viewport.contentOffset, contentHeight: viewport.contentHeight)
        guard !done else {
            let purpose = settlePurpose
            stopSettle()
            if purpose == .cover { coverSettled(now) }
            return
        }
        settle = passes
        let due = now.advanced(by: passes.nextDelay)
        settleDueAt = due
        schedule(.settle, at: due)
    }

    private func stopSettle() {
        settle = nil
        settleDueAt = nil
        isSettling = false
        tasks.cancel(.settle)
    }
}
