import Foundation
import Observation
import SybilCore
import SybilStore
import SybilWire

/// The Agent room as one screen uses it: the room (history, stream, unread, activity), the
/// attachment draft and the outbox with its sender, joined by the seed's rules.
///
/// - Every merged message reaches the sender: a canonical echo confirms its entry (even when
///   the HTTP acknowledgement was lost) and the entry leaves the outbox in the same write,
///   since history holds the message now. A history the room replaced (its server lost the
///   old one) reaches it first: an entry the old server acknowledged without an echo there
///   fails with Retry instead of being confirmed by the new history's cursors.
/// - The draft follows the room's attachment capability and availability; a 503 the draft
///   meets while uploading makes the room re-check at its next connection.
/// - ``send()`` hands the draft to the outbox: the draft is saved, the outbox saves the
///   message with the draft's identity, then the draft is cleared. A crash between those
///   steps is recovered at ``start()`` without a second send. Only attachments still being
///   prepared or uploaded hold a send; failed ones are left out and stay in the draft.
/// - ``stop()`` ends the room and the sender and waits for them, and suspends the draft's
///   uploads (a later ``start()`` resumes them); ``close()`` also ends the draft's work and
///   waits for it, for a screen or a command that is done.
/// - A text that leaves the outbox (``discard(_:givingTextBackTo:)``) or is never queued
///   (``giveBackUnsent(_:reason:toComposerHolding:)``) goes back into the composer the person
///   sees only when that composer can take it (blank, or holding the same text); otherwise it
///   is kept in ``undelivered`` until the person takes it back
///   (``takeBackOldest(toComposerHolding:)``): a draft is never replaced, and no text is lost.
@MainActor
@Observable
public final class AgentRoomComposer {
    /// The room.
    public let room: AgentRoomModel
    /// The outbox of the room's base URL.
    public let outbox: AgentOutbox
    /// Sends the outbox.
    public let sender: AgentOutboxSender
    /// The caption and attachments being written.
    public let draft: AgentAttachmentDraft
    /// The last thing a person should know about sending (a refused draft, a storage failure).
    public private(set) var notice: String?
    /// Whether ``start()`` ran and ``stop()`` did not.
    public private(set) var isStarted = false
    /// The room's messages not delivered whose text is not in a composer (kept between
    /// launches when it was made with a ``UndeliveredMessagesPersistence``).
    public let undeliveredMessages: AgentUndeliveredMessages
    /// The availability last given to the draft: a draft that turned it off by itself met a 503.
    @ObservationIgnored private var syncedAvailability: Bool?
    /// Counts starts, so work a previous start began ends with it.
    @ObservationIgnored private var startGeneration = 0
    /// Stops under way, and the starts and stops that wait for them to end.
    @ObservationIgnored private var stopsUnderWay = 0
    @ObservationIgnored private var waitingForStops: [CheckedContinuation<Void, Never>] = []
    /// Counts calls to ``start()`` and ``stop()``: a start that waited for a stop begins only
    /// when no call came after it.
    @ObservationIgnored private var calls = 0
    /// Reading the saved draft back, once, at the first start; later starts wait for it and
    /// resume the draft as it is.
    @ObservationIgnored private var restoring: Task<Void, Never>?

    /// Joins the parts; call ``start()``. The sender should remove confirmed entries
    /// (`removesConfirmed: true`), since the room's history shows them. `undelivered` keeps the
    /// texts not delivered (an app keeps them between launches, SPEC §2).
    public init(
        room: AgentRoomModel, outbox: AgentOutbox, sender: AgentOutboxSender, draft: AgentAttachmentDraft,
        undelivered: AgentUndeliveredMessages = AgentUndeliveredMessages()
    ) {
        self.room = room
        self.outbox = outbox
        self.sender = sender
        self.draft = draft
        self.undeliveredMessages = undelivered
        // A text kept by a discard the process did not finish is still in the outbox, which
        // shows it: one copy, not two.
        for message in undelivered.messages(in: outbox.scope) where outbox.entry(message.id) != nil {
            undelivered.take(message.id, in: outbox.scope)
        }
    }

    /// Messages still in the outbox, in order: queued, sending, waiting for their echo, or
    /// failed with their reason; a front end shows them after the transcript.
    public var pending: [AgentOutboxEntry] { outbox.entries.filter { $0.state != .confirmed } }

    /// Why the queue is held, when a failed message holds it.
    public var holdReason: String? { outbox.holdReason }

    /// Restores the draft at the first start (finishing a handoff a crash interrupted), starts
    /// the room and the sender, and keeps the draft's attachment gating in step with the room.
    ///
    /// A start that comes while a stop is under way (an app sent to the background and brought
    /// back at once) begins once the stop ended; a stop that comes while a start is under way
    /// ends it. The room, the sender and the draft end in the state the last call asked for.
    public func start() async {
        calls += 1
        let call = calls
        while stopsUnderWay > 0 {
            await withCheckedContinuation { waitingForStops.append($0) }
        }
        // A stop (or a start) that came while this one waited is the last call: it decides.
        guard call == calls, !isStarted else { return }
        isStarted = true
        startGeneration += 1
        let generation = startGeneration
        if restoring == nil {
            let (draft, outbox) = (draft, outbox)
            restoring = Task {
                await draft.restore()
                await draft.recoverHandoff { outbox.contains(draftId: $0) }
            }
        }
        await restoring?.value
        // A stop that came meanwhile ended this start.
        guard isStarted, startGeneration == generation else { return }
        room.onMessageMerged = { [weak self] message in self?.sender.messageMerged(message) }
        room.onHistoryReset = { [weak self] messages in self?.sender.historyReset(to: messages) }
        sender.start()
        draft.resume()
        followCapability()
        await room.start()
    }

    /// Stops the room and the sender and waits until they ended; the draft's uploads are
    /// suspended. A stop while another is under way returns once that one ended, and a start
    /// waiting for it stays stopped.
    public func stop() async {
        calls += 1
        guard isStarted else {
            // A stop under way (a start waiting for it stays stopped): this one ends with it.
            if stopsUnderWay > 0 { await withCheckedContinuation { waitingForStops.append($0) } }
            return
        }
        isStarted = false
        stopsUnderWay += 1
        draft.suspend()
        room.onMessageMerged = nil
        room.onHistoryReset = nil
        await room.stop()
        await sender.stop()
        stopsUnderWay -= 1
        guard stopsUnderWay == 0 else { return }
        let waiting = waitingForStops
        waitingForStops.removeAll()
        for call in waiting { call.resume() }
    }

    /// Stops, then ends the draft's preparation or upload and waits for it; the composer is
    /// not started again.
    public func close() async {
        await stop()
        // The draft's first reading back may still be finishing a hand-off: it ends first.
        await restoring?.value
        await draft.close()
    }

    /// Sets the caption (saved with the draft).
    public func updateCaption(_ text: String) async {
        await draft.updateCaption(text)
    }

    /// Whether ``send()`` can send now: no attachment still uploading, and a caption or an
    /// uploaded attachment (failed ones are left out and stay in the draft).
    public var canSend: Bool { draft.canSend }

    /// Queues the draft: the outbox saves it before anything is sent, then the draft starts
    /// over, keeping the items that failed or were interrupted (left out of the message and
    /// named in ``notice``). Returns the queued entry, or `nil` with ``notice`` saying why
    /// nothing was queued (the draft is kept whole).
    @discardableResult
    public func send() async -> AgentOutboxEntry? {
        let handoff: AgentAttachmentHandoff
        do {
            handoff = try await draft.prepareHandoff()
        } catch {
            notice = error.description
            return nil
        }
        let entry: AgentOutboxEntry
        do {
            entry = try await outbox.enqueue(
                text: handoff.caption, attachments: handoff.attachments, draftId: handoff.draftId)
        } catch {
            draft.abandonHandoff()
            notice = "The message was not queued, and the draft is kept: \(error)"
            return nil
        }
        await draft.completeHandoff(handoff.draftId)
        notice =
            handoff.leftOut.isEmpty
            ? nil
            : "Sent without \(handoff.leftOut.joined(separator: ", ")), which did not upload; it stays in the draft to retry or remove."
        sender.wake()
        return entry
    }

    /// Retry: the failed message goes again with its request id and time.
    public func retry(_ requestId: String) async throws(AgentOutboxError) {
        try await outbox.retry(requestId)
    }

    /// Resend all: every failed message Retry can help goes again, in order.
    @discardableResult
    public func resendAll() async throws(AgentOutboxError) -> [String] {
        try await outbox.resendAll()
    }

    /// Discard: the failed (or still queued) message leaves the outbox, the way out of a final
    /// refusal that Retry cannot help (``AgentOutboxFailure/Kind/refused``), and the messages it
    /// held go on. Returns it, so a front end can put its text back in the composer.
    @discardableResult
    public func discard(_ requestId: String) async throws(AgentOutboxError) -> AgentOutboxEntry {
        let entry = try await outbox.discard(requestId)
        sender.wake()
        return entry
    }

    // MARK: Texts not delivered

    /// The room's messages not delivered and not back in a composer, oldest first.
    public var undelivered: [AgentUndeliveredMessages.Message] {
        undeliveredMessages.messages(in: outbox.scope)
    }

    /// Discard, for a front end whose person sees a composer: the failed message's text is
    /// kept in ``undelivered`` (saved there first, so the outbox never drops its one saved
    /// copy), then the message leaves the outbox (``discard(_:)``), then its text goes back into
    /// the composer the person sees, as `visibleDraft` reads it once the discard is saved
    /// (`nil`: no composer of the room is on screen), when that composer can take it (and
    /// leaves ``undelivered``), else it stays kept. A message with no text (attachments only)
    /// has nothing to keep: it counts as given back. When the text cannot be saved, or the
    /// discard fails, the message stays in the outbox and this throws.
    public func discard(_ requestId: String, givingTextBackTo visibleDraft: () -> String?)
        async throws(AgentOutboxError) -> AgentUndeliveredMessages.HandOver
    {
        let keeps = outbox.entry(requestId).map { !$0.text.allSatisfy(\.isWhitespace) } ?? false
        if keeps, let entry = outbox.entry(requestId) {
            let message = AgentUndeliveredMessages.Message(entry: entry, in: outbox.scope, cause: .rejected)
            let wasKept = undeliveredMessages.messages(in: outbox.scope).contains { $0.id == message.id }
            guard undeliveredMessages.keepIfSaved(message) else {
                let reason = undeliveredMessages.saveProblem ?? "The text could not be saved."
                throw .storage(StorageError(operation: "keep", path: "the messages kept undelivered", reason: reason))
            }
            let entry: AgentOutboxEntry
            do {
                entry = try await discard(requestId)
            } catch {
                // Still in the outbox: its one copy is there again.
                if !wasKept { undeliveredMessages.take(message.id, in: outbox.scope) }
                throw error
            }
            let kept = AgentUndeliveredMessages.Message(entry: entry, in: outbox.scope, cause: .rejected)
            if let draft = visibleDraft(), AgentUndeliveredMessages.composer(holding: draft, takes: kept.text) {
                return AgentUndeliveredMessages.HandOver(
                    restored: undeliveredMessages.take(kept.id, in: outbox.scope) ?? kept, kept: [])
            }
            return AgentUndeliveredMessages.HandOver(restored: nil, kept: [kept])
        }
        let entry = try await discard(requestId)
        let message = AgentUndeliveredMessages.Message(entry: entry, in: outbox.scope, cause: .rejected)
        return undeliveredMessages.giveBack(message, toComposerHolding: visibleDraft())
    }

    /// A text the person sent that was never queued, for `reason` (its files could not be
    /// attached, the draft could not be handed over), given back to the composer the person
    /// sees, which holds `visibleDraft` (`nil`: no composer of the room is on screen): restored
    /// when that composer can take it, else kept in ``undelivered``.
    public func giveBackUnsent(_ text: String, reason: String, toComposerHolding visibleDraft: String?)
        -> AgentUndeliveredMessages.HandOver
    {
        let message = AgentUndeliveredMessages.Message(
            id: undeliveredMessages.makeId(prefix: "unsent"), chat: outbox.scope, text: text, cause: .notSent,
            reason: reason)
        return undeliveredMessages.giveBack(message, toComposerHolding: visibleDraft)
    }

    /// The person asks for the oldest kept message back into a composer holding
    /// `visibleDraft`: it leaves ``undelivered`` when that composer can take it, and stays
    /// otherwise.
    public func takeBackOldest(toComposerHolding visibleDraft: String) -> AgentUndeliveredMessages.TakeBack {
        undeliveredMessages.takeBackOldest(in: outbox.scope, toComposerHolding: visibleDraft)
    }

    /// Keeps the draft's capability and availability equal to the room's, and tells the room
    /// when an upload found attachments unavailable.
    private func followCapability() {
        guard isStarted else { return }
        // One tracking per start: a change seen after a stop and a new start does not add a second.
        let generation = startGeneration
        let (capability, roomAvailable, draftAvailable) = withObservationTracking {
            (room.descriptor?.attachments, room.attachmentsAvailable, draft.attachmentsAvailable)
        } onChange: {
            // Only a hop from the observation callback to the main actor: it ends at once, and
            // does nothing after a stop (the generation changed).
            Task { @MainActor [weak self] in
                guard let self, self.startGeneration == generation else { return }
                self.followCapability()
            }
        }
        if syncedAvailability == true, roomAvailable, !draftAvailable {
            // The draft met a 503 while uploading: the room re-checks at its next connection.
            syncedAvailability = false
            room.attachmentsBecameUnavailable()
            return
        }
        if draft.capability != capability { draft.setCapability(capability) }
        if draftAvailable != roomAvailable { draft.setAttachmentsAvailable(roomAvailable) }
        syncedAvailability = roomAvailable
    }
}
