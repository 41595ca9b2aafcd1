import SybilWire

/// The timeline state of one viewport of a workspace chat (SPEC §4.3, §4.4): the confirmed
/// window with its pagination, the live overlay, messages still being sent, the revision and
/// the display epoch. A value type with no I/O; hosts own one and feed it what loads return.
///
/// Rules:
/// - When history is unavailable, a snapshot keeps the window and pagination and only an
///   overlay of the same settlement epoch is applied.
/// - Live rows and pending messages are completed only through a shared typed identity
///   (``TimelineRow/confirmationIdentity(of:)``), never by text or timestamp.
/// - ``revision`` advances only when something visible changed.
/// - ``displayEpoch`` advances when a refresh replaces a non-empty window with rows that do not
///   overlap it, when an empty unconfirmed chat starts a fresh load, and when the viewport
///   (thread) changes.
/// - A newest window that overlaps the window keeps the window's confirmed rows older than its
///   own oldest row (by `sourceOrder`), with the older part's pagination and stop, so a reader
///   who loaded older pages keeps them across polls; within its own range the snapshot is
///   authoritative. The window then keeps at most ``maximumWindowRows`` rows: the oldest
///   loaded pages are dropped whole, and the cursor that loads them again is restored.
/// - Older pages stop (``olderPageStop``) when a page brings no new rows and leaves the cursor
///   where it was, or after ``maximumEmptyOlderPagesFollowed`` pages in a row with no new rows;
///   a newest window with available history lifts the stop unless it keeps the window's oldest
///   rows, whose pagination the stop is part of.
public struct WorkspaceTimeline: Sendable, Hashable {
    /// How many older pages in a row that bring no new rows but move the cursor (a desktop
    /// skipping rows it hides) are followed; the next such page stops older loading.
    public static let maximumEmptyOlderPagesFollowed = 3
    /// The most rows a newest window keeps in the window together with its own: older rows
    /// loaded before it beyond this are dropped, oldest page first, when it is applied (a
    /// newest window larger than this is kept whole). Older pages prepended between newest
    /// windows are never dropped, so the rows a reader is loading stay until the next one.
    public static let maximumWindowRows = 5_000

    /// Which timeline this is.
    public private(set) var viewport: TimelineViewport
    /// The confirmed window, oldest first.
    public private(set) var window: [TimelineBlock] = []
    /// Whether the page before the window may be asked for: the desktop said older rows exist
    /// and older loading has not stopped (``olderPageStop``).
    public private(set) var hasOlderEntries = false
    /// Cursor for the page before the window.
    public private(set) var oldestCursor: String?
    /// Why older pages stopped although the desktop said older rows exist; `nil` while they
    /// load normally. Lifted by the next snapshot with available history unless it keeps the
    /// window's oldest rows (see ``apply(_:)``).
    public private(set) var olderPageStop: OlderPageStop?
    /// Older pages in a row that brought no new rows.
    private var emptyOlderPagesInARow = 0
    /// The window as the loads that brought its rows, oldest first; their row counts add up
    /// to the window's. Dropping whole parts from the old end leaves a window whose page
    /// before is known: the oldest remaining part's cursor.
    private var parts: [WindowPart] = []
    /// The newest live overlay seen (by settlement epoch, then revision).
    public private(set) var overlay = LiveOverlay.empty
    /// Messages sent from this phone that no row carries yet, oldest first.
    public private(set) var pending: [PendingMessage] = []
    /// The run in progress, if any.
    public private(set) var activeRunId: String?
    /// The load state of the last snapshot, `nil` before the first.
    public private(set) var loadState: WorkspaceChatLoadState?
    /// Whether a snapshot with available history has been applied.
    public private(set) var isConfirmed = false
    /// Advances with every visible change.
    public private(set) var revision: UInt64 = 0
    /// Advances when scroll assumptions of the previous window stop holding.
    public private(set) var displayEpoch: UInt64 = 0
    /// The merged rows: window, then live rows not yet confirmed, then pending messages not yet
    /// echoed. Derived from the state above after every change.
    public private(set) var rows: [TimelineRow] = []

    /// An empty, unconfirmed timeline for `viewport`.
    public init(viewport: TimelineViewport = .parentChat) {
        self.viewport = viewport
    }

    // MARK: Events

    /// Applies a load's snapshot onto the (possibly newer) live state.
    ///
    /// With history available, a snapshot that overlaps a non-empty window (a row id in both)
    /// keeps the window's confirmed rows older than the snapshot's oldest row by `sourceOrder`
    /// whose ids the snapshot does not carry, in their order before its rows; the window's
    /// other rows (the snapshot's range, live rows) go. When older rows were kept, the older
    /// part's pagination (``hasOlderEntries``, ``oldestCursor``, ``olderPageStop``) stays, else
    /// the snapshot's is taken and the stop is lifted. Kept rows beyond ``maximumWindowRows``
    /// are dropped a whole loaded page at a time from the old end, and the dropped pages can be
    /// loaded again from the cursor that first followed them. A snapshot that does not overlap
    /// the window replaces it and advances the display epoch.
    @discardableResult
    public mutating func apply(_ snapshot: TimelineSnapshot) -> SnapshotOutcome {
        let before = content
        var epochAdvanced = false
        if snapshot.loadState.isHistoryAvailable {
            let kept = keptOlderPart(under: snapshot.rows)
            if !window.isEmpty, kept == nil {
                epochAdvanced = true
            }
            let snapshotPart = WindowPart(rowCount: snapshot.rows.count, cursorBefore: snapshot.oldestCursor)
            if let kept, let oldest = kept.parts.first {
                window = kept.rows + snapshot.rows
                parts = kept.parts + [snapshotPart]
                if !kept.keepsOldestPart {
                    // The pages older than the ones kept are gone: load them again from the
                    // cursor that first followed the oldest kept page.
                    hasOlderEntries = oldest.cursorBefore != nil
                    oldestCursor = oldest.cursorBefore
                    olderPageStop = nil
                    emptyOlderPagesInARow = 0
                }
            } else {
                window = snapshot.rows
                parts = [snapshotPart]
                hasOlderEntries = snapshot.hasOlderEntries
                oldestCursor = snapshot.oldestCursor
                olderPageStop = nil
                emptyOlderPagesInARow = 0
            }
            if Self.isAtLeastAsNew(snapshot.overlay, as: overlay) {
                overlay = snapshot.overlay
            }
            activeRunId = snapshot.activeRunId
            isConfirmed = true
        } else if snapshot.overlay.settlementEpoch == overlay.settlementEpoch,
            snapshot.overlay.revision >= overlay.revision
        {
            overlay = snapshot.overlay
        }
        loadState = snapshot.loadState
        if epochAdvanced { displayEpoch += 1 }
        return finish(before: before, epochAdvanced: epochAdvanced)
    }

    /// The window's rows a newest window of `rows` keeps (see ``apply(_:)``), by part, oldest
    /// first, and whether the window's oldest part is among them (its pagination then stays);
    /// `nil` when the window is empty or `rows` share no row id with it.
    private func keptOlderPart(under rows: [TimelineBlock]) -> KeptOlderPart? {
        guard !window.isEmpty, !rows.isEmpty else { return nil }
        let ids = Set(rows.map(\.id))
        // Newest rows first: they are the ones a newer window shares.
        guard window.reversed().contains(where: { ids.contains($0.id) }) else { return nil }
        let budget = Self.maximumWindowRows - rows.count
        // A newest window as large as the bound keeps nothing older.
        guard budget > 0 else { return KeptOlderPart(keepsOldestPart: false) }
        var oldest = rows[0].sourceOrder
        for block in rows where block.sourceOrder.lexicographicallyPrecedes(oldest) {
            oldest = block.sourceOrder
        }
        // Newest part first, so the limit drops the oldest pages.
        var keptParts: [(rows: [TimelineBlock], part: WindowPart)] = []
        var keptCount = 0
        var end = window.endIndex
        var keepsOldestPart = true
        for (index, part) in parts.enumerated().reversed() {
            let start = end - part.rowCount
            defer { end = start }
            // Stops as soon as the part no longer fits: a window far over the bound costs
            // nothing more than the rows that fit.
            let room = budget - keptCount
            var kept: [TimelineBlock] = []
            var fits = true
            for block in window[start..<end]
            where block.origin == .canonical && block.sourceOrder.lexicographicallyPrecedes(oldest)
                && !ids.contains(block.id)
            {
                guard kept.count < room else {
                    fits = false
                    break
                }
                kept.append(block)
            }
            guard fits else {
                keepsOldestPart = false
                break
            }
            guard !kept.isEmpty else {
                if index == 0 { keepsOldestPart = false }
                continue
            }
            keptCount += kept.count
            keptParts.append((kept, WindowPart(rowCount: kept.count, cursorBefore: part.cursorBefore)))
        }
        var result = KeptOlderPart(keepsOldestPart: keepsOldestPart)
        result.rows.reserveCapacity(keptCount)
        for (rows, part) in keptParts.reversed() {
            result.rows += rows
            result.parts.append(part)
        }
        return result
    }

    /// Applies a live overlay update; an older one (by epoch, then revision) is ignored.
    @discardableResult
    public mutating func applyOverlay(_ update: LiveOverlay) -> SnapshotOutcome {
        guard Self.isAtLeastAsNew(update, as: overlay), update != overlay else { return .unchanged }
        let before = content
        overlay = update
        return finish(before: before, epochAdvanced: false)
    }

    /// Prepends an older page. It applies only when it continues the current window (it was
    /// asked for with the current ``oldestCursor``); rows already present are skipped, so
    /// identity and order are kept.
    ///
    /// A page that says older rows exist but brings no new rows (empty, or only rows already
    /// shown) stops older loading (``olderPageStop``, ``hasOlderEntries`` false) when it leaves
    /// the cursor where it was or gives none, and when more than
    /// ``maximumEmptyOlderPagesFollowed`` such pages came in a row; until then its new cursor is
    /// followed.
    @discardableResult
    public mutating func prependOlderPage(_ page: WorkspaceChatPage, requestedWith cursor: String) -> SnapshotOutcome {
        guard isConfirmed, hasOlderEntries, cursor == oldestCursor else { return .unchanged }
        let before = content
        let present = Set(window.map(\.id))
        let added = page.timeline.filter { !present.contains($0.id) }
        window = added + window
        if !added.isEmpty {
            parts.insert(WindowPart(rowCount: added.count, cursorBefore: page.oldestCursor), at: 0)
        }
        hasOlderEntries = page.hasOlderEntries
        oldestCursor = page.oldestCursor
        if !added.isEmpty || !page.hasOlderEntries {
            emptyOlderPagesInARow = 0
        } else {
            emptyOlderPagesInARow += 1
            if page.oldestCursor == nil || page.oldestCursor == cursor {
                stopOlderPages(.cursorDidNotMove)
            } else if emptyOlderPagesInARow > Self.maximumEmptyOlderPagesFollowed {
                stopOlderPages(.tooManyEmptyPages)
            }
        }
        return finish(before: before, epochAdvanced: false)
    }

    private mutating func stopOlderPages(_ reason: OlderPageStop) {
        olderPageStop = reason
        hasOlderEntries = false
    }

    /// Marks the start of a fresh load. An empty chat that history never confirmed starts a new
    /// display epoch, so that nothing assumed about the empty view carries over.
    @discardableResult
    public mutating func beginFreshLoad() -> Bool {
        guard window.isEmpty, !isConfirmed else { return false }
        displayEpoch += 1
        return true
    }

    /// Shows another timeline (a thread change): everything is cleared and the epoch advances.
    public mutating func switchViewport(to newViewport: TimelineViewport) {
        guard newViewport != viewport else { return }
        let epoch = displayEpoch
        let revision = revision
        self = WorkspaceTimeline(viewport: newViewport)
        displayEpoch = epoch + 1
        self.revision = revision + 1
    }

    /// Shows a message sent from this phone until a row carries its operation id.
    @discardableResult
    public mutating func addPending(_ message: PendingMessage) -> SnapshotOutcome {
        guard !pending.contains(where: { $0.operationId == message.operationId }) else { return .unchanged }
        let before = content
        pending.append(message)
        return finish(before: before, epochAdvanced: false)
    }

    /// Removes a pending message (the desktop rejected it for good).
    @discardableResult
    public mutating func removePending(operationId: String) -> SnapshotOutcome {
        let before = content
        pending.removeAll { $0.operationId == operationId }
        return finish(before: before, epochAdvanced: false)
    }

    /// Confirms pending messages whose rows a look-back found in pages before the window
    /// (``PendingLookBack``): history carries them, by operation id, though the window does not
    /// show them. Ids that are not pending are ignored.
    @discardableResult
    public mutating func confirmFromOlderHistory(_ operationIds: [String]) -> SnapshotOutcome {
        let found = Set(operationIds)
        let confirmed = pending.filter { found.contains($0.operationId) }.map(\.operationId)
        guard !confirmed.isEmpty else { return .unchanged }
        let before = content
        pending.removeAll { found.contains($0.operationId) }
        var outcome = finish(before: before, epochAdvanced: false)
        outcome.confirmedOperations = confirmed + outcome.confirmedOperations
        return outcome
    }

    // MARK: Derivation

    /// Everything that is visible; the revision advances when it changes.
    private struct Content: Equatable {
        var rows: [TimelineRow]
        var hasOlderEntries: Bool
        var oldestCursor: String?
        var olderPageStop: OlderPageStop?
        var activeRunId: String?
        var loadState: WorkspaceChatLoadState?
        var displayEpoch: UInt64
    }

    private var content: Content {
        Content(
            rows: rows, hasOlderEntries: hasOlderEntries, oldestCursor: oldestCursor, olderPageStop: olderPageStop,
            activeRunId: activeRunId, loadState: loadState, displayEpoch: displayEpoch)
    }

    /// Reconciles pending messages, rebuilds the rows and advances the revision on change.
    private mutating func finish(before: Content, epochAdvanced: Bool) -> SnapshotOutcome {
        let confirmed = reconcilePending()
        rows = mergedRows()
        let changed = content != before
        if changed { revision += 1 }
        return SnapshotOutcome(
            changed: changed, displayEpochAdvanced: epochAdvanced, confirmedOperations: confirmed)
    }

    /// Drops pending messages that a row of the window or the overlay now carries.
    private mutating func reconcilePending() -> [String] {
        guard !pending.isEmpty else { return [] }
        var carried = Set<String>()
        for block in window where block.type == .user {
            if let operationId = block.operationId { carried.insert(operationId) }
        }
        for block in overlay.blocks where block.type == .user {
            if let operationId = block.operationId { carried.insert(operationId) }
        }
        let confirmed = pending.filter { carried.contains($0.operationId) }.map(\.operationId)
        if !confirmed.isEmpty {
            pending.removeAll { carried.contains($0.operationId) }
        }
        return confirmed
    }

    private func mergedRows() -> [TimelineRow] {
        // Identities the window may confirm: the overlay's rows and the pending messages (few).
        // Window rows are looked up in this small set instead of all being hashed into one.
        var unconfirmed = Set<TimelineRowIdentity>(minimumCapacity: overlay.blocks.count + pending.count)
        var unconfirmedRuns = Set<String>()
        for block in overlay.blocks {
            unconfirmed.insert(block.identity)
            if case .runRow(let runId, _) = block.identity { unconfirmedRuns.insert(runId) }
        }
        for message in pending { unconfirmed.insert(.operation(message.operationId)) }
        var confirmed = Set<TimelineRowIdentity>()
        // Identities repeat in a window only in a few ways: two rows claim one operation, a row
        // is there both settled and live, an older page repeats a live row. A settled row
        // without operation is unique (the page decoder checks its splice key; a prepended page
        // skips ids present), and one of a run can only repeat a live row: live rows are few,
        // so only operations and live rows' identities are tracked, with their place in `merged`.
        var liveRunRows = Set<TimelineRowIdentity>()
        for index in window.indices where window[index].origin == .live {
            let identity = TimelineRow.confirmationIdentity(of: window[index])
            if case .runRow = identity { liveRunRows.insert(identity) }
        }
        var claimedOperations: [String: Int] = [:]
        var claimedRunRows: [TimelineRowIdentity: Int] = [:]
        var merged: [TimelineRow] = []
        merged.reserveCapacity(window.count + overlay.blocks.count + pending.count)
        for block in window {
            var identity = TimelineRow.confirmationIdentity(of: block)
            var earlier: Int?
            switch identity {
            case .row:
                break
            case .operation(let operationId):
                earlier = claimedOperations[operationId]
                if earlier == nil { claimedOperations[operationId] = merged.count }
            case .runRow:
                guard !liveRunRows.isEmpty, liveRunRows.contains(identity) else { break }
                earlier = claimedRunRows[identity]
                if earlier == nil { claimedRunRows[identity] = merged.count }
            }
            if let earlier {
                if block.origin == .live { continue }  // shown already, settled or live
                if merged[earlier].state == .live {
                    // The settled row completes the live one in its place, under its key.
                    merged[earlier] = TimelineRow(block: block, identity: identity)
                    continue
                }
                // Two settled rows claim one operation: the later keeps its own row id.
                identity = .row(block.id)
            }
            if Self.mayConfirm(identity, unconfirmed, unconfirmedRuns), unconfirmed.contains(identity) {
                confirmed.insert(identity)
            }
            merged.append(TimelineRow(block: block, identity: identity))
        }
        var shown = confirmed
        for block in overlay.blocks where shown.insert(block.identity).inserted {
            merged.append(TimelineRow(block: block, identity: block.identity))
        }
        for message in pending where shown.insert(.operation(message.operationId)).inserted {
            merged.append(TimelineRow(pending: message))
        }
        return merged
    }

    /// A cheap filter before the set lookup: a run row can only confirm a live row of a run
    /// the overlay has; a plain row id confirms nothing.
    @inline(__always)
    private static func mayConfirm(
        _ identity: TimelineRowIdentity, _ unconfirmed: Set<TimelineRowIdentity>, _ runs: Set<String>
    ) -> Bool {
        switch identity {
        case .row: false
        case .operation: !unconfirmed.isEmpty
        case .runRow(let runId, _): !runs.isEmpty && runs.contains(runId)
        }
    }

    private static func isAtLeastAsNew(_ candidate: LiveOverlay, as current: LiveOverlay) -> Bool {
        (candidate.settlementEpoch, candidate.revision) >= (current.settlementEpoch, current.revision)
    }

    /// Rows of the window that one load brought (a newest window, or an older page), and the
    /// cursor that loads the page before them, as that load gave it.
    private struct WindowPart: Sendable, Hashable {
        var rowCount: Int
        var cursorBefore: String?
    }

    /// What a newest window keeps of the window before it.
    private struct KeptOlderPart {
        var rows: [TimelineBlock] = []
        var parts: [WindowPart] = []
        /// Whether rows of the window's oldest part are kept, so its pagination still holds.
        var keepsOldestPart: Bool
    }
}
