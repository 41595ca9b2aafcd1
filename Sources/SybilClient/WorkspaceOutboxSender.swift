import SybilCore
import SybilTimeline
import SybilWire

/// Sends outbox entries to the desktop (SPEC §4.5): each message is saved before it is sent,
/// changes for one chat run as a serial chain (no interleaving, even across `await`) that
/// every sender over the same outbox shares (``WorkspaceOutbox/changes(in:)``), a
/// submission waits 20 s for the desktop's receipt, and an entry without a receipt stays
/// pending to be retried with the same ids. Attachments kept in the outbox with their message
/// (``WorkspaceOutboxEntry/stagedAttachments``) are uploaded first, from their staged copies,
/// each finished upload id saved into the entry before the next upload starts; the copies are
/// removed once the desktop acknowledged the message. A message that leaves the outbox
/// undelivered is first saved in ``keptTexts`` when the sender has that list, so a crash
/// between the two leaves its text kept, or still in the outbox, never in neither.
public actor WorkspaceOutboxSender {
    /// How long a submission waits for the desktop's receipt.
    public static let receiptTimeout: Duration = .seconds(20)

    /// How one attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// The desktop accepted it and owns delivery.
        case accepted
        /// No receipt within 20 s; the entry stays pending with the same ids.
        case timedOut
        /// The call failed in transit; the entry stays pending with the same ids.
        case failed(String)
        /// The desktop rejected it for good; the entry left the outbox.
        case rejected(reason: String)
        /// It can never be sent because of something on this device (a staged attachment's
        /// copy is missing or changed); the entry left the outbox. The desktop never saw it.
        case discarded(reason: String)
        /// The operation completed meanwhile (history carries it); nothing more to do.
        case alreadyCompleted
    }

    /// A message one of this sender's attempts took out of the outbox undelivered.
    public struct Undelivered: Sendable, Hashable {
        /// The entry as it was attempted: its chat, ids and the whole text.
        public var entry: WorkspaceOutboxEntry
        /// Why: ``Outcome/rejected(reason:)`` or ``Outcome/discarded(reason:)``.
        public var outcome: Outcome
    }

    /// The most undelivered messages kept for ``takeUndelivered()``; older ones are dropped.
    public static let maximumUndeliveredKept = 256

    private let outbox: WorkspaceOutbox
    private let rpc: any WorkspaceSubmitRPC
    private let clock: any Clock<Duration>
    private let ids: any IDGenerator
    private let now: @Sendable () -> Int64
    private let uploader: AttachmentUploader?
    /// Where attachments that wait with their message are kept (`nil`: messages cannot keep
    /// attachments in the outbox).
    public nonisolated let staging: WorkspaceOutboxStaging?
    /// Where the text of a message refused for good or discarded is saved before its entry
    /// leaves the outbox (`nil`: the entry leaves, and the caller keeps the text after).
    public nonisolated let keptTexts: WorkspaceUndeliveredMessages?
    private var sweptOrphans = false
    private var undelivered: [Undelivered] = []

    /// A sender. `now` gives milliseconds since the epoch for new entries' `createdAt`;
    /// `uploader` uploads the staged copies `staging` keeps for queued messages; `keptTexts`
    /// keeps the text of each message that leaves the outbox undelivered, saved before it
    /// leaves (an app passes the list its composers show).
    public init(
        outbox: WorkspaceOutbox, rpc: any WorkspaceSubmitRPC, clock: any Clock<Duration>, ids: any IDGenerator,
        now: @escaping @Sendable () -> Int64, uploader: AttachmentUploader? = nil,
        staging: WorkspaceOutboxStaging? = nil, keptTexts: WorkspaceUndeliveredMessages? = nil
    ) {
        self.keptTexts = keptTexts
        self.uploader = uploader
        self.staging = staging
        self.outbox = outbox
        self.rpc = rpc
        self.clock = clock
        self.ids = ids
        self.now = now
    }

    /// Once per sender, when it starts (``WorkspaceChatComposer/restore()`` calls it): removes
    /// staged folders whose operation is not in the outbox, left by a crash between staging
    /// and saving a message or between the desktop's acceptance and their removal. Returns the
    /// folder names removed (none on later calls).
    @discardableResult
    public func removeOrphanedCopies() async -> [String] {
        guard let staging, !sweptOrphans else { return [] }
        sweptOrphans = true
        return await staging.removeOrphans(keeping: await outbox.pendingOperationIds)
    }

    /// Saves a new message and sends it. The entry is in the outbox before anything leaves (and
    /// before it waits behind earlier messages of the chat); a storage failure throws and sends
    /// nothing.
    public func submit(
        text: String, attachments: [String] = [], mode: WorkspaceSendMode, to chat: WorkspaceChatKey
    ) async throws -> (entry: WorkspaceOutboxEntry, outcome: Outcome) {
        let entry = WorkspaceOutboxEntry(
            chat: chat, operationId: ids.makeID(),
            mutation: .init(mutationId: ids.makeID(), text: text, attachments: attachments), mode: mode,
            createdAt: now())
        return (entry, try await submit(entry))
    }

    /// Saves `entry` (a new message built by the caller, e.g. a composer that shows it at once)
    /// and sends it after the chat's earlier messages.
    public func submit(_ entry: WorkspaceOutboxEntry) async throws -> Outcome {
        // Saved first: a message waiting behind one that waits for its receipt is on disk.
        try await outbox.enqueue(entry)
        return try await send(queued: entry)
    }

    /// Sends an entry already saved in the outbox, after the chat's earlier messages; returns
    /// its outcome (see ``deliver(_:)`` for the earlier ones sent first).
    public func send(queued entry: WorkspaceOutboxEntry) async throws -> Outcome {
        try await deliver(entry).first { $0.operationId == entry.operationId }?.outcome ?? .alreadyCompleted
    }

    /// Sends an entry already saved in the outbox. Earlier messages of its chat that the desktop
    /// has not accepted go first, in order; the first that fails stops the rest, so a message
    /// never overtakes an earlier one. Returns the outcome of each entry attempted, and of
    /// `entry` always (waiting behind a failed one is a failure too).
    public func deliver(_ entry: WorkspaceOutboxEntry) async throws -> [(operationId: String, outcome: Outcome)] {
        let outbox = outbox
        return try await chain(for: entry.chat).run { [self] in
            var results = await self.deliverInOrder(entry.chat, through: entry.operationId)
            if !results.contains(where: { $0.operationId == entry.operationId }) {
                let stored = await outbox.pendingEntries(in: entry.chat).first { $0.operationId == entry.operationId }
                let outcome: Outcome =
                    switch stored {
                    case nil: .alreadyCompleted
                    case let stored? where stored.acceptedByDesktop: .accepted
                    case _?: .failed("An earlier message of this chat is not delivered yet; this one is sent after it.")
                    }
                results.append((entry.operationId, outcome))
            }
            return results
        }
    }

    /// Sends every pending entry of `chat` the desktop has not accepted, in order, with their
    /// original ids (after a timeout, a failure or a relaunch); stops at the first that fails.
    public func retryPending(in chat: WorkspaceChatKey) async throws -> [(operationId: String, outcome: Outcome)] {
        try await chain(for: chat).run { [self] in
            await self.deliverInOrder(chat, through: nil)
        }
    }

    /// The messages this sender's attempts took out of the outbox undelivered (rejected for
    /// good by the desktop, or discarded for a cause on this device) since the last call,
    /// oldest first, each once. The outcomes ``deliver(_:)`` and ``retryPending(in:)`` return
    /// say the same; this keeps each message's text for a caller that must not lose one, such
    /// as a command that reports every earlier message of a chat it sent first. At most
    /// ``maximumUndeliveredKept`` are kept.
    public func takeUndelivered() -> [Undelivered] {
        defer { undelivered = [] }
        return undelivered
    }

    /// Inside the chat's chain: attempts its unaccepted entries as stored now, in order, up to
    /// `last` (all when `nil`), stopping after the first that neither was accepted nor decided.
    private func deliverInOrder(_ chat: WorkspaceChatKey, through last: String?) async -> [(
        operationId: String, outcome: Outcome
    )] {
        var results: [(operationId: String, outcome: Outcome)] = []
        for entry in await outbox.pendingEntries(in: chat) where !entry.acceptedByDesktop {
            let outcome = await attempt(entry)
            results.append((entry.operationId, outcome))
            switch outcome {
            case .rejected, .discarded:
                undelivered.append(Undelivered(entry: entry, outcome: outcome))
                if undelivered.count > Self.maximumUndeliveredKept { undelivered.removeFirst() }
            case .accepted, .timedOut, .failed, .alreadyCompleted: break
            }
            if entry.operationId == last { break }
            switch outcome {
            case .accepted, .rejected, .discarded, .alreadyCompleted: continue
            case .timedOut, .failed: return results
            }
        }
        return results
    }

    /// History (or the overlay) now carries these operations: they complete.
    public func confirm(_ operationIds: [String], in chat: WorkspaceChatKey) async throws {
        let outbox = outbox
        let staging = staging
        try await chain(for: chat).run {
            for operationId in operationIds {
                do {
                    try await outbox.complete(operationId, in: chat)
                } catch WorkspaceOutboxError.unknownOperation {
                    continue  // not one of ours (sent from another device)
                }
                await staging?.remove(operationId: operationId)
            }
        }
    }

    /// The chat's chain, shared with every other sender over the outbox: a chat opened again
    /// (a new composer and sender) waits for the attempt an earlier opening started.
    private func chain(for chat: WorkspaceChatKey) -> SerialAsyncChain {
        outbox.changes(in: chat)
    }

    /// One attempt: upload the staged attachments, send, wait at most 20 s, record the result.
    private func attempt(_ stored: WorkspaceOutboxEntry) async -> Outcome {
        var entry = stored
        if !entry.stagedAttachments.isEmpty, let stopped = await uploadStaged(&entry) {
            return stopped
        }
        let outcome = await send(entry)
        var updated = entry
        do {
            switch outcome {
            case .accepted:
                updated.status = .accepted
                updated.acceptedByDesktop = true
                try await outbox.update(updated)
                await staging?.remove(operationId: entry.operationId)
            case .rejected, .discarded:
                // The text is kept before the entry leaves: one of them holds it at every moment.
                if let held = await keepText(of: entry, outcome) { return held }
                try await outbox.complete(entry.operationId, in: entry.chat)
                await staging?.remove(operationId: entry.operationId)
            case .timedOut, .failed:
                updated.status = .awaitingRetry
                try await outbox.update(updated)
            case .alreadyCompleted:
                break
            }
        } catch WorkspaceOutboxError.operationCompleted {
            await staging?.remove(operationId: entry.operationId)
            return .alreadyCompleted
        } catch WorkspaceOutboxError.operationAccepted {
            // A newer attempt got the desktop's receipt; this one's late outcome does not count.
            return .accepted
        } catch {
            return .failed(String(describing: error))
        }
        return outcome
    }

    /// Uploads `entry`'s staged attachments in order. Each finished upload id is saved into
    /// the entry (and leaves the staged list) before the next upload starts, so a crash never
    /// loses an id nor uploads a finished file again; an interrupted upload resumes from the
    /// first chunk the desktop lacks (the staged path, and so the upload key, is the same).
    /// Returns the outcome to stop with, or `nil` when every file is uploaded.
    private func uploadStaged(_ entry: inout WorkspaceOutboxEntry) async -> Outcome? {
        guard let uploader, let staging else {
            return await hold(
                entry,
                "its attachments wait in the outbox and this sender cannot upload them; the app or 'sybil workspaces send' sends it"
            )
        }
        // Every stored path must be this entry's own copy before anything is read or sent.
        for staged in entry.stagedAttachments {
            do {
                try await staging.confine(staged, operationId: entry.operationId)
            } catch {
                return await setAside(entry, because: error)
            }
        }
        while let staged = entry.stagedAttachments.first {
            do {
                try await staging.verify(staged)
            } catch {
                // Only a copy known to be missing or changed is lost for good; a read that
                // failed for another reason is held, like a transport failure.
                if case .damaged = error { return await rejectForGood(entry, .discarded(reason: error.description)) }
                return await hold(entry, error.description)
            }
            let result: AttachmentUploadResult
            do {
                result = try await uploader.upload(staged.file, to: entry.chat)
            } catch {
                if case .refused = error {
                    return await rejectForGood(entry, .rejected(reason: error.description))
                }
                return await hold(entry, "\(staged.fileName) is not uploaded yet: \(error)")
            }
            var next = entry
            next.mutation.attachments.append(result.uploadId)
            next.stagedAttachments.removeFirst()
            do {
                try await outbox.update(next)
            } catch WorkspaceOutboxError.operationCompleted {
                await staging.remove(operationId: entry.operationId)
                return .alreadyCompleted
            } catch WorkspaceOutboxError.operationAccepted {
                return .accepted
            } catch {
                return .failed(String(describing: error))
            }
            entry = next
        }
        return nil
    }

    /// The stored entry names a file that is not its own copy: it leaves the outbox, kept
    /// under ``WorkspaceOutbox/asideKey``, and nothing of it is uploaded or sent.
    private func setAside(_ entry: WorkspaceOutboxEntry, because error: WorkspaceStagingError) async -> Outcome {
        let outcome = Outcome.discarded(
            reason: "\(error.description); the stored entry was kept under \(WorkspaceOutbox.asideKey).")
        if let held = await keepText(of: entry, outcome) { return held }
        do {
            try await outbox.setAside(entry.operationId, in: entry.chat)
        } catch WorkspaceOutboxError.operationCompleted {
            return .alreadyCompleted
        } catch {
            return .failed(String(describing: error))
        }
        return outcome
    }

    /// The attempt stops before the message was sent; it is retried with the same ids.
    private func hold(_ entry: WorkspaceOutboxEntry, _ reason: String) async -> Outcome {
        var updated = entry
        updated.status = .awaitingRetry
        do {
            try await outbox.update(updated)
        } catch WorkspaceOutboxError.operationCompleted {
            return .alreadyCompleted
        } catch WorkspaceOutboxError.operationAccepted {
            return .accepted
        } catch {
            return .failed(String(describing: error))
        }
        return .failed(reason)
    }

    /// An attachment can never be sent: the message leaves the outbox with its copies, and the
    /// attempt ends with `outcome` (``Outcome/rejected(reason:)`` when the desktop refused it,
    /// ``Outcome/discarded(reason:)`` when the cause is on this device).
    private func rejectForGood(_ entry: WorkspaceOutboxEntry, _ outcome: Outcome) async -> Outcome {
        if let held = await keepText(of: entry, outcome) { return held }
        do {
            try await outbox.complete(entry.operationId, in: entry.chat)
        } catch {
            return .failed(String(describing: error))
        }
        await staging?.remove(operationId: entry.operationId)
        return outcome
    }

    /// Saves the text of `entry`, which is about to leave the outbox with `outcome`, in
    /// ``keptTexts`` (a blank text has nothing to keep). Returns `nil` when it may leave, or
    /// the outcome to stop with when the text could not be saved: the entry then stays in the
    /// outbox (its one saved copy) and is attempted again later.
    private func keepText(of entry: WorkspaceOutboxEntry, _ outcome: Outcome) async -> Outcome? {
        guard let keptTexts, !entry.mutation.text.allSatisfy(\.isWhitespace) else { return nil }
        let message: WorkspaceUndeliveredMessages.Message
        switch outcome {
        case .rejected(let reason): message = .init(entry: entry, cause: .rejected, reason: reason)
        case .discarded(let reason): message = .init(entry: entry, cause: .discarded, reason: reason)
        case .accepted, .timedOut, .failed, .alreadyCompleted: return nil
        }
        // Not saved: the outbox entry stays the one copy, and the list stays as it was.
        guard await !keptTexts.keepIfSaved(message) else { return nil }
        let problem = await keptTexts.saveProblem ?? "The messages kept undelivered could not be saved."
        return await hold(entry, "\(problem) The message stays in the outbox.")
    }

    private func send(_ entry: WorkspaceOutboxEntry) async -> Outcome {
        let rpc = rpc
        let clock = clock
        do {
            let submission = entry.submission
            let receipt = try await withThrowingTaskGroup(of: WorkspaceSubmitReceipt?.self) { group in
                group.addTask { try await rpc.codexChatSubmit(submission) }
                group.addTask {
                    try await clock.sleep(for: Self.receiptTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            guard let receipt else { return .timedOut }
            guard receipt.operationId == entry.operationId, receipt.mutationId == entry.mutation.mutationId else {
                return .failed(
                    "The desktop answered for \(receipt.operationId)/\(receipt.mutationId), not for \(entry.operationId)/\(entry.mutation.mutationId)."
                )
            }
            switch receipt.outcome {
            case .accepted: return .accepted
            case .rejected(let reason): return .rejected(reason: reason)
            }
        } catch let error as WorkspaceDesktopError where error.isFinalRefusal {
            // The same call can never succeed (a reused key, an unknown session, a refused
            // request): the desktop's answer is final, like a rejection.
            return .rejected(reason: error.description)
        } catch {
            return .failed(String(describing: error))
        }
    }
}
