import Observation
import SybilCore
import SybilWire

/// Drives an ``AgentOutbox`` over the ``AgentRoomAPI`` seam: the thin driver of the rules in
/// ``AgentOutboxQueue``. It sends entries in order, one at a time: each is saved as `sending`
/// before its `POST agent/messages` leaves, and its outcome is saved before the next one
/// starts. Nothing is retried automatically; Retry and Resend all (on the outbox) wake it.
///
/// The room feeds it every merged message (``messageMerged(_:)``, from the room model's
/// `onMessageMerged` hook): a canonical echo confirms its entry, and an acknowledged entry
/// whose cursor the room has passed is confirmed too.
///
/// It owns its tasks: ``stop()`` cancels and awaits them. A submission cut off by `stop()`
/// fails with Retry (its outcome is unknown), like one cut off by the app stopping.
@MainActor
@Observable
public final class AgentOutboxSender {
    /// The outbox it sends from.
    public let outbox: AgentOutbox
    /// The request id being submitted right now.
    public private(set) var inFlight: String?
    /// Submissions that ended (acknowledged or failed) since the sender was made.
    public private(set) var finishedAttempts = 0
    /// The newest cursor the room merged, as told by ``messageMerged(_:)``.
    public private(set) var mergedThrough: AgentCursor?
    /// Echo confirmations still being saved.
    public private(set) var pendingConfirmations = 0

    @ObservationIgnored private let api: any AgentRoomAPI
    @ObservationIgnored private let removesConfirmed: Bool
    @ObservationIgnored private var loop: Task<Void, Never>?
    @ObservationIgnored private var confirmations: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextConfirmation = 0
    /// An outcome that could not be saved; saved again before anything else is sent.
    @ObservationIgnored private var unsavedOutcome:
        (requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>)?

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
        let tasks = [loop].compactMap { $0 } + Array(confirmations.values)
        loop = nil
        confirmations.removeAll()
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        pendingConfirmations = 0
    }

    /// Tries again what could not be saved and looks for work (e.g. after a storage problem
    /// was fixed). Changes to the outbox wake the sender by themselves.
    public func wake() { outbox.wakeWaiters() }

    /// The room merged `message` (history or live): its canonical echo confirms the entry
    /// with its request id, and entries acknowledged at or before the newest merged cursor
    /// are confirmed (their echo was merged before, e.g. in an earlier launch), in one write.
    public func messageMerged(_ message: AgentRoomMessage) {
        if mergedThrough.map({ message.cursor > $0 }) ?? true { mergedThrough = message.cursor }
        let cursor = mergedThrough
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

    // MARK: The loop

    private func run() async {
        // Saved as `sending` by the previous step, to be submitted next.
        var next: AgentRoomSubmission?
        while !Task.isCancelled {
            let generation = outbox.changeSignal.generation
            if next == nil { next = await begin() }
            guard let submission = next else {
                await outbox.changeSignal.wait(after: generation)
                continue
            }
            next = await send(submission)
        }
        if let next {
            // Saved as sending but never left: back to queued.
            _ = try? await outbox.cancelSending(next.requestId)
        }
    }

    /// Saves an outcome that could not be saved before, then marks the next entry `sending`;
    /// `nil` when there is nothing to send (or it could not be saved).
    private func begin() async -> AgentRoomSubmission? {
        if let unsaved = unsavedOutcome {
            do {
                try await outbox.finishSending(unsaved.requestId, result: unsaved.result)
                unsavedOutcome = nil
            } catch {
                return nil
            }
        }
        guard case .send(let entry) = outbox.nextAction else { return nil }
        // Not saved (storage failure) or no longer next: nothing is sent.
        return try? await outbox.beginSending(entry.requestId)
    }

    /// Submits `submission` (already saved as `sending`), saves the outcome and, in the same
    /// write, marks the next entry `sending`; returns that one.
    private func send(_ submission: AgentRoomSubmission) async -> AgentRoomSubmission? {
        if Task.isCancelled { return submission }
        inFlight = submission.requestId
        let result: Result<AgentRoomReceipt, AgentRoomError>
        do {
            result = .success(try await api.submit(submission))
        } catch {
            result = .failure(Task.isCancelled ? .transport("sending was stopped (\(error))") : error)
        }
        inFlight = nil
        finishedAttempts += 1
        let next: AgentRoomSubmission?
        do {
            next = try await outbox.finishSending(
                submission.requestId, result: result, beginningNext: !Task.isCancelled
            ).next
        } catch {
            unsavedOutcome = (submission.requestId, result)
            return nil
        }
        if case .success = result, let mergedThrough, outbox.queue.hasAcknowledged(through: mergedThrough) {
            // The echo may have been merged already (in an earlier launch, before a Retry).
            _ = try? await outbox.confirmAcknowledged(through: mergedThrough)
        }
        return next
    }
}
