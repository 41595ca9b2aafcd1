import Foundation
import Observation
import SybilCore
import SybilStore
import SybilWire

/// The Agent room outbox (SPEC §6, §6.1): messages queued while the agent works, saved
/// in files scoped to the API base URL before anything is sent (a snapshot and a journal
/// of changes, ``AgentOutboxFile``), each with a stable request id and `createdAt` that
/// survive relaunch.
///
/// Every change is applied to a copy of ``AgentOutboxQueue`` (the rules), written to the
/// file, and only then adopted and published; a change that cannot be saved is not made and
/// its caller gets the error (a composer keeps its draft). Changes made while a write is in
/// flight are saved together by the next write (one journal record, one `fsync`), in the
/// order they were asked for, so a burst of changes (an echo arriving while the next message
/// starts) costs one write, not one each.
///
/// Main-actor isolated and observable for the UI; the file work runs on the file's own queue.
@MainActor
@Observable
public final class AgentOutbox {
    /// Where the outbox is kept.
    public let scope: AgentOutboxScope
    /// The outbox file.
    public let file: AgentOutboxFile
    /// What could not be read at launch (the bytes were kept aside); empty when all was well.
    public let loadProblems: [AgentOutboxError]
    /// The rules' state as saved.
    public private(set) var queue: AgentOutboxQueue
    /// Counts saved changes (a signal for whoever follows the outbox).
    public private(set) var revision = 0
    /// The last save that failed, until one succeeds.
    public private(set) var storageFailure: AgentOutboxError?
    /// Changes asked for and not saved yet (the one being written included).
    public private(set) var pendingChanges = 0

    @ObservationIgnored private let ids: any IDGenerator
    @ObservationIgnored private let now: @Sendable () -> Int64
    @ObservationIgnored private var staged: [StagedChange] = []
    /// ``queue`` with the changes being written applied; equal to it between writes. Kept
    /// apart (and changed in place, as ``queue`` is once a write succeeded) so that a change
    /// never copies the whole queue.
    @ObservationIgnored private var pending: AgentOutboxQueue
    @ObservationIgnored private var writing = false
    /// The background compaction, if one was started; cancelled when the outbox is released.
    @ObservationIgnored private let compaction = OwnedTasks<BackgroundWork>()

    private enum BackgroundWork: Hashable, Sendable { case compaction }
    /// Each entry's bytes as last written.
    @ObservationIgnored private var encodedEntries: [String: (entry: AgentOutboxEntry, bytes: [UInt8])] = [:]
    /// The bytes of ``encodedEntries`` together (kept as they change).
    @ObservationIgnored private var encodedBytes = 0
    /// Entries a journal record changed since their bytes in ``encodedEntries`` were made:
    /// encoded again when ``encodedBytes`` is read (an enqueue's size check) or by a
    /// compaction, not after every record (a delivered message changes its entry two or three
    /// times, and a removed one needs no new bytes at all).
    @ObservationIgnored private var staleEncoded: Set<String> = []
    @ObservationIgnored let changeSignal = GenerationSignal()
    /// What a running ``AgentOutboxSender`` can take from an enqueue now (it sets this): a
    /// message queued then that is next in line, or right behind the request that is out, is
    /// saved as `sending` by its enqueue's own write (one `fsync` for both) and handed over.
    @ObservationIgnored var handOffSlot = HandOffSlot.closed
    /// The entry an enqueue saved as `sending` for the waiting sender, until the sender takes
    /// it (``takeHandOff(_:)``) or it is put back (``returnHandOff()``).
    @ObservationIgnored private var handedOff: String?
    /// Whether the next save must write a snapshot (none on disk yet, or a write failed
    /// part-way, or what was read had to be repaired).
    @ObservationIgnored private var needsSnapshot = true
    /// Whether the next write is a compaction (asked for, or due).
    @ObservationIgnored private var compactionRequested = false
    /// The journal's size, and the snapshot's, in bytes.
    @ObservationIgnored private var journalBytes = 0
    @ObservationIgnored private var snapshotBytes = 0
    /// The journal's size from which a compaction starts after a save.
    @ObservationIgnored private var compactAfter = 1 << 20
    /// This boot's identity (``BootIdentity``), or `nil`: every `sending` state is flushed then.
    @ObservationIgnored private let boot: String?
    /// Whether the journal on disk holds an open claim (written with `fsync`): `sending` states
    /// are then written without `fsync` (see ``Flush``).
    @ObservationIgnored private var claimOpen = false

    private init(
        scope: AgentOutboxScope, file: AgentOutboxFile, queue: AgentOutboxQueue, loadProblems: [AgentOutboxError],
        ids: any IDGenerator, now: @escaping @Sendable () -> Int64, boot: String?
    ) {
        self.boot = boot
        self.scope = scope
        self.file = file
        self.queue = queue
        self.pending = queue
        self.loadProblems = loadProblems
        self.ids = ids
        self.now = now
    }

    /// Opens (a launch) the outbox of `baseURL` in `directory` (created when missing):
    /// entries that were `sending` fail with Retry, and that is saved before this returns.
    /// A file that cannot be read is moved aside (or, when only some entries are unreadable,
    /// copied aside while the readable ones are kept) and reported in ``loadProblems``; it is
    /// never silently replaced. Throws when the file cannot be read or written at all.
    ///
    /// - Parameters:
    ///   - ids: makes request ids, unique across launches (UUIDs in the app; a repeated id is a
    ///     programming error).
    ///   - now: milliseconds since 1970 for `createdAt`.
    ///   - checkpoint: runs after each step of every write; tests throw from it to simulate a
    ///     crash there. An append to the journal reports `createdTemporary` once the journal is
    ///     open, `wroteTemporary` and `syncedTemporary` after its write and its `fsync`, and
    ///     `renamed` and `syncedDirectory` once it is durable; a compaction reports the steps
    ///     of its snapshot (``open(directory:baseURL:ids:now:compactAfter:journalCheckpoint:)``
    ///     tells every step apart).
    public static func open(
        directory: String, baseURL: URL, ids: any IDGenerator, now: @escaping @Sendable () -> Int64,
        checkpoint: @escaping @Sendable (AtomicFile.Step) throws -> Void = { _ in }
    ) async throws(AgentOutboxError) -> AgentOutbox {
        try await open(
            directory: directory, baseURL: baseURL, ids: ids, now: now,
            journalCheckpoint: { step in
                switch step {
                case .snapshot(let step): try checkpoint(step)
                case .append(.opened): try checkpoint(.createdTemporary)
                case .append(.wrote): try checkpoint(.wroteTemporary)
                case .append(.synced): try checkpoint(.syncedTemporary)
                case .append(.committed):
                    try checkpoint(.renamed)
                    try checkpoint(.syncedDirectory)
                case .removedJournal: break
                }
            })
    }

    /// Opens the outbox as ``open(directory:baseURL:ids:now:checkpoint:)`` does, with a
    /// checkpoint that tells appends and compactions apart.
    ///
    /// - Parameters:
    ///   - compactAfter: the journal's size (bytes) from which a compaction starts in the
    ///     background after a save (at least four times the last snapshot's size, so that
    ///     compacting costs a fraction of what the journal saved).
    ///   - journalCheckpoint: runs after each step of every write; tests throw from it to
    ///     simulate a crash there.
    ///   - boot: this boot's identity (``BootIdentity/current()``; tests pass their own to
    ///     simulate a restart of the device). `nil` writes every `sending` state with `fsync`.
    public static func open(
        directory: String, baseURL: URL, ids: any IDGenerator, now: @escaping @Sendable () -> Int64,
        compactAfter: Int = 1 << 20, journalCheckpoint: @escaping @Sendable (AgentOutboxFile.Step) throws -> Void,
        boot: String? = BootIdentity.current()
    ) async throws(AgentOutboxError) -> AgentOutbox {
        let scope = try AgentOutboxScope(baseURL: baseURL)
        let file = AgentOutboxFile(directory: directory, scope: scope, checkpoint: journalCheckpoint)
        // A boot id the journal could not read back is no boot id: every `sending` state is flushed.
        let boot = boot.flatMap { AgentOutboxJournal.isClaim(.string($0)) ? $0 : nil }
        let compactAfter = min(max(0, compactAfter), 1 << 40)
        var queue = AgentOutboxQueue()
        var problems: [AgentOutboxError] = []
        var needsSnapshot = true
        var mustWrite = false
        // The boot of a claim the journal left open: its `sending` states may be unflushed.
        var storedClaim: String?
        let loaded = try await file.open(maxJournalBytes: maxJournalBytes(compactAfter: compactAfter))
        if let reason = loaded.unreadableSnapshot {
            // Too large to read: the snapshot and its journal go aside unread.
            let aside = try await file.moveAside()
            problems = [.unreadable(path: file.path, keptAt: aside, reason: reason)]
        } else if loaded.snapshot == nil, let reason = loaded.unreadableJournal {
            // A journal that cannot be read, and no snapshot: the journal goes aside.
            let aside = try await file.moveAside()
            problems = [.unreadable(path: file.journalPath, keptAt: aside + ".journal", reason: reason)]
        } else if let snapshot = loaded.snapshot {
            needsSnapshot = false
            let (decoded, recordProblem, claim) = await Self.readStored(
                snapshot: snapshot, records: loaded.records, scope: scope)
            storedClaim = claim
            switch decoded {
            case .success(let (document, entryProblems)):
                queue = AgentOutboxQueue(entries: document.entries, retiredDraftIds: document.retiredDraftIds)
                var reasons = entryProblems.map { "an entry was left out: \($0)" }
                if let recordProblem {
                    reasons.append("the journal's changes from here on were left out: \(recordProblem)")
                }
                if let reason = loaded.unreadableJournal { reasons.append("the journal was left out: \(reason)") }
                if !reasons.isEmpty {
                    let aside = try await file.copyAside(snapshot, movingJournal: loaded.oversizedJournal)
                    problems = reasons.map { .unreadable(path: file.path, keptAt: aside, reason: $0) }
                    needsSnapshot = true
                    mustWrite = true
                }
            case .failure(let error):
                let aside = try await file.moveAside()
                problems = [.unreadable(path: file.path, keptAt: aside, reason: error.description)]
                needsSnapshot = true
            }
        }
        if let aside = loaded.supersededJournal {
            problems.append(
                .unreadable(
                    path: file.journalPath, keptAt: aside,
                    reason: "it names another snapshot than the one beside it, and that snapshot lacks its changes"))
        }
        let outbox = AgentOutbox(
            scope: scope, file: file, queue: queue, loadProblems: problems, ids: ids, now: now, boot: boot)
        outbox.needsSnapshot = needsSnapshot
        outbox.journalBytes = loaded.journalBytes
        outbox.snapshotBytes = loaded.snapshot?.count ?? 0
        outbox.compactAfter = compactAfter
        // Every entry's stored bytes, so that the size check of `enqueue` counts what is
        // already queued from the first message of this launch on.
        outbox.encodedEntries = await Self.encodedEntries(of: queue.entries)
        outbox.encodedBytes = outbox.encodedEntries.values.reduce(0) { $0 + $1.bytes.count }
        // A claim left open by another boot (or a boot this system cannot name): a queued entry
        // may have left with its unflushed `sending` state lost, so queued entries fail with
        // Retry too, and the claim is closed, flushed, before anything is sent. Of this boot (the
        // app died or quit, the kernel kept every write): the journal is whole and the claim
        // stays open (the next flushed write that leaves nothing `sending` closes it), so a
        // launch costs no write of its own. (Records left out as damage take their states with
        // them, flushed or not, as before claims existed.)
        let mayHaveLeft = storedClaim != nil && storedClaim != boot
        outbox.claimOpen = storedClaim != nil
        if !outbox.pending.relaunch(queuedMayHaveLeft: mayHaveLeft).isEmpty || mustWrite || mayHaveLeft {
            do {
                try await outbox.save(compacting: false)
            } catch {
                outbox.pending = outbox.queue
                throw error
            }
            _ = outbox.queue.relaunch(queuedMayHaveLeft: mayHaveLeft)
            _ = outbox.queue.takeChangedIds()
        }
        return outbox
    }

    /// The largest journal a launch reads (bytes): a compaction starts once it passes
    /// `compactAfter` or four times a snapshot (at most ``AgentOutboxDocument/maxBytes``), and
    /// one more batch (at most ``AppendJournal/maxRecordBytes``) may be appended before it runs.
    /// A larger journal is not read; it is moved aside.
    static func maxJournalBytes(compactAfter: Int) -> Int {
        4 * AgentOutboxDocument.maxBytes + min(max(0, compactAfter), 1 << 40) + AppendJournal.maxRecordBytes
            + AppendJournal.headerSize + 8
    }

    /// The stored document: the snapshot with the journal's records merged and decoded, off
    /// the main actor (an outbox may hold up to ``AgentOutboxDocument/maxBytes``, and a launch
    /// must not freeze the app while it is read); when the journal broke the document (it grew
    /// past what a launch reads, typically), the longest run of its first records that still
    /// decodes, and the problem with the first record left out.
    /// The claim is the one the records applied leave open.
    @concurrent
    private nonisolated static func readStored(
        snapshot: [UInt8], records: [[UInt8]], scope: AgentOutboxScope
    ) async -> (
        decoded: Result<(AgentOutboxDocument, [JSONError]), JSONError>, recordProblem: JSONError?, claim: String?
    ) {
        let merged = AgentOutboxJournal.merged(snapshot: snapshot, records: records)
        let decoded = decode(merged.bytes, scope: scope)
        guard case .failure(let error) = decoded, !records.isEmpty else {
            return (decoded, merged.problem, merged.claim)
        }
        let kept = longestDecodablePrefix(snapshot: snapshot, records: records, scope: scope)
        return (
            kept.decoded,
            .contract(.root.appending(key: "journal").appending(index: kept.count), error.description),
            merged.claim
        )
    }

    /// The document of the snapshot with the longest run of the journal's first records that
    /// still decodes (the records before the first one that breaks it; found by halving, each
    /// try a merge and a decode), and how many records that is.
    private nonisolated static func longestDecodablePrefix(
        snapshot: [UInt8], records: [[UInt8]], scope: AgentOutboxScope
    ) -> (count: Int, decoded: Result<(AgentOutboxDocument, [JSONError]), JSONError>) {
        func attempt(_ count: Int) -> Result<(AgentOutboxDocument, [JSONError]), JSONError> {
            decode(
                AgentOutboxJournal.merge(snapshot: snapshot, records: Array(records.prefix(count))).bytes, scope: scope)
        }
        // `good` decodes (or is 0, the snapshot alone); `bad` does not.
        var (good, bad) = (0, records.count)
        var best = attempt(0)
        while bad - good > 1 {
            let middle = (good + bad) / 2
            let result = attempt(middle)
            if case .success = result {
                (good, best) = (middle, result)
            } else {
                bad = middle
            }
        }
        return (good, best)
    }

    /// The stored document, refused as a whole when it belongs to another base URL.
    private nonisolated static func decode(
        _ bytes: [UInt8], scope: AgentOutboxScope
    ) -> Result<(AgentOutboxDocument, [JSONError]), JSONError> {
        do throws(JSONError) {
            let (document, problems) = try AgentOutboxDocument.decode(bytes)
            guard document.baseURL == scope.baseURL else {
                throw .contract(
                    .root.appending(key: "baseURL"),
                    "belongs to \(JSONWriter.quoted(document.baseURL)), not \(JSONWriter.quoted(scope.baseURL))")
            }
            return .success((document, problems))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Reading

    /// The entries in order, for the UI (bubbles with their state, failure, Retry/Discard).
    public var entries: [AgentOutboxEntry] { queue.entries }

    /// The entry with `requestId`.
    public func entry(_ requestId: String) -> AgentOutboxEntry? { queue.entry(requestId) }

    /// Whether the attachment draft `draftId` was already handed over (its entry is here or
    /// has left after delivery): a draft that finds itself here after a crash during the
    /// handoff is not sent again.
    public func contains(draftId: String) -> Bool { queue.contains(draftId: draftId) }

    /// What the sender should do next.
    public var nextAction: AgentOutboxQueue.Action { queue.nextAction }

    /// Why queued messages wait (“Waiting: “…” failed — Retry or Resend all.”), or `nil`.
    public var holdReason: String? { queue.holdReason }

    // MARK: Changes (each saved before it returns)

    // Confirmations and removals of confirmed entries, and acknowledgements saved with nothing
    // else, are written before they return but reach the disk with the next flushed write (one
    // `fsync` per message, not two or three): the room repeats them after a relaunch (its
    // echoes and history confirm again, and a Retry gets the same receipt), so a power loss can
    // only take the outbox back to an entry awaiting its echo or failed with Retry.

    /// Queues a message: a new request id from the injected generator and `createdAt` from the
    /// injected clock. It is saved before this returns; when saving fails this throws and
    /// nothing is queued (the caller keeps its draft). For a draft that is already queued,
    /// its entry is returned and nothing new is queued. When a running ``AgentOutboxSender``
    /// waits with nothing to send and this message is next in line, the same write saves it
    /// as `sending` (one `fsync` for both; a relaunch after it fails the entry with Retry, as
    /// any `sending` entry) and hands it to the sender: the entry returned is then `sending`.
    @discardableResult
    public func enqueue(
        text: String, attachments: [AgentAttachment] = [], draftId: String? = nil
    ) async throws(AgentOutboxError) -> AgentOutboxEntry {
        let entry = AgentOutboxEntry(
            requestId: ids.makeID(), text: text, createdAt: now(), attachments: attachments, draftId: draftId)
        // What is saved must read back: the document stays within what a launch reads (with
        // room for the frame and the retired draft ids).
        refreshEncoded()
        let size = encodedBytes + AgentOutboxDocument.encoded(entry: entry).count
        let limit = AgentOutboxDocument.maxBytes - (64 << 10)
        // (A draft already queued is answered with its entry and adds nothing.)
        let alreadyQueued = draftId.map { id in queue.entries.contains { $0.draftId == id } } ?? false
        if size > limit, !alreadyQueued { throw .storeFull(bytes: size, limit: limit) }
        // Decided when the change is first applied (the replay on the saved queue repeats it).
        let handingOff = Once<HandOffSlot>()
        return try await change(
            { (queue) throws(AgentOutboxError) in
                let queued = try queue.enqueue(entry)
                // The sender can take this new entry now: saved as sending in this write.
                let slot = handingOff.value {
                    guard queued.requestId == entry.requestId else { return .closed }
                    switch self.handOffSlot {
                    case .next where queue.nextAction == .send(queued): return .next
                    case .behind(let id) where queue.queuedBehind(id)?.requestId == queued.requestId:
                        return .behind(id)
                    default: return .closed
                    }
                }
                switch slot {
                case .closed: return queued
                case .next: _ = try? queue.beginSending(queued.requestId)
                case .behind(let id): _ = try? queue.beginSendingNext(after: id)
                }
                return queue.entry(queued.requestId) ?? queued
            },
            saved: { entry in
                // (A draft already queued answers with its entry, which is not handed over.)
                if let slot = handingOff.stored, slot != .closed, entry.state == .sending {
                    self.handedOff = entry.requestId
                }
            })
    }

    /// What a running sender can take from an enqueue (``handOffSlot``).
    enum HandOffSlot: Equatable {
        /// Nothing: the message is saved as `queued`.
        case closed
        /// The sender waits with nothing to send: a message that is next is saved as `sending`.
        case next
        /// Request `id` is out and nothing is saved ahead behind it: a message right behind it
        /// is saved as `sending` ahead of its turn (it leaves once `id` is acknowledged).
        case behind(String)
    }

    /// Takes the entry an enqueue saved as `sending` for the waiting sender (`requestId`, which
    /// ``nextAction`` names as in flight); false when it is not that one.
    func takeHandOff(_ requestId: String) -> Bool {
        guard handedOff == requestId else { return false }
        handedOff = nil
        return true
    }

    /// Puts an entry an enqueue saved as `sending` for the sender, and the sender never took,
    /// back to `queued` (the sender stopped); waits for a write under way that may hand one over.
    func returnHandOff() async {
        guard writing || handedOff != nil else { return }
        let returning = Once<String?>()
        _ = try? await change(
            { (queue) throws(AgentOutboxError) in
                guard let id = returning.value({ self.handedOff }) else { return }
                try queue.cancelSending(id)
            },
            saved: { _ in if let id = returning.stored, self.handedOff == id { self.handedOff = nil } })
    }

    /// Retry: a failed entry goes back to `queued` with its original request id and
    /// `createdAt`; it is sent in its turn.
    public func retry(_ requestId: String) async throws(AgentOutboxError) {
        try await change { (queue) throws(AgentOutboxError) in try queue.retry(requestId) }
    }

    /// Resend all: every failed entry Retry can help goes back to `queued`, in order, with its
    /// original ids. Returns their request ids.
    @discardableResult
    public func resendAll() async throws(AgentOutboxError) -> [String] {
        guard queue.entries.contains(where: \.canRetry) else { return [] }
        return try await change { queue in queue.resendAll() }
    }

    /// Discard: removes a queued or failed entry (a final refusal, typically) and returns it so
    /// its text can go back to the composer.
    @discardableResult
    public func discard(_ requestId: String) async throws(AgentOutboxError) -> AgentOutboxEntry {
        try await change { (queue) throws(AgentOutboxError) in try queue.discard(requestId) }
    }

    /// A message the room merged: confirms the entry whose request id it carries, in any
    /// state. Returns whether it confirmed one.
    @discardableResult
    public func confirm(echo message: AgentRoomMessage) async throws(AgentOutboxError) -> Bool {
        guard let requestId = message.requestId, let entry = queue.entry(requestId), entry.state != .confirmed else {
            return false
        }
        return try await change(durable: false) { queue in queue.confirm(echo: message) }
    }

    /// The room merged history through `cursor`: acknowledged entries at or before it are
    /// confirmed. Returns their request ids.
    @discardableResult
    public func confirmAcknowledged(through cursor: AgentCursor) async throws(AgentOutboxError) -> [String] {
        guard queue.hasAcknowledged(through: cursor) else { return [] }
        return try await change(durable: false) { queue in queue.confirmAcknowledged(through: cursor) }
    }

    /// The server that acknowledged these entries lost its history: those still awaiting their
    /// echo fail with `failure` (Retry sends them again with their request ids), saved and
    /// flushed before this returns, since nothing the room merges later would repeat it.
    /// Returns their request ids.
    @discardableResult
    public func failAcknowledged(_ requestIds: Set<String>, with failure: AgentOutboxFailure)
        async throws(AgentOutboxError) -> [String]
    {
        guard requestIds.contains(where: { queue.entry($0)?.state == .awaitingEcho }) else { return [] }
        return try await change { queue in queue.failAcknowledged(requestIds, with: failure) }
    }

    /// The room merged `message`, and history through `cursor`: its echo and every entry
    /// acknowledged at or before `cursor` are confirmed, and with `removingConfirmed` confirmed
    /// entries leave the outbox (history holds them now), all in one write. Returns whether
    /// anything changed.
    @discardableResult
    public func settle(
        merged message: AgentRoomMessage, through cursor: AgentCursor?, removingConfirmed: Bool
    ) async throws(AgentOutboxError) -> Bool {
        guard needsSettling(merged: message, through: cursor, removingConfirmed: removingConfirmed) else {
            return false
        }
        return try await change(durable: false) { queue in
            var changed = queue.confirm(echo: message)
            if let cursor { changed = !queue.confirmAcknowledged(through: cursor).isEmpty || changed }
            if removingConfirmed { changed = !queue.removeConfirmed().isEmpty || changed }
            return changed
        }
    }

    /// Whether ``settle(merged:through:removingConfirmed:)`` would change anything: `message`
    /// is the canonical echo (a user message) of an unconfirmed entry, an acknowledged entry
    /// lies at or before `cursor`, or a confirmed entry is waiting to be removed.
    public func needsSettling(merged message: AgentRoomMessage, through cursor: AgentCursor?, removingConfirmed: Bool)
        -> Bool
    {
        let echoes =
            message.role == .user
            && (message.requestId.flatMap { queue.entry($0) }.map { $0.state != .confirmed } ?? false)
        let passes = cursor.map { queue.hasAcknowledged(through: $0) } ?? false
        let leftover = removingConfirmed && queue.hasConfirmed
        return echoes || passes || leftover
    }

    /// Removes confirmed entries once history holds them; returns them.
    @discardableResult
    public func removeConfirmed() async throws(AgentOutboxError) -> [AgentOutboxEntry] {
        guard queue.hasConfirmed else { return [] }
        return try await change(durable: false) { queue in queue.removeConfirmed() }
    }

    /// Marks the next entry `sending` and saves that before returning what to submit (used by
    /// ``AgentOutboxSender``).
    public func beginSending(_ requestId: String) async throws(AgentOutboxError) -> AgentRoomSubmission {
        let flush: () -> Flush = { .sending }
        return try await change(flush: flush) { (queue) throws(AgentOutboxError) in try queue.beginSending(requestId) }
    }

    /// Whether an entry is queued right behind `inFlight` (the entry being submitted), to be
    /// marked `sending` ahead of its turn.
    public func hasNext(behind inFlight: String) -> Bool { queue.queuedBehind(inFlight) != nil }

    /// Records how earlier submissions ended (`outcomes`, acknowledgements whose saving waited
    /// for this write) and, with `behind`, marks the entry after that one (being submitted)
    /// `sending` ahead of its turn, in one save (used by ``AgentOutboxSender``
    /// while `behind`'s request is out). Returns what to submit once `behind` is acknowledged,
    /// or `nil` when nothing is queued behind it.
    /// With `beginningNext` instead, the next entry to send is marked `sending` and returned.
    ///
    /// Only a failure needs the `fsync`, and an entry marked `sending` while no claim of this
    /// boot is open (``Flush``): acknowledgements alone
    /// are written and reach the disk with the next flushed write (a power loss before it
    /// leaves the entry `sending`, which a relaunch fails with Retry; its echo, its history or
    /// the Retry's repeated receipt settles it, as after a lost acknowledgement).
    func finishSending(
        _ outcomes: [(requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>)],
        beginningNextBehind behind: String? = nil, beginningNext: Bool = false
    ) async throws(AgentOutboxError) -> AgentRoomSubmission? {
        let flushing = Once<Flush>()
        let flush = { flushing.stored ?? .always }
        return try await change(flush: flush) { queue in
            var failed = false
            for outcome in outcomes {
                if case .failed = queue.finishSending(outcome.requestId, result: outcome.result) { failed = true }
            }
            var next: AgentRoomSubmission?
            if let behind {
                next = try? queue.beginSendingNext(after: behind)
            } else if beginningNext, case .send(let entry) = queue.nextAction {
                next = try? queue.beginSending(entry.requestId)
            }
            _ = flushing.value { failed ? .always : next != nil ? .sending : .none }
            return next
        }
    }

    /// Records and saves how a submission ended (used by ``AgentOutboxSender``). With
    /// `beginningNext`, the next entry to send is marked `sending` in the same save and
    /// returned: one write between two submissions instead of two.
    @discardableResult
    public func finishSending(
        _ requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>, beginningNext: Bool = false
    ) async throws(AgentOutboxError) -> (outcome: AgentOutboxQueue.Outcome, next: AgentRoomSubmission?) {
        try await change { queue in
            let outcome = queue.finishSending(requestId, result: result)
            guard beginningNext, case .send(let next) = queue.nextAction else { return (outcome, nil) }
            return (outcome, try? queue.beginSending(next.requestId))
        }
    }

    /// Puts an entry saved as `sending` back to `queued` when its submission never left (used
    /// by ``AgentOutboxSender`` when it stops).
    public func cancelSending(_ requestId: String) async throws(AgentOutboxError) {
        try await change { (queue) throws(AgentOutboxError) in try queue.cancelSending(requestId) }
    }

    // MARK: Saving

    /// A change waiting to be saved: applies itself to the next queue and is told how the
    /// write went.
    private struct StagedChange {
        /// Applies the edit, keeping its result when asked to (the first time, to ``pending``;
        /// once saved, the same edit is applied to ``queue`` again, which reaches the same
        /// state). False when the rules refused it (the queue is unchanged then).
        let apply: (inout AgentOutboxQueue, _ keepingResult: Bool) -> Bool
        /// Called once with the write's error (`nil` when saved).
        let finish: (AgentOutboxError?) -> Void
        /// How the write must reach the disk before the change counts (asked once the change
        /// was applied).
        let flush: () -> Flush
    }

    /// How a change must reach the disk before it counts.
    ///
    /// A `sending` state tells a relaunch that its entry may have left (it fails with Retry):
    /// it must be on disk before the request leaves, and a process that dies keeps what it
    /// wrote, but only a flushed write survives a restart of the device. So the first write
    /// that saves a `sending` state is flushed and opens a claim naming this boot; while the
    /// claim is open, `sending` states (and the acknowledgements saved with them) are written
    /// without `fsync`, and a launch that finds the claim of another boot open fails every
    /// queued entry with Retry as well (one may have left with its state lost). A flushed
    /// write that leaves no entry `sending` closes the claim (everything before it is on disk
    /// then); a compaction does too. So messages queued while nothing was sending cost one
    /// `fsync` each, and sending them all one more.
    enum Flush: Int, Comparable {
        /// Written, not flushed: the room repeats the change after a relaunch (echoes and
        /// history confirm, a Retry gets the same receipt).
        case none
        /// Saves an entry `sending`: flushed unless a claim of this boot is open.
        case sending
        /// Flushed before it counts (what the user wrote, failures, Retry, Discard…).
        case always

        static func < (lhs: Flush, rhs: Flush) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// A value worked out when a change is first applied (to ``pending``) and kept for its
    /// replay on the saved queue, so that both reach the same state.
    private final class Once<Value> {
        private(set) var stored: Value?
        func value(_ make: () -> Value) -> Value {
            if let stored { return stored }
            let made = make()
            stored = made
            return made
        }
    }

    /// One result, filled in by the write that carries the change.
    private final class Ticket<T> {
        var value: Result<T, AgentOutboxError>?
        var saved = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    /// Applies `edit` to the queue as it will be after the changes asked for before it, saves
    /// the result, and only then adopts it. The first caller while no write runs does the
    /// writing (for the changes that arrive meanwhile too); the others wait for theirs.
    ///
    /// A change that is not `durable` counts once it is written (a crash of the process keeps
    /// it); it reaches the disk with the next flushed write. Only changes that the room
    /// repeats after a relaunch (its echoes and history confirm and retire entries again) may
    /// be saved so.
    private func change<T>(
        durable: Bool = true, _ edit: @escaping (inout AgentOutboxQueue) throws(AgentOutboxError) -> T,
        saved: ((T) -> Void)? = nil
    ) async throws(AgentOutboxError) -> T {
        let flush: Flush = durable ? .always : .none
        return try await change(flush: { flush }, edit, saved: saved)
    }

    /// ``change(durable:_:saved:)`` with how to flush decided once the change was applied;
    /// `saved` runs with the result once the change counts, before anyone is told of it.
    private func change<T>(
        flush: @escaping () -> Flush, _ edit: @escaping (inout AgentOutboxQueue) throws(AgentOutboxError) -> T,
        saved: ((T) -> Void)? = nil
    ) async throws(AgentOutboxError) -> T {
        let ticket = Ticket<T>()
        staged.append(
            StagedChange(
                apply: { queue, keepingResult in
                    // The rules change nothing when they refuse a change (they check first).
                    do throws(AgentOutboxError) {
                        let value = try edit(&queue)
                        if keepingResult { ticket.value = .success(value) }
                        return true
                    } catch {
                        if keepingResult { ticket.value = .failure(error) }
                        return false
                    }
                },
                finish: { error in
                    if let error, case .success? = ticket.value { ticket.value = .failure(error) }
                    if error == nil, case .success(let value)? = ticket.value { saved?(value) }
                    ticket.saved = true
                    ticket.continuation?.resume()
                    ticket.continuation = nil
                }, flush: flush))
        pendingChanges += 1
        if writing {
            if !ticket.saved {
                await withCheckedContinuation { ticket.continuation = $0 }
            }
        } else {
            writing = true
            while !staged.isEmpty { await writeStaged() }
            writing = false
            compactIfDue()
        }
        guard let value = ticket.value else { preconditionFailure("a staged change finished without a result") }
        return try value.get()
    }

    /// Saves every staged change with one write (an append to the journal, or a compaction
    /// when one is asked for or due).
    private func writeStaged() async {
        let batch = staged
        staged.removeAll()
        var changed = false
        for change in batch where change.apply(&pending, true) {
            changed = true
        }
        let compacting = compactionRequested
        compactionRequested = false
        var failure: AgentOutboxError?
        if changed || compacting {
            do {
                try await save(compacting: compacting, flush: batch.map { $0.flush() }.max() ?? .none)
                if changed {
                    Self.replay(batch, on: &queue)
                    revision += 1
                }
                storageFailure = nil
            } catch {
                failure = error
                storageFailure = error
                pending = queue
                _ = pending.takeChangedIds()
            }
        }
        pendingChanges -= batch.count
        for change in batch { change.finish(failure) }
        // A message handed to the sender that is no longer sending (a failure before it put it
        // back to queued) is not the sender's any more.
        if let id = handedOff, queue.entry(id)?.state != .sending { handedOff = nil }
        if failure == nil && changed { changeSignal.fire() }
    }

    /// Applies a saved batch to `queue` as it was applied to ``pending``.
    private static func replay(_ batch: [StagedChange], on queue: inout AgentOutboxQueue) {
        for change in batch { _ = change.apply(&queue, false) }
        _ = queue.takeChangedIds()
    }

    /// Writes ``pending`` (the queue after the changes): one journal record with what changed
    /// since ``queue``, or a new snapshot when `compacting`, when the journal cannot take the
    /// change, or when a snapshot is needed.
    private func save(compacting: Bool, flush: Flush = .always) async throws(AgentOutboxError) {
        let changedIds = pending.takeChangedIds()
        let next = pending
        var record: AgentOutboxJournal.Record?
        var durable = true
        var claim: AgentOutboxJournal.Claim?
        if !compacting && !needsSnapshot {
            (durable, claim) = claimDecision(flush, sendingAfter: next.isSending)
            record = AgentOutboxJournal.record(changed: changedIds, from: queue, to: next, claim: claim) {
                self.encoded($0)
            }
            // Nothing to record (e.g. an entry added and removed in the same batch).
            if record == nil { return }
        }
        do {
            if let record {
                journalBytes = try await file.append(record.bytes, sync: durable)
                if let claim { claimOpen = claim != .close }
                for id in record.removed {
                    encodedBytes -= encodedEntries.removeValue(forKey: id)?.bytes.count ?? 0
                    staleEncoded.remove(id)
                }
                for entry in record.touched { staleEncoded.insert(entry.requestId) }
            } else {
                let bytes = encode(next)
                try await file.compact(bytes)
                // A snapshot holds no claim, and every state in it is flushed.
                claimOpen = false
                needsSnapshot = false
                journalBytes = 0
                snapshotBytes = bytes.count
            }
        } catch {
            needsSnapshot = true
            throw error
        }
    }

    /// Whether a journal record made with `flush` is flushed, and the claim it opens or closes
    /// (``Flush``); `sendingAfter`: an entry is `sending` once it is written.
    private func claimDecision(_ flush: Flush, sendingAfter: Bool) -> (durable: Bool, claim: AgentOutboxJournal.Claim?)
    {
        switch flush {
        case .none: return (false, nil)
        case .sending where claimOpen: return (false, nil)
        case .sending, .always:
            if sendingAfter { return (true, claimOpen ? nil : boot.map { .open($0) }) }
            return (true, claimOpen ? .close : nil)
        }
    }

    /// Compacts now: writes a snapshot of the outbox and removes the journal. Saves also
    /// start one in the background once the journal has grown past the size given to
    /// ``open(directory:baseURL:ids:now:compactAfter:journalCheckpoint:)``.
    public func compact() async throws(AgentOutboxError) {
        compactionRequested = true
        try await change { _ in () }
    }

    /// Starts a compaction in the background when the journal has grown enough.
    private func compactIfDue() {
        guard !needsSnapshot, !compactionRequested, journalBytes > max(compactAfter, 4 * snapshotBytes) else {
            return
        }
        compactionRequested = true
        compaction.set(.compaction, Task { [weak self] in try? await self?.change { _ in () } })
    }

    /// An entry's stored bytes, from the cache when it has not changed.
    /// Every entry's stored bytes by request id, encoded off the main actor (a launch may
    /// find up to ``AgentOutboxDocument/maxBytes`` of them).
    @concurrent
    private nonisolated static func encodedEntries(
        of entries: [AgentOutboxEntry]
    ) async -> [String: (entry: AgentOutboxEntry, bytes: [UInt8])] {
        var cache: [String: (entry: AgentOutboxEntry, bytes: [UInt8])] = [:]
        cache.reserveCapacity(entries.count)
        for entry in entries { cache[entry.requestId] = (entry, AgentOutboxDocument.encoded(entry: entry)) }
        return cache
    }

    /// Encodes again the entries in ``staleEncoded`` that are still queued, so that
    /// ``encodedBytes`` counts every entry as it is now.
    private func refreshEncoded() {
        guard !staleEncoded.isEmpty else { return }
        for id in staleEncoded {
            if let entry = queue.entry(id) { _ = encoded(entry) }
        }
        staleEncoded.removeAll()
    }

    private func encoded(_ entry: AgentOutboxEntry) -> [UInt8] {
        if let cached = encodedEntries[entry.requestId], cached.entry == entry { return cached.bytes }
        let bytes = AgentOutboxDocument.encoded(entry: entry)
        encodedBytes +=
            bytes.count - (encodedEntries.updateValue((entry, bytes), forKey: entry.requestId)?.bytes.count ?? 0)
        return bytes
    }

    /// The document of `queue`, re-encoding only the entries that changed since the last
    /// write (a save costs a copy of the unchanged bytes, not a new encoding of every entry).
    private func encode(_ queue: AgentOutboxQueue) -> [UInt8] {
        var cache: [String: (entry: AgentOutboxEntry, bytes: [UInt8])] = [:]
        cache.reserveCapacity(queue.entries.count)
        let entries = queue.entries.map { entry -> [UInt8] in
            let bytes: [UInt8]
            if let cached = encodedEntries[entry.requestId], cached.entry == entry {
                bytes = cached.bytes
            } else {
                bytes = AgentOutboxDocument.encoded(entry: entry)
            }
            cache[entry.requestId] = (entry, bytes)
            return bytes
        }
        encodedEntries = cache
        encodedBytes = cache.values.reduce(0) { $0 + $1.bytes.count }
        staleEncoded.removeAll()
        return AgentOutboxDocument.encoded(
            baseURL: scope.baseURL, entries: entries, retiredDraftIds: queue.retiredDraftIds)
    }

    /// Wakes whoever waits in ``waitForChange(after:)`` without a change (e.g. to try a save
    /// again).
    func wakeWaiters() { changeSignal.fire() }
}
