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
/// - On relaunch an entry still `sending` has an unknown outcome: it fails with Retry
///   (same request id and `createdAt`) unless an echo confirms it first.
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

    /// A queue of `entries`.
    public init(entries: [AgentOutboxEntry] = [], retiredDraftIds: [String] = []) {
        self.entries = entries
        self.retiredDraftIds = retiredDraftIds
    }

    /// The entry with `requestId`.
    public func entry(_ requestId: String) -> AgentOutboxEntry? {
        entries.first { $0.requestId == requestId }
    }

    /// Whether the draft `draftId` was handed over (its entry is here or already left).
    public func contains(draftId: String) -> Bool {
        entries.contains { $0.draftId == draftId } || retiredDraftIds.contains(draftId)
    }

    // MARK: Deciding

    /// The next thing to do: the first entry that is queued, sending or failed decides.
    public var nextAction: Action {
        guard let index = entries.firstIndex(where: { [.queued, .sending, .failed].contains($0.state) }) else {
            return .idle
        }
        let entry = entries[index]
        switch entry.state {
        case .queued: return .send(entry)
        case .sending: return .inFlight(requestId: entry.requestId)
        default:
            let waiting = entries[(index + 1)...].contains { $0.state == .queued }
            return waiting ? .held(by: entry) : .idle
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
        precondition(self.entry(entry.requestId) == nil, "request id \(entry.requestId) is already in the outbox")
        var queued = entry
        queued.state = .queued
        queued.failure = nil
        queued.acknowledgement = nil
        entries.append(queued)
        return queued
    }

    /// Marks the next entry `sending` (one more attempt) and returns what to submit. Only the
    /// entry ``nextAction`` names may be sent.
    public mutating func beginSending(_ requestId: String) throws(AgentOutboxError) -> AgentRoomSubmission {
        let index = try index(of: requestId)
        guard case .send(let next) = nextAction, next.requestId == requestId else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "sent")
        }
        entries[index].state = .sending
        entries[index].attempts += 1
        return entries[index].submission
    }

    /// The submission of `requestId` never left (the sender stopped right after saving it as
    /// `sending`): it goes back to `queued`, the attempt uncounted.
    public mutating func cancelSending(_ requestId: String) throws(AgentOutboxError) {
        let index = try index(of: requestId)
        guard entries[index].state == .sending else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "put back")
        }
        entries[index].state = .queued
        entries[index].attempts -= 1
    }

    /// Records how the submission of `requestId` ended: a receipt that acknowledges exactly
    /// the submission → awaiting echo; anything else → failed with its reason. An entry that
    /// is no longer `sending` (confirmed by its echo meanwhile) keeps its state.
    public mutating func finishSending(
        _ requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>
    ) -> Outcome {
        guard let index = entries.firstIndex(where: { $0.requestId == requestId }),
            entries[index].state == .sending
        else { return .settledMeanwhile }
        let submission = entries[index].submission
        switch result {
        case .success(let receipt) where receipt.acknowledges(submission):
            let acknowledgement = AgentOutboxEntry.Acknowledgement(
                messageId: receipt.messageId, cursor: receipt.cursor)
            entries[index].state = .awaitingEcho
            entries[index].acknowledgement = acknowledgement
            return .acknowledged(acknowledgement)
        case .success(let receipt):
            return fail(index, .unacknowledged(receipt, for: submission))
        case .failure(let error):
            return fail(index, .from(error))
        }
    }

    private mutating func fail(_ index: Int, _ failure: AgentOutboxFailure) -> Outcome {
        entries[index].state = .failed
        entries[index].failure = failure
        return .failed(failure)
    }

    /// A message the room merged: when it is the canonical echo of an entry (same request id,
    /// a user message), the entry is confirmed whatever its state. Returns whether it was.
    public mutating func confirm(echo message: AgentRoomMessage) -> Bool {
        guard message.role == .user, let requestId = message.requestId,
            let index = entries.firstIndex(where: { $0.requestId == requestId }),
            entries[index].state != .confirmed
        else { return false }
        entries[index].state = .confirmed
        entries[index].failure = nil
        entries[index].acknowledgement = .init(messageId: message.messageId, cursor: message.cursor)
        return true
    }

    /// The room merged history through `cursor`: entries awaiting an echo whose acknowledged
    /// message is at or before it are in history already (their echo was merged before, e.g.
    /// in an earlier launch). Returns their request ids.
    public mutating func confirmAcknowledged(through cursor: AgentCursor) -> [String] {
        var confirmed: [String] = []
        for index in entries.indices {
            guard entries[index].state == .awaitingEcho, let ack = entries[index].acknowledgement, ack.cursor <= cursor
            else { continue }
            entries[index].state = .confirmed
            confirmed.append(entries[index].requestId)
        }
        return confirmed
    }

    /// Whether ``confirmAcknowledged(through:)`` would confirm something.
    public func hasAcknowledged(through cursor: AgentCursor) -> Bool {
        entries.contains { $0.state == .awaitingEcho && ($0.acknowledgement.map { $0.cursor <= cursor } ?? false) }
    }

    /// Retry: a failed entry that Retry can help goes back to `queued` with its request id,
    /// text, attachments and `createdAt`.
    public mutating func retry(_ requestId: String) throws(AgentOutboxError) {
        let index = try index(of: requestId)
        guard entries[index].state == .failed else {
            throw .wrongState(requestId: requestId, state: entries[index].state, change: "retried")
        }
        guard entries[index].canRetry else { throw .notRetryable(requestId: requestId) }
        entries[index].state = .queued
        entries[index].failure = nil
    }

    /// Resend all: every failed entry that Retry can help goes back to `queued`, in order, with
    /// its original ids. Returns their request ids (a final refusal stays until discarded).
    public mutating func resendAll() -> [String] {
        var resent: [String] = []
        for index in entries.indices where entries[index].canRetry {
            entries[index].state = .queued
            entries[index].failure = nil
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
        let entry = entries.remove(at: index)
        retire(entry)
        return entry
    }

    /// Removes confirmed entries (history holds them) and returns them.
    public mutating func removeConfirmed() -> [AgentOutboxEntry] {
        let confirmed = entries.filter { $0.state == .confirmed }
        guard !confirmed.isEmpty else { return [] }
        entries.removeAll { $0.state == .confirmed }
        for entry in confirmed { retire(entry) }
        return confirmed
    }

    /// A new launch: an entry still `sending` has an unknown outcome and fails with Retry.
    /// Returns the request ids that failed.
    public mutating func relaunch() -> [String] {
        var failed: [String] = []
        for index in entries.indices where entries[index].state == .sending {
            entries[index].state = .failed
            entries[index].failure = .relaunched
            failed.append(entries[index].requestId)
        }
        return failed
    }

    // MARK: Helpers

    private func index(of requestId: String) throws(AgentOutboxError) -> Int {
        guard let index = entries.firstIndex(where: { $0.requestId == requestId }) else {
            throw .unknownEntry(requestId)
        }
        return index
    }

    private mutating func retire(_ entry: AgentOutboxEntry) {
        guard let draftId = entry.draftId, !retiredDraftIds.contains(draftId) else { return }
        retiredDraftIds.append(draftId)
        if retiredDraftIds.count > Self.maxRetiredDraftIds {
            retiredDraftIds.removeFirst(retiredDraftIds.count - Self.maxRetiredDraftIds)
        }
    }
}
