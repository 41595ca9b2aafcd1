import Dispatch
import SybilCore
import SybilStore

/// The files an Agent room outbox lives in: a snapshot `<directory>/<scope file name>` (an
/// ``AgentOutboxDocument``, replaced atomically by ``AtomicFile``) and beside it the journal
/// `<snapshot>.journal` (an ``AppendJournal`` whose records are ``AgentOutboxJournal``
/// changes). A change is one record appended and flushed; a compaction writes a new snapshot
/// atomically and then removes the journal, so a crash at any step leaves either the old
/// snapshot with its journal or the new snapshot (with, at most, the old journal, which names
/// the old snapshot as its base and whose changes the new snapshot shows: it is replaced by the
/// next append). A journal naming another snapshot whose changes that snapshot does not show
/// is never discarded: it is renamed to `<file>.superseded-<n>.journal`. An outbox saved before
/// the journal existed is a snapshot without a journal and opens as it is. The file work is
/// ``JournaledFile``'s (shared with the workspace outbox); this type says what the records
/// mean and where the work runs.
///
/// All file work runs on a serial dispatch queue of its own, never on the cooperative pool or
/// the main thread. Unreadable content is never overwritten: it is moved (or copied) aside to
/// `<file>.unreadable-<n>` first, `n` the first free number. Nothing is read whole before its
/// size is known: a snapshot over ``AgentOutboxDocument/maxBytes`` or a journal over the bound
/// the outbox gives is unreadable and moved aside unread.
public final class AgentOutboxFile: Sendable {
    /// A step of a write, reported to the checkpoint.
    public typealias Step = JournaledFile.Step

    /// What ``open(maxJournalBytes:)`` found.
    typealias Loaded = JournaledFile.Loaded

    /// The snapshot and its journal (the file work shared with the workspace outbox).
    private let files: JournaledFile
    /// The snapshot file.
    public var path: String { files.path }
    /// The journal file.
    public var journalPath: String { files.journalPath }
    /// Their directory.
    public var directory: String { files.directory }
    private let queue = DispatchQueue(label: "sybil.agent-outbox.file")

    /// The files of `scope` in `directory`. `checkpoint` runs after each step of every write;
    /// an error it throws stops the write there, as a crash would (tests).
    public init(
        directory: String, scope: AgentOutboxScope, checkpoint: @escaping @Sendable (Step) throws -> Void = { _ in }
    ) {
        self.files = JournaledFile(directory: directory, fileName: scope.fileName, checkpoint: checkpoint)
    }

    /// The snapshot and the journal as one document (the snapshot's JSON with the journal's
    /// changes applied), as a launch reads them; `nil` when there is neither. For tests and
    /// tools: it never writes.
    public static func storedDocument(at path: String) throws -> [UInt8]? {
        guard let (snapshot, records) = try JournaledFile.stored(at: path) else { return nil }
        return AgentOutboxJournal.merge(snapshot: snapshot, records: records).bytes
    }

    /// Creates the directory (mode 0700) and reads the snapshot and its journal. A snapshot
    /// over ``AgentOutboxDocument/maxBytes``, or a journal over `maxJournalBytes`, is not read
    /// (its size is asked first) and is reported unreadable. A journal that names another
    /// snapshot and holds changes that snapshot does not show is renamed aside
    /// (`<file>.superseded-<n>.journal`) and reported; one that a compaction folded into the
    /// snapshot before it stopped is left to be replaced.
    func open(maxJournalBytes: Int) async throws(AgentOutboxError) -> Loaded {
        try await perform {
            try self.files.open(
                maxSnapshotBytes: AgentOutboxDocument.maxBytes, maxJournalBytes: maxJournalBytes,
                isFolded: AgentOutboxJournal.isFolded(_:into:))
        }
    }

    /// Appends `record` to the journal with one `fsync` (with `sync`; otherwise the next
    /// flushed append or compaction takes it to the disk); when this returns it is written.
    /// Returns the journal's length. Throws, changing nothing, after a failed write until a
    /// ``compact(_:)`` succeeds.
    func append(
        _ record: [UInt8], sync: Bool = true, isolation: isolated (any Actor)? = #isolation
    ) async throws(AgentOutboxError) -> Int {
        try await perform { try self.files.append([record], sync: sync) }
    }

    /// Replaces the snapshot with `bytes` (every change so far) and removes the journal; when
    /// this returns they are on disk.
    func compact(_ bytes: [UInt8], isolation: isolated (any Actor)? = #isolation) async throws(AgentOutboxError) {
        try await perform { try self.files.compact(bytes) }
    }

    /// Renames the snapshot (and its journal, to `<aside>.journal`) aside; returns where the
    /// snapshot went.
    func moveAside() async throws(AgentOutboxError) -> String {
        try await perform { try self.files.moveAside() }
    }

    /// Writes a copy of the snapshot's `bytes` (and of the journal as it is on disk, to
    /// `<aside>.journal`) aside; returns where. With `movingJournal` (a journal too large to
    /// read) the journal is renamed there instead of copied.
    func copyAside(_ bytes: [UInt8]?, movingJournal: Bool = false) async throws(AgentOutboxError) -> String {
        try await perform { try self.files.copyAside(bytes, movingJournal: movingJournal) }
    }

    /// Runs `work` on the file queue. The caller waits on its own actor (`isolation`): the
    /// queue resumes it there directly, without a stop on the cooperative pool on the way out
    /// and back (a journal write of the main-actor outbox is two thread hand-offs, not four).
    private func perform<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ work: @escaping @Sendable () throws -> T
    ) async throws(AgentOutboxError) -> T {
        let result: Result<T, AgentOutboxError> = await withCheckedContinuation(isolation: isolation) { continuation in
            queue.async {
                do {
                    continuation.resume(returning: .success(try work()))
                } catch let error as StorageError {
                    continuation.resume(returning: .failure(.storage(error)))
                } catch {
                    let reason = String(describing: error)
                    continuation.resume(
                        returning: .failure(.storage(StorageError(operation: "write", path: self.path, reason: reason)))
                    )
                }
            }
        }
        return try result.get()
    }
}
