import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A document kept as a snapshot file (replaced atomically by ``AtomicFile``) and beside it the
/// journal `<snapshot>.journal` (an ``AppendJournal``) of the changes made since: a change is
/// one or more records appended with one `fsync`; a compaction writes a new snapshot
/// atomically and then removes the journal. A crash at any step leaves either the old snapshot
/// with its journal or the new snapshot (with, at most, the old journal, which names the old
/// snapshot as its base and whose changes the new snapshot shows: it is replaced by the next
/// append). A journal naming another snapshot whose changes that snapshot does not show is
/// never discarded: it is renamed to `<file>.superseded-<n>.journal`. A snapshot written
/// before the journal existed is a snapshot without a journal and opens as it is.
///
/// What a record means belongs to the owner (the Agent room outbox, the workspace outbox):
/// this type only keeps the bytes and says which records apply. Its methods do file work on
/// the caller's thread; the owner runs them on a queue of its own. Unreadable content is never
/// overwritten: it is moved (or copied) aside to `<file>.unreadable-<n>` first, `n` the first
/// free number. Nothing is read whole before its size is known.
public final class JournaledFile: Sendable {
    /// A step of a write, reported to the checkpoint.
    public enum Step: Sendable, Hashable {
        /// A step of an append to the journal.
        case append(AppendJournal.Step)
        /// A step of the atomic replacement of the snapshot (a compaction).
        case snapshot(AtomicFile.Step)
        /// The compaction removed the journal it folded into the snapshot.
        case removedJournal

        /// Every step, appends first, then a compaction's.
        public static let allCases: [Step] =
            AppendJournal.Step.allCases.map(Step.append) + AtomicFile.Step.allCases.map(Step.snapshot)
            + [.removedJournal]
    }

    /// What ``open(maxSnapshotBytes:maxJournalBytes:isFolded:)`` found.
    public struct Loaded: Sendable {
        /// The snapshot's bytes, `nil` when there is none.
        public var snapshot: [UInt8]?
        /// The journal's records that apply to that snapshot, in order.
        public var records: [[UInt8]]
        /// Why the journal could not be read (its bytes must be kept aside), or `nil`.
        public var unreadableJournal: String?
        /// Bytes in the journal.
        public var journalBytes: Int
        /// Why the snapshot was not read (it and its journal must be moved aside), or `nil`.
        public var unreadableSnapshot: String?
        /// Whether the journal was not read because of its size (it must be moved aside, not
        /// copied).
        public var oversizedJournal = false
        /// Where a journal naming another snapshot, with changes that snapshot lacks, was
        /// renamed, or `nil`.
        public var supersededJournal: String?
    }

    /// Where the next append goes.
    private enum Mode: Sendable {
        /// After the complete records of a journal based on `base`.
        case append(base: UInt64, end: Int, fileLength: Int)
        /// A new journal (replacing any superseded one) based on `base`.
        case create(base: UInt64)
        /// A write failed part-way: only a compaction may write next.
        case broken
    }

    /// The snapshot file.
    public let path: String
    /// The journal file.
    public let journalPath: String
    /// Their directory.
    public let directory: String
    private let checkpoint: @Sendable (Step) throws -> Void
    private let mode = Locked(Mode.broken)

    /// The snapshot `directory/fileName` and its journal. `checkpoint` runs after each step of
    /// every write; an error it throws stops the write there, as a crash would (tests).
    public init(
        directory: String, fileName: String, checkpoint: @escaping @Sendable (Step) throws -> Void = { _ in }
    ) {
        self.directory = directory
        self.path = directory + "/" + fileName
        self.journalPath = path + ".journal"
        self.checkpoint = checkpoint
    }

    /// The snapshot at `path` and the records of its journal that apply to it, as a launch
    /// reads them; `nil` when there is neither. For tests and tools: it never writes.
    public static func stored(at path: String) throws -> (snapshot: [UInt8]?, records: [[UInt8]])? {
        let snapshot = try AtomicFile.read(path)
        var records: [[UInt8]] = []
        if case .journal(let contents) = try AppendJournal.read(path + ".journal"),
            contents.base == AppendJournal.fingerprint(snapshot ?? [])
        {
            records = contents.records
        }
        guard snapshot != nil || !records.isEmpty else { return nil }
        return (snapshot, records)
    }

    /// Creates the directory (mode 0700) and reads the snapshot and its journal. A snapshot
    /// over `maxSnapshotBytes`, or a journal over `maxJournalBytes`, is not read (its size is
    /// asked first) and is reported unreadable. A journal that names another snapshot and holds
    /// changes that snapshot does not show (`isFolded` says whether the snapshot shows the
    /// records) is renamed aside (`<file>.superseded-<n>.journal`) and reported; one that a
    /// compaction folded into the snapshot before it stopped is left to be replaced.
    public func open(
        maxSnapshotBytes: Int, maxJournalBytes: Int, isFolded: (_ records: [[UInt8]], _ snapshot: [UInt8]) -> Bool
    ) throws -> Loaded {
        try AtomicFile.createDirectory(directory)
        var loaded = Loaded(snapshot: nil, records: [], unreadableJournal: nil, journalBytes: 0)
        switch try BoundedFile.read(path, maxBytes: maxSnapshotBytes) {
        case .missing: break
        case .bytes(let bytes): loaded.snapshot = bytes
        case .tooLarge(let size):
            // Nothing is read: the snapshot and its journal go aside together.
            loaded.unreadableSnapshot = "it holds \(size) bytes, over the limit of \(maxSnapshotBytes)"
            mode.withLock { $0 = .broken }
            return loaded
        }
        let base = AppendJournal.fingerprint(loaded.snapshot ?? [])
        switch try AppendJournal.read(journalPath, maxBytes: maxJournalBytes) {
        case .missing, .tornHeader:
            mode.withLock { $0 = .create(base: base) }
        case .unreadable(let reason):
            loaded.unreadableJournal = reason
            loaded.oversizedJournal = reason.hasPrefix("it holds ")
            mode.withLock { $0 = .broken }
        case .journal(let contents) where contents.base == base:
            loaded.records = contents.records
            loaded.journalBytes = contents.validLength
            if let damage = contents.damage {
                // Damaged in the middle: the records before the damage count, and the file is
                // kept aside before anything could cut the records after it off.
                loaded.unreadableJournal = damage
                mode.withLock { $0 = .broken }
            } else {
                mode.withLock { $0 = .append(base: base, end: contents.validLength, fileLength: contents.fileLength) }
            }
        case .journal(let contents):
            let folded = contents.damage == nil && isFolded(contents.records, loaded.snapshot ?? [])
            if !folded {
                // Not what a compaction leaves: the snapshot lacks its changes. Kept aside.
                let aside = try Self.freeAsidePath(for: path, kind: "superseded") + ".journal"
                guard rename(journalPath, aside) == 0 else {
                    throw StorageError(
                        operation: "rename", path: "\(journalPath)' to '\(aside)",
                        reason: String(cString: strerror(errno)))
                }
                loaded.supersededJournal = aside
            }
            // Otherwise superseded: a compaction wrote its records into the snapshot and
            // stopped before removing it.
            mode.withLock { $0 = .create(base: base) }
        }
        return loaded
    }

    /// Appends `records` to the journal with one write and one `fsync` (with `sync`; otherwise
    /// the next flushed append or compaction takes them to the disk); when this returns they
    /// are written. Returns the journal's length. Throws, changing nothing, after a failed
    /// write until a ``compact(_:)`` succeeds, and before ``open(maxSnapshotBytes:maxJournalBytes:isFolded:)``.
    public func append(_ records: [[UInt8]], sync: Bool = true) throws -> Int {
        let current = mode.withLock { $0 }
        mode.withLock { $0 = .broken }
        let base: UInt64
        let offset: Int?
        let fileLength: Int
        switch current {
        case .append(let journalBase, let end, let length): (base, offset, fileLength) = (journalBase, end, length)
        case .create(let journalBase): (base, offset, fileLength) = (journalBase, nil, 0)
        case .broken:
            throw StorageError(
                operation: "append", path: journalPath, reason: "an earlier write failed; the file must be compacted")
        }
        let checkpoint = checkpoint
        let end = try AppendJournal.append(
            records, to: journalPath, at: offset, fileLength: fileLength, base: base, sync: sync,
            checkpoint: { try checkpoint(.append($0)) })
        mode.withLock { $0 = .append(base: base, end: end, fileLength: end) }
        return end
    }

    /// Replaces the snapshot with `bytes` (every change so far) and removes the journal; when
    /// this returns they are on disk.
    public func compact(_ bytes: [UInt8]) throws {
        let checkpoint = checkpoint
        mode.withLock { $0 = .broken }
        try AtomicFile.write(bytes, to: path, checkpoint: { try checkpoint(.snapshot($0)) })
        // The old journal names the old snapshot: from here on it is superseded.
        try AtomicFile.remove(journalPath)
        try checkpoint(.removedJournal)
        mode.withLock { $0 = .create(base: AppendJournal.fingerprint(bytes)) }
    }

    /// Renames the snapshot (and its journal, to `<aside>.journal`) aside; returns where the
    /// snapshot went.
    public func moveAside() throws -> String {
        let aside = try Self.freeAsidePath(for: path)
        for (from, to) in [(path, aside), (journalPath, aside + ".journal")] where access(from, F_OK) == 0 {
            guard rename(from, to) == 0 else {
                throw StorageError(
                    operation: "rename", path: "\(from)' to '\(to)", reason: String(cString: strerror(errno)))
            }
        }
        return aside
    }

    /// Writes a copy of the snapshot's `bytes` (and of the journal as it is on disk, to
    /// `<aside>.journal`) aside; returns where. With `movingJournal` (a journal too large to
    /// read) the journal is renamed there instead of copied.
    public func copyAside(_ bytes: [UInt8]?, movingJournal: Bool = false) throws -> String {
        let aside = try Self.freeAsidePath(for: path)
        if let bytes { try AtomicFile.write(bytes, to: aside) }
        if movingJournal {
            guard rename(journalPath, aside + ".journal") == 0 || errno == ENOENT else {
                throw StorageError(
                    operation: "rename", path: "\(journalPath)' to '\(aside).journal'",
                    reason: String(cString: strerror(errno)))
            }
        } else if let journal = try AtomicFile.read(journalPath) {
            try AtomicFile.write(journal, to: aside + ".journal")
        }
        return aside
    }

    /// `<path>.<kind>-<n>` (`unreadable` unless told) for the first `n` from 1 that does not
    /// exist yet (nor its journal copy).
    public static func freeAsidePath(for path: String, kind: String = "unreadable") throws -> String {
        for number in 1...10_000 {
            let candidate = "\(path).\(kind)-\(number)"
            if try !exists(candidate), try !exists(candidate + ".journal") { return candidate }
        }
        throw StorageError(operation: "move aside", path: path, reason: "10,000 \(kind) copies already exist")
    }

    private static func exists(_ path: String) throws -> Bool {
        if access(path, F_OK) == 0 { return true }
        guard errno == ENOENT else {
            throw StorageError(operation: "check", path: path, reason: String(cString: strerror(errno)))
        }
        return false
    }
}
