import SybilCore
import SybilStore
import SybilWire

/// How the workspace outbox keeps its document in a ``FileKeyValueStore``: the store's file
/// for ``WorkspaceOutbox/storageKey`` is the snapshot (the whole ``WorkspaceOutboxDocument``,
/// as every earlier version wrote it, so an existing outbox opens as it is) and beside it a
/// journal (``JournaledFile``, the file work the Agent room outbox uses too) of the changes
/// made since: one record per save, holding each operation it changed, all or nothing,
///
/// ```json
/// {"changes": [{"desktopId": "d", "projectId": "p", "sessionId": "s", "operationId": "op-2",
///  "operation": {"state": "pending", "entry": {…}}}]}
/// ```
///
/// A save appends its record with one `fsync` (several entries queued together share it);
/// a launch, a failed write, or a journal grown past ``compactAfter`` (and four times the
/// snapshot) writes a new snapshot and removes the journal. The generation lives in the
/// snapshot: each launch begins one with a compaction.
///
/// Not thread-safe: the outbox actor owns it and calls it on its own executor.
final class WorkspaceOutboxJournal {
    /// The largest snapshot read (the JSON reader's own bound).
    static let maxSnapshotBytes = 64 << 20

    /// One stored change: the operation's new state.
    struct Change: Sendable, Hashable {
        var chat: WorkspaceChatKey
        var operationId: String
        var state: WorkspaceOutboxDocument.OperationState
    }

    /// An operation in its chat.
    private struct OperationKey: Hashable {
        var chat: WorkspaceChatKey
        var operationId: String
    }

    /// The snapshot and its journal.
    let files: JournaledFile
    /// The journal's size from which a compaction starts after a change.
    let compactAfter: Int
    /// Whether the next save must write a snapshot (none written this launch yet, or a write
    /// failed part-way).
    private(set) var needsSnapshot = true
    private var journalBytes = 0
    private var snapshotBytes = 0

    /// The journaled document of `store`'s ``WorkspaceOutbox/storageKey``.
    init(
        store: FileKeyValueStore, compactAfter: Int, checkpoint: @escaping @Sendable (JournaledFile.Step) throws -> Void
    ) {
        self.files = JournaledFile(
            directory: store.directory, fileName: WorkspaceOutbox.storageKey, checkpoint: checkpoint)
        self.compactAfter = min(max(0, compactAfter), 1 << 40)
    }

    /// The largest journal a launch reads (bytes).
    var maxJournalBytes: Int { 4 * Self.maxSnapshotBytes + compactAfter + AppendJournal.maxRecordBytes }

    /// Reads the snapshot and its journal (see ``JournaledFile/open(maxSnapshotBytes:maxJournalBytes:isFolded:)``).
    func open() throws -> JournaledFile.Loaded {
        let loaded = try files.open(
            maxSnapshotBytes: Self.maxSnapshotBytes, maxJournalBytes: maxJournalBytes, isFolded: Self.isFolded)
        journalBytes = loaded.journalBytes
        snapshotBytes = loaded.snapshot?.count ?? 0
        return loaded
    }

    /// Saves `changes`, which turn the saved document into `next`: their records appended with
    /// one `fsync`, or `next` written as a new snapshot when one is needed. When this throws,
    /// the next save writes a snapshot.
    func save(_ changes: [Change], next: WorkspaceOutboxDocument) throws {
        do {
            if needsSnapshot {
                try compact(next)
            } else {
                journalBytes = try files.append([Self.record(changes)])
            }
        } catch {
            needsSnapshot = true
            throw error
        }
    }

    /// Writes `document` as the new snapshot and removes the journal.
    func compact(_ document: WorkspaceOutboxDocument) throws {
        needsSnapshot = true
        let bytes = Self.encoded(document)
        try files.compact(bytes)
        needsSnapshot = false
        journalBytes = 0
        snapshotBytes = bytes.count
    }

    /// Whether the journal has grown enough that a compaction pays.
    var compactionDue: Bool {
        !needsSnapshot && journalBytes > max(compactAfter, 4 * snapshotBytes)
    }

    /// A document's stored bytes.
    static func encoded(_ document: WorkspaceOutboxDocument) -> [UInt8] {
        Array(JSONWriter().string(from: document.jsonValue).utf8)
    }

    /// The record of one save's `changes`.
    static func record(_ changes: [Change]) -> [UInt8] {
        let values: [JSONValue] = changes.map { change in
            [
                "desktopId": .string(change.chat.desktopId), "projectId": .string(change.chat.projectId),
                "sessionId": .string(change.chat.sessionId), "operationId": .string(change.operationId),
                "operation": WorkspaceOutboxDocument.stateJSON(change.state),
            ]
        }
        return Array(JSONWriter().string(from: ["changes": .array(values)]).utf8)
    }

    /// Decodes a record strictly (exact keys, each entry as the document holds it).
    static func changes(from record: [UInt8]) throws(JSONError) -> [Change] {
        let limits = JSONReader.Limits(maxBytes: AppendJournal.maxRecordBytes)
        let reader = try JSONObjectReader(try JSONReader(limits: limits).parse(record), at: .root)
        try reader.requireExactKeys(["changes"])
        var changes: [Change] = []
        for (index, value) in try reader.array("changes").enumerated() {
            let path = JSONPath.root.appending(key: "changes").appending(index: index)
            let change = try JSONObjectReader(value, at: path)
            try change.requireExactKeys(["desktopId", "projectId", "sessionId", "operationId", "operation"])
            let chat = WorkspaceChatKey(
                desktopId: try change.nonEmptyString("desktopId"), projectId: try change.nonEmptyString("projectId"),
                sessionId: try change.nonEmptyString("sessionId"))
            let operationId = try change.nonEmptyString("operationId")
            let state = try WorkspaceOutboxDocument.decodeState(
                try change.value("operation"), of: operationId, at: path.appending(key: "operation"), chat: chat)
            changes.append(Change(chat: chat, operationId: operationId, state: state))
        }
        return changes
    }

    /// Whether `snapshot` shows every change of `records`: for each operation its last state
    /// (a completed one may be gone: a launch removes those). What a compaction that stopped
    /// before removing the journal leaves.
    static func isFolded(_ records: [[UInt8]], into snapshot: [UInt8]) -> Bool {
        guard let (document, problems) = try? WorkspaceOutboxDocument.decode(snapshot), problems.isEmpty else {
            return false
        }
        var last: [OperationKey: WorkspaceOutboxDocument.OperationState] = [:]
        for record in records {
            guard let changes = try? changes(from: record) else { return false }
            for change in changes {
                last[OperationKey(chat: change.chat, operationId: change.operationId)] = change.state
            }
        }
        return last.allSatisfy { key, state in
            let stored = document.state(of: key.operationId, in: key.chat)
            switch state {
            case .completed: return stored == nil || stored == .completed
            case .pending: return stored == state
            }
        }
    }
}
