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
    private var document: WorkspaceOutboxDocument
    private var completedThisProcess: Set<String> = []
    /// What could not be read at launch, one sentence each (empty when all was fine).
    public let loadProblems: [String]

    /// Loads the outbox from `store` (a launch): completed operations are removed and a new
    /// generation begins. Throws only when the store itself fails. The load runs on the
    /// caller's thread; every later change is saved on `executor` (a queue of its own).
    public init(
        store: any KeyValueStore, executor: SerialQueueExecutor = SerialQueueExecutor(label: "sybil.workspace-outbox")
    ) throws {
        self.store = store
        self.executor = executor
        var problems: [String] = []
        var document = WorkspaceOutboxDocument()
        if let bytes = try store.data(forKey: Self.storageKey) {
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
        document.startNewGeneration()
        try store.set(Array(JSONWriter().string(from: document.jsonValue).utf8), forKey: Self.storageKey)
        self.document = document
        self.loadProblems = problems
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
        let limit = WorkspaceOutboxEntry.maximumStagedAttachments
        guard entry.stagedAttachments.count <= limit else {
            throw .tooManyStagedAttachments(count: entry.stagedAttachments.count, limit: limit)
        }
        guard !completedThisProcess.contains(entry.operationId) else {
            throw .operationCompleted(entry.operationId)
        }
        guard document.state(of: entry.operationId, in: entry.chat) == nil else {
            throw .duplicateOperation(entry.operationId)
        }
        try change { $0.set(.pending(entry), for: entry.operationId, in: entry.chat) }
    }

    /// Replaces a pending entry. A completed operation cannot be changed or brought back.
    public func update(_ entry: WorkspaceOutboxEntry) throws(WorkspaceOutboxError) {
        guard !completedThisProcess.contains(entry.operationId) else {
            throw .operationCompleted(entry.operationId)
        }
        guard case .pending? = document.state(of: entry.operationId, in: entry.chat) else {
            throw .unknownOperation(entry.operationId)
        }
        try change { $0.set(.pending(entry), for: entry.operationId, in: entry.chat) }
    }

    /// Marks an operation completed: history carries it, or the desktop rejected it for good.
    /// Completing twice is harmless.
    public func complete(_ operationId: String, in chat: WorkspaceChatKey) throws(WorkspaceOutboxError) {
        guard !completedThisProcess.contains(operationId) else { return }
        guard case .pending? = document.state(of: operationId, in: chat) else {
            throw .unknownOperation(operationId)
        }
        try change { $0.set(.completed, for: operationId, in: chat) }
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

    /// Applies `edit` to a copy, saves it, and only then adopts it.
    private func change(_ edit: (inout WorkspaceOutboxDocument) -> Void) throws(WorkspaceOutboxError) {
        var next = document
        edit(&next)
        do {
            try store.set(Array(JSONWriter().string(from: next.jsonValue).utf8), forKey: Self.storageKey)
        } catch {
            throw .storage(String(describing: error))
        }
        document = next
    }
}
