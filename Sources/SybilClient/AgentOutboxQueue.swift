import SybilCore
import SybilWire

/// The Agent room outbox's rules as a value (SPEC §6, §6.1), without storage or concurrency:
/// ``AgentOutbox`` saves each change before it counts and ``AgentOutboxSender`` drives the
/// sending.
///
/// - Entries are sent in order, one at a time: the next is the first entry not yet
///   acknowledged; only a `queued` one is sent, and nothing while one is `sending`.
/// - A failed entry holds the queue: entries after it wait (``holdReason`` says why) until
///   it is retried, discarded or confirmed. Failures are never retried automatically.
/// - A receipt must acknowledge exactly the submitted request and attachment ids in order;
///   otherwise the entry fails (``AgentOutboxFailure/Kind/unacknowledged``).
/// - A canonical echo (a merged message with the entry's request id) confirms the entry in
///   any state, even after its acknowledgement was lost.
/// - The entry after the one being submitted may be saved as `sending` ahead of its turn
///   (``beginSendingNext(after:)``), so that saving it overlaps the submission before it; it
///   leaves only once that one is acknowledged, and goes back to `queued` when that one fails.
/// - On relaunch an entry still `sending` has an unknown outcome: it fails with Retry
///   (same request id and `createdAt`) unless an echo confirms it first. (One saved ahead
///   may not have left; Retry sends it with its id either way, and the server keeps a
///   request id once.) After a restart of the device that may have lost `sending` states
///   written without `fsync`, queued entries fail with Retry too.
public struct AgentOutboxQueue: Sendable, Hashable {
    /// Most entries an outbox holds.
    public static let maxEntries = 10_000
    /// How many retired draft ids are remembered (the newest).
    public static let maxRetiredDraftIds = 256

    /// What the sender should do next.
    public enum Action: Sendable, Hashable {
        /// Submit this entry (call ``beginSending(_:)`` first).
        case send(AgentOutboxEntry)
        /// An entry is being submitted; wait for its outcome.
        case inFlight(requestId: String)
        /// This failed entry holds queued entries behind it.
        case held(by: AgentOutboxEntry)
        /// Nothing to send.
        case idle
    }

    /// How a submission ended, as ``finishSending(_:result:)`` recorded it.
    public enum Outcome: Sendable, Hashable {
        /// The receipt acknowledged the submission; the entry awaits its echo.
        case acknowledged(AgentOutboxEntry.Acknowledgement)
        /// The entry failed.
        case failed(AgentOutboxFailure)
        /// The entry was no longer being sent (an echo confirmed it meanwhile, or it is
        /// gone); nothing changed.
        case settledMeanwhile
    }

    /// The entries in order.
    public private(set) var entries: [AgentOutboxEntry]
    /// Drafts whose entries left the outbox (newest last, at most ``maxRetiredDraftIds``).
    public private(set) var retiredDraftIds: [String]
    /// Where entries are and which ones each rule looks for, so that a change costs
    /// O(log n), not a walk over every entry. Not part of the value (equality, hashing).
    private var index = Index()

    /// A queue of `entries`.
    public init(entries: [AgentOutboxEntry] = [], retiredDraftIds: [String] = []) {
        self.entries = entries
        self.retiredDraftIds = retiredDraftIds
        index.serials.reserveCapacity(entries.count)
        for position in entries.indices {
            let serial = index.newSerial()
            index.serials.append(serial)
            // A repeated request id (never in a stored document) finds the first entry.
            if index.serialById[entries[position].requestId] == nil {
                index.serialById[entries[position].requestId] = serial
            }
            index.account(entries[position], serial: serial)
        }
    }

    public static func == (lhs: AgentOutboxQueue, rhs: AgentOutboxQueue) -> Bool {
        lhs.entries == rhs.entries && lhs.retiredDraftIds == rhs.retiredDraftIds
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries)
        hasher.combine(retiredDraftIds)
    }

    /// The entry with `requestId`.
    public func entry(_ requestId: String) -> AgentOutboxEntry? {
        position(of: requestId).map { entries[$0] }
    }

    /// Whether the draft `draftId` was handed over (its entry is here or already left).
    public func contains(draftId: String) -> Bool {
        entries.contains { $0.draftId == draftId } || retiredDraftIds.contains(draftId)
    }

    /// Whether an entry is confirmed (``removeConfirmed()`` would remove something).
    public var hasConfirmed: Bool { !index.confirmed.isEmpty }

    /// How many entries are confirmed (O(1): whoever waits for every entry to be confirmed
    /// compares it with `entries.count` instead of walking the entries).
    public var confirmedCount: Int { index.confirmed.count }

    // MARK: Deciding

    /// The next thing to do: the first entry that is queued, sending or failed decides.
    public var nextAction: Action {
        guard let serial = index.open.first, let position = index.position(ofSerial: serial) else { return .idle }
        let entry = entries[position]
        switch entry.state {
        case .queued: return .send(entry)
        case .sending: return .inFlight(requestId: entry.requestId)
        default:
            // Every queued entry comes after the first open one.
            return index.queuedCount > 0 ? .held(by: entry) : .idle
        }
    }

    /// Why queued messages are not being sent, for the UI: set while a failed entry holds
    /// them.
    public var holdReason: String? {
        guard case .held(let entry) = nextAction else { return nil }
        return entry.canRetry
            ? "Waiting: “\(entry.label)” failed — Retry or Resend all."
            : "Waiting: “\(entry.label)” was not accepted — Discard it to send the rest."
    }

    // MARK: Events
    //
    // Every event checks before it changes anything: one that throws leaves the queue as it was.

    /// Adds a new entry at the end. An entry for a draft that is already here is returned
    /// unchanged instead (the handoff ran twice, e.g. after a crash): nothing is queued twice.
    public mutating func enqueue(_ entry: AgentOutboxEntry) throws(AgentOutboxError) -> AgentOutboxEntry {
        if let draftId = entry.draftId {
            if let existing = entries.first(where: { $0.draftId == draftId }) { return existing }
            if retiredDraftIds.contains(draftId) { throw .draftAlreadySent(draftId) }
        }
        if entry.attachments.isEmpty && entry.text.allSatisfy(\.isWhitespace) { throw .emptyMessage }
        let textBytes = entry.text.utf8.count
        if textBytes > AgentRoomSubmission.maxTextBytes {
            throw .textTooLong(bytes: textBytes, limit: AgentRoomSubmission.maxTextBytes)
        }
        let limit = AgentAttachmentLimits.v1.maxFiles
        if entry.attachments.count > limit { throw .tooManyAttachments(count: entry.attachments.count, limit: limit) }
        var seen = Set<String>()
        for attachment in entry.attachments where !seen.insert(attachment.uploadId).inserted {
            throw .duplicateAttachment(attachment.uploadId)
        }
        guard entries.count < Self.maxEntries else { throw .full(limit: Self.maxEntries) }
        precondition(position(of: entry.requestId) == nil, "request id \(entry.requestId) is already in the outbox")
        var queued = entry
        queued.state = .queued
        queued.failure = nil
        queued.acknowledgement = nil
        let serial = index.newSerial()
        entries.append(queued)
        index.serials.append(serial)
        index.serialById[queued.requestId] = serial
        index.account(queued, serial: serial)
        index.markChanged(queued.requestId)
        return queued
    }

    /// Marks the next entry `sending` (one more attempt) and returns what to submit. Only the
    /// entry ``nextAction`` names may be sent.
    public mutating func beginSending(_ requestId: String) throws(AgentOutboxError) -> AgentRoomSubmission {
        let index = try index(of: requestId)
        guard case .send(let next) = nextAction, next.requestId == requestId else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "sent")
        }
        return update(index) { entry in
            entry.state = .sending
            entry.attempts += 1
            return entry.submission
        }
    }

    /// Marks the entry after `inFlight` (the entry being submitted, which ``nextAction`` names)
    /// `sending` ahead of its turn and returns what to submit once `inFlight` is acknowledged.
    /// Only the first entry after `inFlight` that is queued, sending or failed may be, and only
    /// when it is queued.
    public mutating func beginSendingNext(after inFlight: String) throws(AgentOutboxError) -> AgentRoomSubmission {
        let current = try index(of: inFlight)
        guard case .inFlight(let id) = nextAction, id == inFlight else {
            throw .wrongState(requestId: inFlight, state: entries[current].state, change: "followed")
        }
        guard let position = positionAfterInFlight(), entries[position].state == .queued else {
            throw .wrongState(
                requestId: inFlight, state: entries[current].state, change: "followed (nothing is queued)")
        }
        return update(position) { entry in
            entry.state = .sending
            entry.attempts += 1
            return entry.submission
        }
    }

    /// The queued entry right behind `requestId` (an entry being sent) that
    /// ``beginSendingNext(after:)`` would mark once the entries before `requestId` are settled,
    /// or `nil` (the next entry that is queued, sending or failed is not queued, or there is none).
    public func queuedBehind(_ requestId: String) -> AgentOutboxEntry? {
        guard let serial = index.serialById[requestId], let position = index.position(ofSerial: serial),
            entries[position].state == .sending
        else { return nil }
        let at = Index.lowerBound(serial + 1, in: index.open)
        guard at < index.open.count, let behind = index.position(ofSerial: index.open[at]),
            entries[behind].state == .queued
        else { return nil }
        return entries[behind]
    }

    /// The position of the second entry that is queued, sending or failed.
    private func positionAfterInFlight() -> Int? {
        index.open.count > 1 ? index.position(ofSerial: index.open[1]) : nil
    }

    /// The submission of `requestId` never left (the sender stopped right after saving it as
    /// `sending`): it goes back to `queued`, the attempt uncounted.
    public mutating func cancelSending(_ requestId: String) throws(AgentOutboxError) {
        let index = try index(of: requestId)
        guard entries[index].state == .sending else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "put back")
        }
        update(index) { entry in
            entry.state = .queued
            entry.attempts -= 1
        }
    }

    /// Records how the submission of `requestId` ended: a receipt that acknowledges exactly
    /// the submission → awaiting echo; anything else → failed with its reason (and an entry
    /// saved as `sending` ahead behind it, which never left, goes back to `queued`). An entry
    /// that is no longer `sending` (confirmed by its echo meanwhile) keeps its state.
    public mutating func finishSending(
        _ requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>
    ) -> Outcome {
        guard let index = position(of: requestId), entries[index].state == .sending else { return .settledMeanwhile }
        let submission = entries[index].submission
        switch result {
        case .success(let receipt) where receipt.acknowledges(submission):
            let acknowledgement = AgentOutboxEntry.Acknowledgement(
                messageId: receipt.messageId, cursor: receipt.cursor)
            update(index) { entry in
                entry.state = .awaitingEcho
                entry.acknowledgement = acknowledgement
            }
            return .acknowledged(acknowledgement)
        case .success(let receipt):
            return fail(index, .unacknowledged(receipt, for: submission))
        case .failure(let error):
            return fail(index, .from(error))
        }
    }

    private mutating func fail(_ position: Int, _ failure: AgentOutboxFailure) -> Outcome {
        update(position) { entry in
            entry.state = .failed
            entry.failure = failure
        }
        // The failed entry holds the queue: one saved as sending ahead of its turn stays unsent.
        let serial = index.serials[position]
        let behind = index.open.filter { $0 > serial }.prefix(1)
        for later in behind {
            guard let at = index.position(ofSerial: later), entries[at].state == .sending else { continue }
            update(at) { entry in
                entry.state = .queued
                entry.attempts -= 1
            }
        }
        return .failed(failure)
    }

    /// A message the room merged: when it is the canonical echo of an entry (same request id,
    /// a user message), the entry is confirmed whatever its state. Returns whether it was.
    public mutating func confirm(echo message: AgentRoomMessage) -> Bool {
        guard message.role == .user, let requestId = message.requestId,
            let index = position(of: requestId),
            entries[index].state != .confirmed
        else { return false }
        update(index) { entry in
            entry.state = .confirmed
            entry.failure = nil
            entry.acknowledgement = .init(messageId: message.messageId, cursor: message.cursor)
        }
        return true
    }

    /// The room merged history through `cursor`: entries awaiting an echo whose acknowledged
    /// message is at or before it are in history already (their echo was merged before, e.g.
    /// in an earlier launch). Returns their request ids, in the queue's order.
    public mutating func confirmAcknowledged(through cursor: AgentCursor) -> [String] {
        let passed = index.awaiting.filter { $0.value <= cursor }.keys
        guard !passed.isEmpty else { return [] }
        let positions = passed.compactMap { position(of: $0) }.sorted()
        for position in positions {
            update(position) { $0.state = .confirmed }
        }
        return positions.map { entries[$0].requestId }
    }

    /// The server that acknowledged these entries lost its history (the room follows another
    /// history now, whose cursors say nothing about this acknowledgement): each entry among
    /// `requestIds` still awaiting its echo fails with `failure`, which Retry can help (its
    /// request id and `createdAt` kept), and its acknowledgement, of a history that is gone, is
    /// dropped. Its echo still confirms it. Returns the request ids that failed, in order.
    public mutating func failAcknowledged(_ requestIds: Set<String>, with failure: AgentOutboxFailure) -> [String] {
        let positions = requestIds.compactMap { id in
            position(of: id).flatMap { entries[$0].state == .awaitingEcho ? $0 : nil }
        }.sorted()
        for position in positions {
            update(position) { entry in
                entry.state = .failed
                entry.failure = failure
                entry.acknowledgement = nil
            }
        }
        return positions.map { entries[$0].requestId }
    }

    /// Whether ``confirmAcknowledged(through:)`` would confirm something (linear in the
    /// entries awaiting their echo, not in the queue).
    public func hasAcknowledged(through cursor: AgentCursor) -> Bool {
        index.awaiting.values.contains { $0 <= cursor }
    }

    /// Retry: a failed entry that Retry can help goes back to `queued` with its request id,
    /// text, attachments and `createdAt`.
    public mutating func retry(_ requestId: String) throws(AgentOutboxError) {
        let index = try index(of: requestId)
        guard entries[index].state == .failed else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "retried")
        }
        guard entries[index].canRetry else { throw .notRetryable(requestId: requestId) }
        update(index) { entry in
            entry.state = .queued
            entry.failure = nil
        }
    }

    /// Resend all: every failed entry that Retry can help goes back to `queued`, in order, with
    /// its original ids. Returns their request ids (a final refusal stays until discarded).
    public mutating func resendAll() -> [String] {
        var resent: [String] = []
        for index in entries.indices where entries[index].canRetry {
            update(index) { entry in
                entry.state = .queued
                entry.failure = nil
            }
            resent.append(entries[index].requestId)
        }
        return resent
    }

    /// Discard: removes a queued or failed entry (e.g. after a final refusal) and returns it,
    /// so its text can go back to the composer. An entry being sent or already acknowledged
    /// cannot be discarded: the server may hold it.
    public mutating func discard(_ requestId: String) throws(AgentOutboxError) -> AgentOutboxEntry {
        let index = try index(of: requestId)
        guard entries[index].state == .queued || entries[index].state == .failed else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "discarded")
        }
        let entry = remove(at: index)
        retire(entry)
        return entry
    }

    /// Removes confirmed entries (history holds them) and returns them.
    public mutating func removeConfirmed() -> [AgentOutboxEntry] {
        guard !index.confirmed.isEmpty else { return [] }
        let positions = index.confirmed.compactMap { index.position(ofSerial: $0) }
        var confirmed: [AgentOutboxEntry] = []
        confirmed.reserveCapacity(positions.count)
        // From the back, so that the positions before each removal stay where they are.
        for position in positions.reversed() { confirmed.append(remove(at: position)) }
        confirmed.reverse()
        for entry in confirmed { retire(entry) }
        return confirmed
    }

    /// A new launch: an entry still `sending` has an unknown outcome and fails with Retry.
    /// With `queuedMayHaveLeft` (the outbox may have lost records written without `fsync`, see
    /// ``AgentOutbox``), every `queued` entry fails with Retry too
    /// (``AgentOutboxFailure/restartedWhileSending``): one may have left with its `sending`
    /// state lost. Returns the request ids that failed, in order.
    public mutating func relaunch(queuedMayHaveLeft: Bool = false) -> [String] {
        var failed: [String] = []
        for index in entries.indices {
            let failure: AgentOutboxFailure
            switch entries[index].state {
            case .sending: failure = .relaunched
            case .queued where queuedMayHaveLeft: failure = .restartedWhileSending
            default: continue
            }
            update(index) { entry in
                // A queued entry that may have left counts the attempt its lost state counted.
                if entry.state == .queued {
                    entry.attempts = min(entry.attempts + 1, Int(AgentOutboxEntry.maxAttempts))
                }
                entry.state = .failed
                entry.failure = failure
            }
            failed.append(entries[index].requestId)
        }
        return failed
    }

    /// Whether an entry is `sending` (being submitted, or saved ahead of its turn).
    public var isSending: Bool { index.sendingCount > 0 }

    // MARK: Changes since the last save

    /// The request ids of the entries added, changed or removed since the last call, in the
    /// order they first changed (``AgentOutbox`` writes only those).
    mutating func takeChangedIds() -> [String] {
        defer {
            index.changed.removeAll(keepingCapacity: true)
            index.changedSet.removeAll(keepingCapacity: true)
        }
        return index.changed
    }

    /// The position of the entry with `requestId` (O(log n)).
    func position(of requestId: String) -> Int? {
        index.serialById[requestId].flatMap { index.position(ofSerial: $0) }
    }

    // MARK: Helpers

    private func index(of requestId: String) throws(AgentOutboxError) -> Int {
        guard let index = position(of: requestId) else { throw .unknownEntry(requestId) }
        return index
    }

    /// Changes the entry at `position` in place and keeps ``index`` in step.
    @discardableResult
    private mutating func update<T>(_ position: Int, _ change: (inout AgentOutboxEntry) -> T) -> T {
        let serial = index.serials[position]
        index.unaccount(entries[position], serial: serial)
        let result = change(&entries[position])
        index.account(entries[position], serial: serial)
        index.markChanged(entries[position].requestId)
        return result
    }

    /// Removes the entry at `position` and returns it.
    private mutating func remove(at position: Int) -> AgentOutboxEntry {
        let serial = index.serials.remove(at: position)
        let entry = entries.remove(at: position)
        index.unaccount(entry, serial: serial)
        if index.serialById[entry.requestId] == serial { index.serialById[entry.requestId] = nil }
        index.markChanged(entry.requestId)
        return entry
    }

    private mutating func retire(_ entry: AgentOutboxEntry) {
        guard let draftId = entry.draftId, !retiredDraftIds.contains(draftId) else { return }
        retiredDraftIds.append(draftId)
        if retiredDraftIds.count > Self.maxRetiredDraftIds {
            retiredDraftIds.removeFirst(retiredDraftIds.count - Self.maxRetiredDraftIds)
        }
    }

    /// Positions and per-state sets of the entries. Each entry has a serial number, increasing
    /// along ``entries`` (entries are only appended or removed, never reordered), so a position
    /// is a binary search away.
    private struct Index: Sendable {
        /// The serial of each entry, in the order of ``entries`` (increasing).
        var serials: [Int] = []
        var serialById: [String: Int] = [:]
        var nextSerial = 0
        /// Serials of the entries that are queued, sending or failed (increasing).
        var open: [Int] = []
        var queuedCount = 0
        var sendingCount = 0
        /// Serials of the confirmed entries (increasing).
        var confirmed: [Int] = []
        /// The acknowledged cursor of each entry awaiting its echo.
        var awaiting: [String: AgentCursor] = [:]
        /// Request ids changed since ``takeChangedIds()``.
        var changed: [String] = []
        var changedSet: Set<String> = []

        mutating func newSerial() -> Int {
            defer { nextSerial += 1 }
            return nextSerial
        }

        func position(ofSerial serial: Int) -> Int? {
            let at = Self.lowerBound(serial, in: serials)
            return at < serials.count && serials[at] == serial ? at : nil
        }

        mutating func account(_ entry: AgentOutboxEntry, serial: Int) {
            switch entry.state {
            case .queued, .sending, .failed:
                Self.insert(serial, into: &open)
                if entry.state == .queued { queuedCount += 1 }
                if entry.state == .sending { sendingCount += 1 }
            case .awaitingEcho:
                if let cursor = entry.acknowledgement?.cursor { awaiting[entry.requestId] = cursor }
            case .confirmed:
                Self.insert(serial, into: &confirmed)
            }
        }

        mutating func unaccount(_ entry: AgentOutboxEntry, serial: Int) {
            switch entry.state {
            case .queued, .sending, .failed:
                Self.remove(serial, from: &open)
                if entry.state == .queued { queuedCount -= 1 }
                if entry.state == .sending { sendingCount -= 1 }
            case .awaitingEcho:
                awaiting[entry.requestId] = nil
            case .confirmed:
                Self.remove(serial, from: &confirmed)
            }
        }

        mutating func markChanged(_ requestId: String) {
            if changedSet.insert(requestId).inserted { changed.append(requestId) }
        }

        static func lowerBound(_ value: Int, in sorted: [Int]) -> Int {
            var (low, high) = (0, sorted.count)
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < value { low = middle + 1 } else { high = middle }
            }
            return low
        }

        private static func insert(_ value: Int, into sorted: inout [Int]) {
            if sorted.last.map({ $0 < value }) ?? true {
                sorted.append(value)
                return
            }
            let at = lowerBound(value, in: sorted)
            if at == sorted.count || sorted[at] != value { sorted.insert(value, at: at) }
        }

        private static func remove(_ value: Int, from sorted: inout [Int]) {
            let at = lowerBound(value, in: sorted)
            if at < sorted.count && sorted[at] == value { sorted.remove(at: at) }
        }
    }
}
