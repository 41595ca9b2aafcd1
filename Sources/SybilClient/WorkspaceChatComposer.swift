import Observation
import SybilCore
import SybilTimeline
import SybilWire

/// The composer of one workspace chat joined to the outbox (SPEC §2, §4.5): what the user
/// writes is saved in the outbox copy before anything is sent or shown as sent, then goes
/// through ``WorkspaceOutboxSender`` (one chat's messages one after another, 20 s receipt
/// wait) to the desktop. The host's confirmations complete outbox entries; a final
/// rejection gives the text back through ``ComposerRestore``, and every message that leaves
/// the outbox undelivered whose text the draft cannot take is kept in ``undelivered`` until
/// the person takes it back: several rejected at once are each kept. On launch, entries left
/// in the outbox reappear as pending rows and are sent again, in order, with their original
/// ids.
@MainActor
@Observable
public final class WorkspaceChatComposer {
    /// One message on its way, as its bubble shows it.
    public struct Delivery: Sendable, Hashable, Identifiable {
        /// Where the message is.
        public enum State: Sendable, Hashable {
            /// Saved; waiting for its turn or for the desktop's receipt.
            case pending
            /// The desktop accepted it and owns delivery; history will carry it.
            case accepted
            /// The last attempt failed in transit or timed out; Retry sends it again, same ids.
            case failed(reason: String)
        }

        /// The outbox entry's operation id.
        public var id: String
        /// What the user wrote.
        public var text: String
        /// New turn or steer.
        public var mode: WorkspaceSendMode
        /// Where it is.
        public var state: State
    }

    /// The chat.
    public let chat: WorkspaceChatKey
    /// What the user is writing.
    public var draft = ""
    /// Messages sent from here that history does not carry yet, oldest first.
    public private(set) var deliveries: [Delivery] = []
    /// Attachments of the next message, in order.
    public private(set) var attachments: [WorkspaceAttachmentDraft] = []
    /// The last thing to tell the user (a rejection, a storage problem), `nil` when all is well.
    public private(set) var notice: String?
    /// Whether ``restore()`` finished (pending entries are shown and being resent).
    public private(set) var isRestored = false
    /// The list undelivered messages of this chat are kept in (shared with other composers
    /// of the outbox when the opener passed one).
    public let undeliveredMessages: WorkspaceUndeliveredMessages
    /// Whether a returned text goes into ``draft`` (see ``init(host:outbox:sender:uploader:ids:now:undelivered:restoresIntoDraft:)``).
    public let restoresIntoDraft: Bool

    @ObservationIgnored private let host: WorkspaceChatHost
    @ObservationIgnored private let outbox: WorkspaceOutbox
    @ObservationIgnored private let sender: WorkspaceOutboxSender
    @ObservationIgnored private let uploader: AttachmentUploader?
    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private let now: @Sendable () -> Int64
    @ObservationIgnored private var uploads: [String: Task<Void, Never>] = [:]
    /// Confirmations being recorded (the host reports them synchronously; saving is async).
    @ObservationIgnored private var confirmations: [UInt64: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextConfirmation: UInt64 = 0
    /// Messages kept in ``undeliveredMessages`` since the last
    /// ``handOverReturned(toComposerHolding:)``, oldest first.
    @ObservationIgnored private var keptSinceHandOver: [String] = []

    /// A composer for `host`'s chat. `now` gives milliseconds since the epoch. `undelivered`
    /// is where messages that leave the outbox undelivered are kept (pass one list to every
    /// composer of the outbox, so that one rejected after its chat was closed is there when it
    /// is opened again); when `nil`, the sender's ``WorkspaceOutboxSender/keptTexts`` (which
    /// saves each text there before its entry leaves the outbox), else a list in memory. Pass
    /// the sender's list or none when it has one. `restoresIntoDraft: false` is for an app whose person sees another
    /// composer than ``draft``: a returned text is then always kept in ``undelivered``, and
    /// ``handOverReturned(toComposerHolding:)`` gives it back to that composer.
    public init(
        host: WorkspaceChatHost, outbox: WorkspaceOutbox, sender: WorkspaceOutboxSender,
        uploader: AttachmentUploader? = nil, ids: any IDGenerator, now: @escaping @Sendable () -> Int64,
        undelivered: WorkspaceUndeliveredMessages? = nil, restoresIntoDraft: Bool = true
    ) {
        self.undeliveredMessages = undelivered ?? sender.keptTexts ?? WorkspaceUndeliveredMessages()
        self.restoresIntoDraft = restoresIntoDraft
        self.chat = host.key
        self.host = host
        self.outbox = outbox
        self.sender = sender
        self.uploader = uploader
        self.ids = ids
        self.now = now
        host.onConfirmedOperations = { [weak self] operationIds in
            self?.recordConfirmation(operationIds)
        }
    }

    /// Stops the composer's work: uploads in progress are cancelled, confirmations being
    /// saved finish. Call before the composer goes away (a screen closes, a command ends).
    public func close() async {
        host.onConfirmedOperations = nil
        for task in uploads.values { task.cancel() }
        let pending = Array(uploads.values) + Array(confirmations.values)
        for task in pending { await task.value }
    }

    private func recordConfirmation(_ operationIds: [String]) {
        nextConfirmation += 1
        let id = nextConfirmation
        confirmations[id] = Task { [weak self] in
            await self?.confirm(operationIds)
            self?.confirmations[id] = nil
        }
    }

    // MARK: Launch

    /// Shows the entries a previous run left in the outbox as pending rows, then sends those
    /// the desktop has not accepted, in order, with their original ids. Staged copies no entry
    /// owns are removed first (``WorkspaceOutboxSender/removeOrphanedCopies()``).
    public func restore() async {
        // Copies a crash left without a message go first (once per sender).
        await sender.removeOrphanedCopies()
        // A text kept by a rejection the previous run did not finish is still in the outbox,
        // which shows it: one copy, not two. Read and taken in the chat's chain, after any
        // attempt an earlier opening still runs: that attempt may keep a text and then remove
        // its entry, and a take between the two would leave the text in neither place.
        let outbox = outbox
        let chat = chat
        let kept = undeliveredMessages
        let read: @MainActor @Sendable () async -> [WorkspaceOutboxEntry] = {
            let entries = await outbox.pendingEntries(in: chat)
            for entry in entries { kept.take(entry.operationId, in: chat) }
            return entries
        }
        let entries = (try? await outbox.changes(in: chat).run(read)) ?? []
        for entry in entries where !deliveries.contains(where: { $0.id == entry.operationId }) {
            deliveries.append(
                Delivery(
                    id: entry.operationId, text: entry.mutation.text, mode: entry.mode,
                    state: entry.acceptedByDesktop ? .accepted : .pending))
            host.addPendingMessage(entry.pendingMessage)
        }
        isRestored = true
        await retryUnaccepted()
    }

    // MARK: Sending

    /// Sends the draft (with its attachments) as a new turn, or steers the running turn when
    /// `steer` is true. Returns the outcome, or `nil` when nothing was sent (the notice says
    /// why). Attachments whose upload failed because the desktop could not be reached do not
    /// hold the message: they are copied into the outbox with it (``WorkspaceOutboxStaging``)
    /// and uploaded first when it is sent, now or on a later retry. The draft leaves the
    /// composer when sending starts and comes back if the message cannot be saved; earlier
    /// messages the desktop has not accepted go first.
    @discardableResult
    public func send(steer: Bool = false) async -> WorkspaceOutboxSender.Outcome? {
        let text = draft
        let sentAttachments = attachments
        // From the first attachment that is not uploaded on, the files wait in the outbox
        // (copied there now) and are uploaded before the message, so the message keeps the
        // order the user attached them in.
        let waitingFrom = sentAttachments.firstIndex { $0.uploadId == nil }
        if let waitingFrom {
            let waiting = sentAttachments[waitingFrom...]
            if let failed = waiting.first(where: { $0.uploadId == nil && $0.failure != nil && !$0.canWaitInOutbox }) {
                notice = "Remove \(failed.file.fileName) (\(failed.failure ?? "its upload failed")), then send."
                return nil
            }
            guard sender.staging != nil, waiting.allSatisfy({ $0.uploadId != nil || $0.canWaitInOutbox }) else {
                notice = "Wait until the attachments have uploaded (or remove the ones that failed), then send."
                return nil
            }
            // More copies than an entry may keep would not read back at the next launch (the
            // whole message would be lost): refused before anything is staged or saved.
            let limit = WorkspaceOutboxEntry.maximumStagedAttachments
            guard waiting.count <= limit else {
                notice =
                    "\(waiting.count) attachments are not uploaded yet, and at most \(limit) can wait in the outbox with one message; remove some or wait until they have uploaded, then send."
                return nil
            }
        }
        let uploadIds = sentAttachments[..<(waitingFrom ?? sentAttachments.count)].compactMap(\.uploadId)
        guard !text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) || !sentAttachments.isEmpty else {
            notice = "Write a message or attach a file first."
            return nil
        }
        let mode: WorkspaceSendMode
        if steer {
            guard let runId = host.timeline.activeRunId else {
                notice = "Nothing is running in this chat to steer; send it as a new message."
                return nil
            }
            mode = .steer(activeRunId: runId)
        } else {
            mode = .send
        }
        var entry = WorkspaceOutboxEntry(
            chat: chat, operationId: ids.makeID(),
            mutation: .init(mutationId: ids.makeID(), text: text, attachments: uploadIds), mode: mode,
            createdAt: now())
        // Taken out of the composer before the save suspends: a second tap finds it empty, and
        // what the user types or attaches meanwhile is theirs.
        draft = ""
        attachments = []
        func giveBack(_ message: String) {
            if draft.isEmpty { draft = text } else { draft = text + "\n" + draft }
            attachments = sentAttachments + attachments
            notice = message
        }
        if let waitingFrom, let staging = sender.staging {
            do {
                for (index, item) in sentAttachments[waitingFrom...].enumerated() {
                    entry.stagedAttachments.append(
                        try await staging.stage(item.file, operationId: entry.operationId, index: index))
                }
            } catch {
                await staging.remove(operationId: entry.operationId)
                giveBack(
                    "Your message could not be kept in the outbox, so it was not sent: \(error) It is back in the composer."
                )
                return nil
            }
        }
        do {
            try await outbox.enqueue(entry)
        } catch {
            await sender.staging?.remove(operationId: entry.operationId)
            giveBack("Your message could not be saved, so it was not sent: \(error). It is back in the composer.")
            return nil
        }
        notice = nil
        deliveries.append(Delivery(id: entry.operationId, text: text, mode: mode, state: .pending))
        host.addPendingMessage(entry.pendingMessage)
        do {
            var outcome = WorkspaceOutboxSender.Outcome.alreadyCompleted
            let entries = await outbox.pendingEntries(in: chat)
            for (operationId, result) in try await sender.deliver(entry) {
                if operationId == entry.operationId {
                    outcome = result
                    apply(result, to: entry)
                } else if let earlier = entries.first(where: { $0.operationId == operationId }) {
                    apply(result, to: earlier)
                }
            }
            return outcome
        } catch {
            update(entry.operationId, .failed(reason: String(describing: error)))
            return .failed(String(describing: error))
        }
    }

    /// Sends every message the desktop has not accepted again, in order, with the same ids.
    public func retryUnaccepted() async {
        let entries = await outbox.pendingEntries(in: chat)
        do {
            let results = try await sender.retryPending(in: chat)
            for (operationId, outcome) in results {
                guard let entry = entries.first(where: { $0.operationId == operationId }) else { continue }
                apply(outcome, to: entry)
            }
            // The resend stopped at a failure: the messages behind it were not sent and are
            // not being sent, so they must not keep saying "sending".
            let attempted = Set(results.map(\.operationId))
            for entry in entries where !entry.acceptedByDesktop && !attempted.contains(entry.operationId) {
                guard deliveries.first(where: { $0.id == entry.operationId })?.state == .pending else { continue }
                update(
                    entry.operationId,
                    .failed(reason: "An earlier message of this chat is not delivered yet; this one is sent after it."))
            }
        } catch {
            notice = "Sending again failed: \(error)"
        }
    }

    /// History or the overlay carries these operations: their entries complete.
    public func confirm(_ operationIds: [String]) async {
        do {
            try await sender.confirm(operationIds, in: chat)
        } catch {
            notice = "The outbox could not record a delivered message: \(error)"
            return
        }
        deliveries.removeAll { operationIds.contains($0.id) }
    }

    private func apply(_ outcome: WorkspaceOutboxSender.Outcome, to entry: WorkspaceOutboxEntry) {
        switch outcome {
        case .accepted:
            update(entry.operationId, .accepted)
        case .timedOut:
            update(entry.operationId, .failed(reason: "The desktop did not answer within 20 seconds."))
        case .failed(let reason):
            update(entry.operationId, .failed(reason: reason))
        case .rejected(let reason):
            deliveries.removeAll { $0.id == entry.operationId }
            host.removePendingMessage(operationId: entry.operationId)
            giveBack(WorkspaceUndeliveredMessages.Message(entry: entry, cause: .rejected, reason: reason))
        case .discarded(let reason):
            // The cause is on this device: the desktop never saw the message.
            deliveries.removeAll { $0.id == entry.operationId }
            host.removePendingMessage(operationId: entry.operationId)
            giveBack(WorkspaceUndeliveredMessages.Message(entry: entry, cause: .discarded, reason: reason))
        case .alreadyCompleted:
            deliveries.removeAll { $0.id == entry.operationId }
        }
    }

    /// A message left the outbox undelivered: its text goes back into the draft when the draft
    /// can take it (``ComposerRestore``), else it is kept in ``undelivered``; the notice says
    /// which.
    private func giveBack(_ message: WorkspaceUndeliveredMessages.Message) {
        let text = message.text
        let decision = ComposerRestore.decide(rejectedText: text, reason: message.reason, currentDraft: draft)
        if restoresIntoDraft, case .restore = decision {
            draft = text
            // The sender may have kept it already: the draft holds it now.
            undeliveredMessages.take(message.id, in: message.chat)
            notice =
                switch message.cause {
                case .rejected: "The desktop did not take your message: \(message.reason)"
                case .discarded, .notSent:
                    "Your message could not be sent from this device: \(message.reason) Its text is back in the composer."
                }
            return
        }
        undeliveredMessages.keep(message)
        guard restoresIntoDraft else {
            keptSinceHandOver.append(message.id)
            if keptSinceHandOver.count > WorkspaceUndeliveredMessages.maximumKeptPerChat {
                keptSinceHandOver.removeFirst()
            }
            notice =
                switch message.cause {
                case .rejected: "The desktop did not take your message: \(message.reason)"
                case .discarded, .notSent: "Your message could not be sent from this device: \(message.reason)"
                }
            return
        }
        notice =
            switch message.cause {
            case .rejected:
                "The desktop did not take your message (\(message.reason)). Your new draft was kept; the message was: \"\(text)\""
            case .discarded, .notSent:
                "Your message could not be sent from this device (\(message.reason)). Your new draft was kept; the message was: \"\(text)\""
            }
    }

    // MARK: Undelivered messages

    /// The messages of this chat that left the outbox undelivered and are not back in a
    /// composer, oldest first.
    public var undelivered: [WorkspaceUndeliveredMessages.Message] {
        undeliveredMessages.messages(in: chat)
    }

    /// What ``handOverReturned(toComposerHolding:)`` and
    /// ``giveBackUnsent(_:reason:toComposerHolding:)`` gave back.
    public typealias HandOver = WorkspaceUndeliveredMessages.HandOver

    /// Seed 000 for a composer made with `restoresIntoDraft: false`, whose person sees another composer (which holds
    /// `visibleDraft`; `nil` when no composer of this chat is on screen): of the messages kept
    /// since the last call, the oldest goes back into that composer when it can take it (it is
    /// blank or holds the same text, as ``ComposerRestore`` decides); the others stay in
    /// ``undelivered``. Empty when none was kept since.
    public func handOverReturned(toComposerHolding visibleDraft: String?) -> HandOver {
        let ids = keptSinceHandOver
        keptSinceHandOver = []
        var kept = ids.compactMap { id in undelivered.first { $0.id == id } }
        guard let first = kept.first, let visibleDraft,
            WorkspaceUndeliveredMessages.composer(holding: visibleDraft, takes: first.text)
        else { return HandOver(restored: nil, kept: kept) }
        kept.removeFirst()
        return HandOver(restored: undeliveredMessages.take(first.id, in: chat), kept: kept)
    }

    /// A text the person sent that was not sent at all, for `reason` (an attachment could not
    /// be uploaded, the message could not be saved), given back to the composer the person
    /// sees, which holds `visibleDraft` (`nil`: none of this chat is on screen): restored when
    /// that composer takes it (it is blank or holds the same text), else kept in
    /// ``undelivered``, since a draft is never replaced.
    public func giveBackUnsent(_ text: String, reason: String, toComposerHolding visibleDraft: String?) -> HandOver {
        let message = WorkspaceUndeliveredMessages.Message(
            id: "unsent-\(ids.makeID())", chat: chat, text: text, cause: .notSent, reason: reason)
        return undeliveredMessages.giveBack(message, toComposerHolding: visibleDraft)
    }

    /// What ``takeBackOldest(toComposerHolding:)`` did.
    public typealias TakeBack = WorkspaceUndeliveredMessages.TakeBack

    /// The person asks for the oldest kept message back into a composer holding
    /// `visibleDraft`: it leaves the list when that composer can take it (blank, or the same
    /// text), and stays otherwise.
    public func takeBackOldest(toComposerHolding visibleDraft: String) -> TakeBack {
        let outcome = undeliveredMessages.takeBackOldest(in: chat, toComposerHolding: visibleDraft)
        if case .restored(let message) = outcome { keptSinceHandOver.removeAll { $0 == message.id } }
        return outcome
    }

    private func update(_ operationId: String, _ state: Delivery.State) {
        guard let index = deliveries.firstIndex(where: { $0.id == operationId }) else { return }
        deliveries[index].state = state
    }

    // MARK: Attachments

    /// Uploads `file` for the next message, with progress; the returned draft's `uploadId`
    /// is set once the desktop has the whole file. An upload interrupted by a restart resumes
    /// from the first chunk the desktop lacks when the same file is attached again.
    @discardableResult
    public func attach(_ file: AttachmentUploader.File) -> WorkspaceAttachmentDraft? {
        guard let uploader else {
            notice = "Attachments are not available here."
            return nil
        }
        let draft = WorkspaceAttachmentDraft(id: ids.makeID(), file: file)
        attachments.append(draft)
        let chat = chat
        uploads[draft.id] = Task { [weak self] in
            let outcome: Result<AttachmentUploadResult, any Error>
            do {
                outcome = .success(try await uploader.upload(file, to: chat, progress: draft.progress))
            } catch {
                outcome = .failure(error)
            }
            self?.uploadEnded(draft.id, outcome)
        }
        return draft
    }

    /// Waits until every attachment upload has ended (finished or failed).
    public func waitForUploads() async {
        while let (_, task) = uploads.first {
            await task.value
        }
    }

    /// Removes an attachment; an upload in progress stops.
    public func removeAttachment(id: String) {
        uploads.removeValue(forKey: id)?.cancel()
        attachments.removeAll { $0.id == id }
    }

    private func uploadEnded(_ id: String, _ outcome: Result<AttachmentUploadResult, any Error>) {
        uploads.removeValue(forKey: id)
        guard let draft = attachments.first(where: { $0.id == id }) else { return }
        switch outcome {
        case .success(let result): draft.finished(uploadId: result.uploadId)
        case .failure(let error):
            draft.failed(String(describing: error), retryable: (error as? AttachmentUploadError)?.isRetryable ?? false)
        }
    }
}
