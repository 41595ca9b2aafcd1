import SybilCore
import SybilStore
import SybilTimeline
import SybilWire

/// The phone's copy of the workspace outbox (SPEC §4.5): the desktop owns delivery, the phone
/// keeps a retry set so that nothing the user wrote is lost. Every change is saved before it
/// counts (and before anything is sent); a change that cannot be saved is not made.
///
/// A completed operation locks out stale writers for the rest of the process; at the next
/// launch completed operations are removed and a new generation begins. Unreadable stored
/// data is kept aside under ``asideKey`` and reported in ``loadProblems``; entries that can be
/// read are never dropped.
public actor WorkspaceOutbox {
    /// Where the outbox lives in the key-value store.
    public static let storageKey = "workspace-chat-local-outbox-v2"
    /// Where unreadable stored data is copied before the outbox starts over.
    public static let asideKey = "workspace-chat-local-outbox-v2.unreadable"

    /// Every save (a file write and its fsync with ``FileKeyValueStore``) runs on this queue,
    /// off the cooperative thread pool.
    private let executor: SerialQueueExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let store: any KeyValueStore
    /// The snapshot and journal of a ``FileKeyValueStore``; `nil` for other stores, where
    /// each change saves the whole document under ``storageKey``.
    private let journal: WorkspaceOutboxJournal?
    private var compactionScheduled = false
    /// The background compaction, if one was started; cancelled when the outbox is released.
    private let compaction = OwnedTasks<BackgroundWork>()

    private enum BackgroundWork: Hashable, Sendable { case compaction }
    private var document: WorkspaceOutboxDocument
    private var completedThisProcess: Set<String> = []
    /// One chain per chat, shared by every sender over this outbox (see ``changes(in:)``).
    private nonisolated let chains = Locked<[WorkspaceChatKey: SerialAsyncChain]>([:])
    /// What could not be read at launch, one sentence each (empty when all was fine).
    public let loadProblems: [String]

    /// Loads the outbox from `store` (a launch): completed operations are removed and a new
    /// generation begins. Throws only when the store itself fails. The load runs on the
    /// caller's thread; every later change is saved on `executor` (a queue of its own).
    ///
    /// With a ``FileKeyValueStore`` the outbox keeps a snapshot (the store's file for
    /// ``storageKey``, the whole document as before) and a journal beside it: a change appends
    /// what changed with one `fsync`, and the journal is folded into a new snapshot at each
    /// launch and in the background once it is larger than `compactAfter` bytes and four times
    /// the snapshot. Other stores save the whole document on each change.
    ///
    /// - Parameter journalCheckpoint: runs after each step of every write to the snapshot and
    ///   journal; tests throw from it to simulate a crash there.
    public init(
        store: any KeyValueStore, executor: SerialQueueExecutor = SerialQueueExecutor(label: "sybil.workspace-outbox"),
        compactAfter: Int = 1 << 20,
        journalCheckpoint: @escaping @Sendable (JournaledFile.Step) throws -> Void = { _ in }
    ) throws {
        self.store = store
        self.executor = executor
        let journal = (store as? FileKeyValueStore).map {
            WorkspaceOutboxJournal(store: $0, compactAfter: compactAfter, checkpoint: journalCheckpoint)
        }
        var problems: [String] = []
        var document = WorkspaceOutboxDocument()
        var stored: [UInt8]?
        var loaded: JournaledFile.Loaded?
        if let journal {
            let opened = try journal.open()
            if let reason = opened.unreadableSnapshot {
                let aside = try journal.files.moveAside()
                problems.append(
                    "The stored outbox could not be read (\(reason)); it was kept at \(aside) and the outbox starts empty."
                )
            } else {
                stored = opened.snapshot
                loaded = opened
            }
        } else {
            stored = try store.data(forKey: Self.storageKey)
        }
        if let bytes = stored {
            do {
                let (decoded, entryProblems) = try WorkspaceOutboxDocument.decode(bytes)
                document = decoded
                if !entryProblems.isEmpty {
                    try store.set(bytes, forKey: Self.asideKey)
                    problems = entryProblems.map {
                        "An outbox entry could not be read (\($0)); the stored data was kept under \(Self.asideKey)."
                    }
                }
            } catch {
                try store.set(bytes, forKey: Self.asideKey)
                problems = [
                    "The stored outbox could not be read (\(error)); it was kept under \(Self.asideKey) and the outbox starts empty."
                ]
            }
        }
        if let journal, let loaded {
            problems += try Self.replay(loaded, into: &document, journal: journal)
        }
        document.startNewGeneration()
        if let journal {
            try journal.compact(document)
        } else {
            try store.set(Array(JSONWriter().string(from: document.jsonValue).utf8), forKey: Self.storageKey)
        }
        self.journal = journal
        self.document = document
        self.loadProblems = problems
    }

    /// Applies the journal's records to `document`; a journal that could not be read whole, or
    /// a record that does not decode, is kept aside (`<file>.unreadable-<n>.journal`) before
    /// the launch's compaction removes it. Returns the problems, one sentence each.
    private static func replay(
        _ loaded: JournaledFile.Loaded, into document: inout WorkspaceOutboxDocument, journal: WorkspaceOutboxJournal
    ) throws -> [String] {
        var reasons: [String] = []
        for (index, record) in loaded.records.enumerated() {
            do throws(JSONError) {
                for change in try WorkspaceOutboxJournal.changes(from: record) {
                    document.set(change.state, for: change.operationId, in: change.chat)
                }
            } catch {
                reasons.append("its change \(index + 1) was left out: \(error)")
            }
        }
        if let reason = loaded.unreadableJournal { reasons.append("it was left out from here on: \(reason)") }
        var problems: [String] = []
        if !reasons.isEmpty {
            let aside = try journal.files.copyAside(nil, movingJournal: loaded.oversizedJournal) + ".journal"
            problems = reasons.map { "The outbox journal could not be read whole (\($0)); it was kept at \(aside)." }
        }
        if let aside = loaded.supersededJournal {
            problems.append(
                "An outbox journal named another snapshot than the one beside it, which lacks its changes; it was kept at \(aside)."
            )
        }
        return problems
    }

    /// The serial chain `chat`'s sends and confirmations run on: one per chat for the whole
    /// outbox, however many senders (screens opening the chat again, a composer per opening)
    /// work on it, so that an attempt never overlaps another of the same chat.
    public nonisolated func changes(in chat: WorkspaceChatKey) -> SerialAsyncChain {
        chains.withLock { chains in
            if let chain = chains[chat] { return chain }
            let chain = SerialAsyncChain()
            chains[chat] = chain
            return chain
        }
    }

    /// The generation this launch began.
    public var generation: Int64 { document.generation }

    /// Pending entries of `chat`, in the order they were queued.
    public func pendingEntries(in chat: WorkspaceChatKey) -> [WorkspaceOutboxEntry] {
        document.pendingEntries(in: chat)
    }

    /// Chats with pending entries.
    public var chatsWithPendingEntries: [WorkspaceChatKey] {
        document.scopes.filter { !document.pendingEntries(in: $0.chat).isEmpty }.map(\.chat)
    }

    /// The operation ids of every pending entry, in every chat.
    public var pendingOperationIds: Set<String> {
        Set(document.scopes.flatMap { document.pendingEntries(in: $0.chat).map(\.operationId) })
    }

    /// Queues a new entry (saved before this returns). An entry keeping more attachments
    /// waiting than ``WorkspaceOutboxEntry/maximumStagedAttachments`` is refused: it would not
    /// read back at the next launch, and the whole message would be lost.
    public func enqueue(_ entry: WorkspaceOutboxEntry) throws(WorkspaceOutboxError) {
        try enqueue(contentsOf: [entry])
    }

    /// Queues several new entries at once, saved together before this returns (with a
    /// ``FileKeyValueStore``, one append and one `fsync` for all of them). Each is checked as
    /// ``enqueue(_:)`` checks it; when one is refused, none is queued.
    public func enqueue(contentsOf entries: [WorkspaceOutboxEntry]) throws(WorkspaceOutboxError) {
        // Operations of this batch by chat and id: each is inserted with the same placeholder state.
        var seen: Set<WorkspaceOutboxJournal.Change> = []
        var changes: [WorkspaceOutboxJournal.Change] = []
        let limit = WorkspaceOutboxEntry.maximumStagedAttachments
        for entry in entries {
            guard entry.stagedAttachments.count <= limit else {
                throw .tooManyStagedAttachments(count: entry.stagedAttachments.count, limit: limit)
            }
            guard !completedThisProcess.contains(entry.operationId) else {
                throw .operationCompleted(entry.operationId)
            }
            let change = WorkspaceOutboxJournal.Change(
                chat: entry.chat, operationId: entry.operationId, state: .completed)
            guard document.state(of: entry.operationId, in: entry.chat) == nil, seen.insert(change).inserted else {
                throw .duplicateOperation(entry.operationId)
            }
            changes.append(.init(chat: entry.chat, operationId: entry.operationId, state: .pending(entry)))
        }
        guard !changes.isEmpty else { return }
        try change(changes)
    }

    /// Replaces a pending entry. A completed operation cannot be changed or brought back, and
    /// an operation the desktop accepted cannot be made unaccepted: a writer holding a view
    /// from before the acceptance (an attempt whose receipt timed out later) is refused.
    public func update(_ entry: WorkspaceOutboxEntry) throws(WorkspaceOutboxError) {
        guard !completedThisProcess.contains(entry.operationId) else {
            throw .operationCompleted(entry.operationId)
        }
        guard case .pending(let stored)? = document.state(of: entry.operationId, in: entry.chat) else {
            throw .unknownOperation(entry.operationId)
        }
        guard !stored.acceptedByDesktop || entry.acceptedByDesktop else {
            throw .operationAccepted(entry.operationId)
        }
        try change([.init(chat: entry.chat, operationId: entry.operationId, state: .pending(entry))])
    }

    /// Marks an operation completed: history carries it, or the desktop rejected it for good.
    /// Completing twice is harmless.
    public func complete(_ operationId: String, in chat: WorkspaceChatKey) throws(WorkspaceOutboxError) {
        guard !completedThisProcess.contains(operationId) else { return }
        guard case .pending? = document.state(of: operationId, in: chat) else {
            throw .unknownOperation(operationId)
        }
        try change([.init(chat: chat, operationId: operationId, state: .completed)])
        completedThisProcess.insert(operationId)
    }

    /// Takes a pending entry that cannot be trusted out of the outbox, keeping the stored
    /// outbox (with the entry) under ``asideKey`` first, as a launch does with unreadable
    /// entries; the operation then counts as completed.
    public func setAside(_ operationId: String, in chat: WorkspaceChatKey) throws(WorkspaceOutboxError) {
        guard !completedThisProcess.contains(operationId) else { throw .operationCompleted(operationId) }
        guard case .pending? = document.state(of: operationId, in: chat) else {
            throw .unknownOperation(operationId)
        }
        do {
            try store.set(Array(JSONWriter().string(from: document.jsonValue).utf8), forKey: Self.asideKey)
        } catch {
            throw .storage(String(describing: error))
        }
        try complete(operationId, in: chat)
    }

    /// Folds the journal into a new snapshot now (with a ``FileKeyValueStore``; nothing to do
    /// for other stores). Changes start one in the background when the journal has grown.
    public func compact() throws(WorkspaceOutboxError) {
        guard let journal else { return }
        do {
            try journal.compact(document)
        } catch {
            throw .storage(String(describing: error))
        }
    }

    /// Applies `changes` to a copy, saves them, and only then adopts the copy.
    private func change(_ changes: [WorkspaceOutboxJournal.Change]) throws(WorkspaceOutboxError) {
        var next = document
        for change in changes { next.set(change.state, for: change.operationId, in: change.chat) }
        do {
            if let journal {
                try journal.save(changes, next: next)
            } else {
                try store.set(Array(JSONWriter().string(from: next.jsonValue).utf8), forKey: Self.storageKey)
            }
        } catch {
            throw .storage(String(describing: error))
        }
        document = next
        if let journal, journal.compactionDue, !compactionScheduled {
            compactionScheduled = true
            compaction.set(.compaction, Task { [weak self] in await self?.compactInBackground() })
        }
    }

    /// The background compaction: a failure leaves the next change to write the snapshot.
    private func compactInBackground() {
        compactionScheduled = false
        guard let journal, journal.compactionDue else { return }
        try? journal.compact(document)
    }
}
