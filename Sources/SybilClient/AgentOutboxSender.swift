import Observation
import SybilCore
import SybilWire

/// Drives an ``AgentOutbox`` over the ``AgentRoomAPI`` seam: the thin driver of the rules in
/// ``AgentOutboxQueue``. It sends entries in order, one at a time: each is saved as `sending`
/// before its `POST agent/messages` leaves (flushed by the first such write, which opens a
/// claim of this boot; written without `fsync` while the claim is open, see
/// ``AgentOutbox/Flush``). That save overlaps the request before it: while one request is
/// out, one write marks the entry behind it `sending` ahead of its turn and saves the
/// acknowledgement before it. Messages queued while the sender was stopped cost one `fsync`
/// to deliver together. A message queued while the sender waits with nothing
/// to send, or while a request is out with nothing saved behind it, is saved as `sending` by
/// its enqueue's own write and handed over, so from queued to confirmed it costs that one
/// `fsync` (its acknowledgement and confirmation are written without one). The next leaves
/// only once this one is acknowledged: the request task sends the entry saved ahead as soon as
/// that happens, without waiting for the main actor (``AgentOutboxSendRelay``); a failure is
/// saved (putting the entry saved ahead back to queued) before anything more is
/// sent, and an outcome that cannot be saved stops sending until it is. Nothing is retried
/// automatically; Retry and Resend all (on the outbox) wake it.
///
/// The room feeds it every merged message (``messageMerged(_:)``, from the room model's
/// `onMessageMerged` hook): a canonical echo confirms its entry, and an acknowledged entry
/// whose cursor the room has passed is confirmed too. When the room replaces its history with
/// that of a server that lost the one it merged (``historyReset(to:)``, from the room model's
/// `onHistoryReset` hook), cursors of the two histories are never compared: what the sender
/// merged before is forgotten, and an entry the old server acknowledged whose echo is not in
/// the new history fails with Retry (``AgentOutboxFailure/historyLost``) instead of being
/// confirmed by a cursor of the new one.
///
/// It owns its tasks: ``stop()`` cancels and awaits them. A submission cut off by `stop()`
/// fails with Retry (its outcome is unknown), like one cut off by the app stopping.
@MainActor
@Observable
public final class AgentOutboxSender {
    /// The outbox it sends from.
    public let outbox: AgentOutbox
    /// The request id being submitted, as the sender knows it: the entry saved ahead leaves
    /// from the request task as soon as the one before is acknowledged, and shows here once
    /// the sender has taken that outcome.
    public private(set) var inFlight: String?
    /// Submissions that ended (acknowledged or failed) since the sender was made.
    public private(set) var finishedAttempts = 0
    /// The newest cursor the room merged, as told by ``messageMerged(_:)``.
    public private(set) var mergedThrough: AgentCursor?
    /// Echo confirmations still being saved.
    public private(set) var pendingConfirmations = 0
    /// Whether the loop waits for a change with nothing it can send (a message queued now that
    /// is next in line is handed to it by its enqueue).
    public private(set) var isWaiting = false

    @ObservationIgnored private let api: any AgentRoomAPI
    @ObservationIgnored private let removesConfirmed: Bool
    @ObservationIgnored private var loop: Task<Void, Never>?
    @ObservationIgnored private var confirmations: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextConfirmation = 0
    /// Acknowledged entries of a history the server lost, not yet saved as failed; while any
    /// is, no entry is confirmed by a merged cursor (the cursors are the new history's).
    @ObservationIgnored private var lostAcknowledgements: Set<String> = []
    /// Entries being sent when the history was reset: a receipt that comes for one may be the
    /// old server's, so it joins ``lostAcknowledgements`` once saved.
    @ObservationIgnored private var sentBeforeReset: Set<String> = []
    /// Outcomes that could not be saved; saved again before anything else is sent.
    @ObservationIgnored private var unsavedOutcomes: [Finished] = []
    /// An entry saved as `sending` ahead of its turn that never left because an outcome before
    /// it could not be saved; it leaves once they are.
    @ObservationIgnored private var unsentAhead: String?

    /// A sender for `outbox` over `api`; call ``start()``. With `removesConfirmed`, an entry
    /// leaves the outbox in the write that confirms it, because the room that told the sender
    /// about the echo holds the message in its history (the app's setting; tests that look at
    /// confirmed entries leave it off).
    public init(outbox: AgentOutbox, api: any AgentRoomAPI, removesConfirmed: Bool = false) {
        self.outbox = outbox
        self.api = api
        self.removesConfirmed = removesConfirmed
    }

    /// Whether the send loop runs.
    public var isRunning: Bool { loop != nil }

    /// Starts sending (queued entries go out in order); starting twice does nothing.
    public func start() {
        guard loop == nil else { return }
        loop = Task { [weak self] in await self?.run() }
    }

    /// Stops sending and confirming, and waits until its tasks ended. An in-flight
    /// submission is cancelled; its entry fails with Retry unless its receipt already came.
    public func stop() async {
        outbox.handOffSlot = .closed
        let tasks = [loop].compactMap { $0 } + Array(confirmations.values)
        loop = nil
        confirmations.removeAll()
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        pendingConfirmations = 0
        // A message an enqueue saved as sending for this sender, and that it never took, goes
        // back to queued.
        await outbox.returnHandOff()
    }

    /// Tries again what could not be saved and looks for work (e.g. after a storage problem
    /// was fixed). Changes to the outbox wake the sender by themselves.
    public func wake() { outbox.wakeWaiters() }

    /// The room merged `message` (history or live): its canonical echo confirms the entry
    /// with its request id, and entries acknowledged at or before the newest merged cursor
    /// are confirmed (their echo was merged before, e.g. in an earlier launch), in one write.
    public func messageMerged(_ message: AgentRoomMessage) {
        if mergedThrough.map({ message.cursor > $0 }) ?? true { mergedThrough = message.cursor }
        // Acknowledgements of a lost history not yet saved as failed would pass for merged.
        let cursor = lostAcknowledgements.isEmpty ? mergedThrough : nil
        let outbox = outbox
        let removing = removesConfirmed
        guard outbox.needsSettling(merged: message, through: cursor, removingConfirmed: removing) else { return }
        nextConfirmation += 1
        let key = nextConfirmation
        pendingConfirmations += 1
        confirmations[key] = Task { [weak self] in
            // A failed save is on `outbox.storageFailure`; the entry stays as saved, and the
            // next launch recovers it (Retry answers with the same receipt, or history passes
            // its cursor).
            _ = try? await outbox.settle(merged: message, through: cursor, removingConfirmed: removing)
            guard let self, self.confirmations.removeValue(forKey: key) != nil else { return }
            self.pendingConfirmations -= 1
        }
    }

    /// The room replaced its history with `messages`, those of a server that lost the history
    /// merged before (restarted without it, restored from an older copy); the room feeds them
    /// to ``messageMerged(_:)`` after this. The merged cursor is forgotten: the new history's
    /// cursors are another series, and one at or past an old acknowledgement says nothing about
    /// it. Every entry awaiting its echo whose echo is not among `messages` fails with Retry
    /// (``AgentOutboxFailure/historyLost``; its request id kept, so a server that has it answers
    /// with its receipt), saved in one flushed write; until then no entry is confirmed by a
    /// cursor. An entry being sent now fails so too if it is acknowledged, since the receipt may
    /// be the old server's. An echo still confirms any of them.
    public func historyReset(to messages: [AgentRoomMessage]) {
        mergedThrough = nil
        let echoed = Set(messages.lazy.filter { $0.role == .user }.compactMap(\.requestId))
        for entry in outbox.entries where !echoed.contains(entry.requestId) {
            switch entry.state {
            case .awaitingEcho: lostAcknowledgements.insert(entry.requestId)
            case .sending: sentBeforeReset.insert(entry.requestId)
            default: break
            }
        }
        guard !lostAcknowledgements.isEmpty else { return }
        nextConfirmation += 1
        let key = nextConfirmation
        pendingConfirmations += 1
        confirmations[key] = Task { [weak self] in
            await self?.failLostAcknowledgements()
            guard let self, self.confirmations.removeValue(forKey: key) != nil else { return }
            self.pendingConfirmations -= 1
        }
    }

    /// Saves the acknowledgements of a lost history as failed with Retry; those that could not
    /// be saved stay (no confirmation by cursor meanwhile) and are tried again with the next
    /// outcome saved, or at the next ``historyReset(to:)``.
    private func failLostAcknowledgements() async {
        guard !lostAcknowledgements.isEmpty else { return }
        let ids = lostAcknowledgements
        do {
            _ = try await outbox.failAcknowledged(ids, with: .historyLost)
        } catch {
            return
        }
        // Those still awaiting their echo were failed, and others settled otherwise (an echo);
        // one whose receipt is still being saved stays, and fails after it.
        lostAcknowledgements = lostAcknowledgements.filter { id in
            [.sending, .awaitingEcho].contains(outbox.entry(id)?.state)
        }
    }

    /// Outcomes about to be saved: an acknowledgement of an entry sent before the history was
    /// reset joins ``lostAcknowledgements`` (failed once it is saved).
    private func noteOutcomes(_ outcomes: [Finished]) {
        guard !sentBeforeReset.isEmpty else { return }
        for outcome in outcomes where sentBeforeReset.remove(outcome.requestId) != nil {
            if case .success = outcome.result { lostAcknowledgements.insert(outcome.requestId) }
        }
    }

    // MARK: The loop

    /// An acknowledged submission whose outcome is saved by a later write.
    private typealias Finished = (requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>)

    private func run() async {
        // The request tasks are children of this one: a stop cancels them with it. Each loop
        // has its own relay: one started while a stop still waits for a request of the loop
        // before it awaits its own outcomes.
        let relay = AgentOutboxSendRelay()
        await withDiscardingTaskGroup { group in await run(&group, relay: relay) }
    }

    private func run(_ group: inout DiscardingTaskGroup, relay: AgentOutboxSendRelay) async {
        // Saved as `sending`, to be submitted next.
        var next: AgentRoomSubmission?
        // Whether `next` left already: the request task sent it once the one before was
        // acknowledged (``AgentOutboxSendRelay``). Its outcome is awaited even after a stop.
        var nextOut = false
        // Acknowledgements not saved yet: the write made while the next request is out saves them.
        var acknowledged: [Finished] = []
        while nextOut || !Task.isCancelled {
            let generation = outbox.changeSignal.generation
            if next == nil { next = await begin() }
            guard let submission = next else {
                // Waiting with nothing to send: a message queued now that is next in line is
                // saved as sending by its enqueue's write and handed over (one fsync, not two).
                outbox.handOffSlot = unsavedOutcomes.isEmpty && unsentAhead == nil ? .next : .closed
                isWaiting = true
                await outbox.changeSignal.wait(after: generation)
                isWaiting = false
                outbox.handOffSlot = .closed
                continue
            }
            (next, nextOut, acknowledged) = await send(
                submission, out: nextOut, saving: acknowledged, group: &group, relay: relay)
        }
        if !acknowledged.isEmpty {
            noteOutcomes(acknowledged)
            _ = try? await outbox.finishSending(acknowledged, beginningNextBehind: nil)
            await failLostAcknowledgements()
        }
        if let next {
            // Saved as sending but never left: back to queued.
            sentBeforeReset.remove(next.requestId)
            _ = try? await outbox.cancelSending(next.requestId)
        }
    }

    /// Saves the outcomes that could not be saved before, then marks the next entry `sending`;
    /// `nil` when there is nothing to send (or it could not be saved).
    private func begin() async -> AgentRoomSubmission? {
        if !unsavedOutcomes.isEmpty {
            noteOutcomes(unsavedOutcomes)
            do {
                _ = try await outbox.finishSending(unsavedOutcomes, beginningNextBehind: nil)
                unsavedOutcomes = []
            } catch {
                return nil
            }
        }
        await failLostAcknowledgements()
        switch outbox.nextAction {
        case .send(let entry):
            // Not saved (storage failure) or no longer next: nothing is sent.
            return try? await outbox.beginSending(entry.requestId)
        case .inFlight(let requestId) where requestId == unsentAhead:
            // Saved as sending ahead of its turn before an outcome could not be saved; it never
            // left, and it is next now.
            unsentAhead = nil
            sentBeforeReset.remove(requestId)
            return outbox.entry(requestId)?.submission
        case .inFlight(let requestId) where outbox.takeHandOff(requestId):
            // Queued while this sender waited or sent the one before it, and saved as sending by
            // that enqueue.
            return outbox.entry(requestId)?.submission
        default:
            return nil
        }
    }

    /// Submits `submission` (already saved as `sending`; with `out`, its request left already,
    /// sent by the request task of the one before). While its request is out, one write saves
    /// the acknowledgements before it (`saving`) and marks the entry behind it `sending` ahead
    /// of its turn, so that the `fsync` overlaps the request; the request task sends that entry
    /// as soon as this one is acknowledged. Returns what to submit next (saved as `sending`),
    /// whether it left already, and the acknowledgements left to save.
    private func send(
        _ submission: AgentRoomSubmission, out: Bool, saving earlier: [Finished], group: inout DiscardingTaskGroup,
        relay: AgentOutboxSendRelay
    ) async -> (next: AgentRoomSubmission?, nextOut: Bool, acknowledged: [Finished]) {
        if !out {
            if Task.isCancelled { return (submission, false, earlier) }
            relay.begin(submission.requestId)
            let api = api
            group.addTask { @Sendable in
                await AgentOutboxSendRelay.run(submission, relay: relay) { await Self.submit($0, to: api) }
            }
        }
        inFlight = submission.requestId
        var ahead: AgentRoomSubmission?
        var unsaved = earlier
        // After a stop (this request left from the one before's task first) nothing more is
        // saved as sending: the outcomes before it are saved with its own.
        if !Task.isCancelled, outbox.hasNext(behind: submission.requestId) {
            noteOutcomes(earlier)
            do {
                ahead = try await outbox.finishSending(earlier, beginningNextBehind: submission.requestId)
                unsaved = []
            } catch {
                // Sending stops after this request until the outcomes are saved.
            }
        }
        // Saved ahead: it leaves once this one is acknowledged (not after a stop, nor when an
        // outcome before it could not be saved).
        relay.decide(after: submission.requestId, next: unsaved.isEmpty && !Task.isCancelled ? ahead : nil)
        // Nothing saved ahead: a message queued while the request is out, right behind it, is
        // saved as sending by its enqueue and taken once this one is acknowledged.
        if ahead == nil && !Task.isCancelled { outbox.handOffSlot = .behind(submission.requestId) }
        // Acknowledgements just saved may lie at or before a cursor the room merged already;
        // confirmed after the decision, so that the next request never waits for that write.
        if unsaved.isEmpty && !earlier.isEmpty { await confirmIfMerged() }
        let outcome = await relay.outcome(of: submission.requestId)
        let result = outcome.result
        outbox.handOffSlot = .closed
        inFlight = nil
        finishedAttempts += 1
        if outcome.nextLeft, let ahead {
            // Acknowledged, and the next (saved as sending) left: this outcome is saved while it
            // is out (after a power loss before that, this entry is `sending`: it fails with
            // Retry on relaunch, and its echo or history confirms it).
            return (ahead, true, [(submission.requestId, result)])
        }
        // Anything else is saved before anything more is sent: a failure (which puts an entry
        // saved ahead back to queued), a stop, or the last message.
        let outcomes = unsaved + [(submission.requestId, result)]
        noteOutcomes(outcomes)
        var following: AgentRoomSubmission?
        do {
            // Without an entry saved ahead, the next one is marked sending in the same write.
            following = try await outbox.finishSending(outcomes, beginningNext: ahead == nil && !Task.isCancelled)
        } catch {
            unsavedOutcomes = outcomes
            unsentAhead = ahead?.requestId
            return (nil, false, [])
        }
        if let ahead, Task.isCancelled || outbox.nextAction == .inFlight(requestId: ahead.requestId) {
            // Stopped: it goes back to queued as the loop ends. Settled meanwhile (an echo
            // confirmed this entry before its answer came): it is next. Failed: it was put back.
            following = ahead
        }
        await confirmIfMerged()
        return (following, false, [])
    }

    /// The request, off the main actor; a cancelled one fails as stopped.
    private nonisolated static func submit(
        _ submission: AgentRoomSubmission, to api: any AgentRoomAPI
    ) async -> Result<AgentRoomReceipt, AgentRoomError> {
        do {
            return .success(try await api.submit(submission))
        } catch {
            return .failure(Task.isCancelled ? .transport("sending was stopped (\(error))") : error)
        }
    }

    /// After acknowledgements were saved: an echo may have been merged already (in an earlier
    /// launch, before a Retry), so entries acknowledged at or before the merged cursor are
    /// confirmed.
    private func confirmIfMerged() async {
        // An acknowledgement of a history the server lost fails first; none is confirmed by a
        // cursor of the new one.
        await failLostAcknowledgements()
        guard lostAcknowledgements.isEmpty, let mergedThrough, outbox.queue.hasAcknowledged(through: mergedThrough)
        else { return }
        _ = try? await outbox.confirmAcknowledged(through: mergedThrough)
    }
}
