import SybilWire

/// Decides when a host reads older history to confirm messages the newest window cannot show.
///
/// History confirms a pending message only when a row carries its operation id (SPEC §4.3),
/// and a newest-window load holds the newest rows only. A message that settled while the phone
/// was not looking (the app killed, offline, on another chat) can be pushed out of the window
/// by later rows before the next load; it would then stay pending for good, with its outbox
/// entry. After such a load the host reads the pages before the window, without showing
/// them, until it has found the messages, passed the time they were written, reached a page
/// that leaves the cursor where it was, or read ``maximumPages``.
///
/// A pending message is looked for when it was written before the window's oldest row (give
/// or take ``clockAllowance`` for the phone's clock running ahead of the desktop's): a newer
/// one would be in the window once settled. Each message is looked for once per window
/// position (the window's oldest cursor), so polling an unchanged window reads nothing more.
public struct PendingLookBack: Sendable, Hashable {
    /// How far the phone's clock may run ahead of the desktop's, in milliseconds (5 minutes).
    public static let clockAllowance: Int64 = 300_000
    /// The most pages one look-back reads.
    public static let maximumPages = 8

    /// One look-back: where it starts and what it looks for.
    public struct Plan: Sendable, Hashable {
        /// The window's oldest cursor: the first page read is the one before it.
        public var cursor: String
        /// The pending messages looked for.
        public var operationIds: Set<String>
        /// Reading stops after a page whose oldest row is older than this (milliseconds since
        /// the epoch): the earliest message's time less the clock allowance.
        public var stopBefore: Int64

        /// A look-back from `cursor` for `operationIds`, reading no page older than `stopBefore`.
        public init(cursor: String, operationIds: Set<String>, stopBefore: Int64) {
            self.cursor = cursor
            self.operationIds = operationIds
            self.stopBefore = stopBefore
        }
    }

    /// A look-back in progress, fed one page at a time.
    public struct Progress: Sendable, Hashable {
        /// What is looked for.
        public let plan: Plan
        /// The operation ids found so far, in the order their rows were read.
        public private(set) var found: [String] = []
        /// Pages read so far.
        public private(set) var pagesRead = 0
        private var remaining: Set<String>
        /// The cursor the page being read was asked with.
        private var cursor: String

        /// Starts reading for `plan`.
        public init(_ plan: Plan) {
            self.plan = plan
            self.remaining = plan.operationIds
            self.cursor = plan.cursor
        }

        /// Takes in the next older page; returns the cursor of the page to read next, or
        /// `nil` when the look-back is over (all found, no older rows, past the messages'
        /// time, a page that left the cursor where it was, so the same page would come again,
        /// or ``PendingLookBack/maximumPages`` read).
        public mutating func read(_ page: WorkspaceChatPage) -> String? {
            pagesRead += 1
            var oldest = Int64.max
            for block in page.timeline {
                oldest = min(oldest, block.timestamp)
                guard block.type == .user, let operationId = block.operationId else { continue }
                if remaining.remove(operationId) != nil { found.append(operationId) }
            }
            guard !remaining.isEmpty, page.hasOlderEntries, let next = page.oldestCursor, next != cursor,
                oldest >= plan.stopBefore, pagesRead < PendingLookBack.maximumPages
            else { return nil }
            cursor = next
            return next
        }
    }

    /// Operation id → the window cursor it was last looked for from.
    private var searched: [String: String] = [:]

    /// Nothing looked for yet.
    public init() {}

    /// The look-back to run after `timeline` applied a newest window, or `nil` when no pending
    /// message can lie before the window or each was already looked for from this position.
    public mutating func plan(for timeline: WorkspaceTimeline) -> Plan? {
        let pendingIds = Set(timeline.pending.map(\.operationId))
        searched = searched.filter { pendingIds.contains($0.key) }
        guard timeline.isConfirmed, timeline.hasOlderEntries, let cursor = timeline.oldestCursor,
            let oldestRow = timeline.window.map(\.timestamp).min()
        else { return nil }
        let horizon = oldestRow.addingReportingOverflow(Self.clockAllowance)
        let candidates = timeline.pending.filter { message in
            (horizon.overflow || message.createdAt < horizon.partialValue) && searched[message.operationId] != cursor
        }
        guard let earliest = candidates.map(\.createdAt).min() else { return nil }
        for message in candidates { searched[message.operationId] = cursor }
        let stop = earliest.subtractingReportingOverflow(Self.clockAllowance)
        return Plan(
            cursor: cursor, operationIds: Set(candidates.map(\.operationId)),
            stopBefore: stop.overflow ? .min : stop.partialValue)
    }

    /// Forgets that `plan` ran (it was cut short): its messages are looked for again after the
    /// next load, even from the same position.
    public mutating func forget(_ plan: Plan) {
        for operationId in plan.operationIds where searched[operationId] == plan.cursor {
            searched[operationId] = nil
        }
    }
}
