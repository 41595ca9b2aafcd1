import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An append-only journal of checksummed records kept beside a snapshot file: each change is
/// one record appended and flushed (one `fsync` for every record of a batch), instead of a
/// rewrite of the whole snapshot.
///
/// Format (all integers little-endian):
///
/// ```text
/// header  "SYBJRNL1" (8 bytes) | base: UInt64 | check: UInt32      (20 bytes)
/// record  length: UInt32 | check: UInt32 | payload (length bytes)
/// ```
///
/// `base` is ``fingerprint(_:)`` of the snapshot the records apply to, so a journal left
/// behind by a compaction that already wrote its records into a new snapshot is recognised as
/// superseded. `check` is the FNV-1a 64 hash (``FNV1a64``) of the header's first 16 bytes, or of
/// the payload, folded to 32 bits. Reading stops at the first record that is incomplete or
/// fails its check: when the bytes from there to the end are no more than that one record
/// could leave (its 8-byte frame and its declared length), that is what a crash in the middle
/// of an append leaves, and such a record was never reported as written (an append counts once
/// its `fsync` returned; a failed append cuts its bytes off again). More bytes than that mean
/// the journal is damaged in the middle: the complete records before the damage are read, and
/// ``Contents/damage`` says why the file must be kept aside before anything truncates it.
public enum AppendJournal {
    /// The first eight bytes of every journal.
    public static let magic: [UInt8] = Array("SYBJRNL1".utf8)
    /// The header's size in bytes.
    public static let headerSize = 20
    /// The largest record read or written (bytes of payload).
    public static let maxRecordBytes = 32 << 20

    /// The steps of an append, in order; tests stop an append after any of them to simulate a
    /// crash there.
    public enum Step: Sendable, Hashable, CaseIterable {
        /// The journal was opened (created when new); nothing written yet.
        case opened
        /// The records were written (not yet flushed).
        case wrote
        /// The journal was flushed to disk (not reported for an append without `sync`).
        case synced
        /// The append is durable (for a new journal, its directory entry was flushed too).
        case committed
    }

    /// What a journal file holds.
    public enum Reading: Sendable, Hashable {
        /// There is no journal.
        case missing
        /// The file is shorter than a header and starts like one: a journal whose creation
        /// was cut off; it holds no record.
        case tornHeader
        /// The file is not a journal (its header is wrong); its bytes must be kept.
        case unreadable(reason: String)
        /// The header's base and the complete records, in order.
        case journal(Contents)
    }

    /// A readable journal.
    public struct Contents: Sendable, Hashable {
        /// ``fingerprint(_:)`` of the snapshot the records apply to.
        public var base: UInt64
        /// Every complete record's payload, in order.
        public var records: [[UInt8]]
        /// Where the complete records end (the next append goes there).
        public var validLength: Int
        /// The file's length (more than ``validLength`` when a torn record or damage follows).
        public var fileLength: Int
        /// Why the bytes after the complete records are more than a torn append leaves (the
        /// file is damaged; keep it aside, do not append), or `nil`.
        public var damage: String?

        /// A journal's contents.
        public init(base: UInt64, records: [[UInt8]], validLength: Int, fileLength: Int, damage: String? = nil) {
            self.base = base
            self.records = records
            self.validLength = validLength
            self.fileLength = fileLength
            self.damage = damage
        }
    }

    /// The fingerprint of a snapshot (its length and FNV-1a 64 hash); an absent snapshot is
    /// the fingerprint of no bytes.
    public static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        var hash = FNV1a64()
        hash.update(bytes)
        return hash.value ^ (UInt64(bytes.count) &* 0x9e37_79b9_7f4a_7c15)
    }

    /// Reads the journal at `path`; a file over `maxBytes` (its size asked before anything is
    /// read) is unreadable and is not read.
    public static func read(_ path: String, maxBytes: Int = Int.max) throws -> Reading {
        switch try BoundedFile.read(path, maxBytes: maxBytes) {
        case .missing: return .missing
        case .tooLarge(let size):
            return .unreadable(reason: "it holds \(size) bytes, over the limit of \(maxBytes)")
        case .bytes(let bytes): return parse(bytes)
        }
    }

    /// Parses journal bytes.
    public static func parse(_ bytes: [UInt8]) -> Reading {
        guard bytes.count >= headerSize else {
            let prefix = bytes.prefix(magic.count)
            return prefix.elementsEqual(magic.prefix(prefix.count))
                ? .tornHeader : .unreadable(reason: "it does not start with a journal header")
        }
        guard bytes.prefix(magic.count).elementsEqual(magic) else {
            return .unreadable(reason: "it does not start with a journal header")
        }
        guard check(bytes[0..<16]) == integer(bytes, at: 16, size: 4) else {
            return .unreadable(reason: "its header fails its check")
        }
        let base = integer(bytes, at: 8, size: 8)
        var records: [[UInt8]] = []
        var offset = headerSize
        while bytes.count - offset >= 8 {
            let length = Int(integer(bytes, at: offset, size: 4))
            let expected = integer(bytes, at: offset + 4, size: 4)
            guard length <= maxRecordBytes, bytes.count - offset - 8 >= length else { break }
            let payload = bytes[(offset + 8)..<(offset + 8 + length)]
            guard check(payload) == expected else { break }
            records.append(Array(payload))
            offset += 8 + length
        }
        // One torn record leaves at most its frame and its declared length.
        var damage: String?
        let rest = bytes.count - offset
        if rest >= 8 {
            let length = Int(integer(bytes, at: offset, size: 4))
            if length > maxRecordBytes {
                damage = "the record at byte \(offset) declares \(length) bytes, over the limit of \(maxRecordBytes)"
            } else if rest > 8 + length {
                damage =
                    "the record at byte \(offset) fails its check and \(rest - 8 - length) bytes follow it"
            }
        }
        return .journal(
            Contents(base: base, records: records, validLength: offset, fileLength: bytes.count, damage: damage))
    }

    /// A header naming `base`.
    public static func header(base: UInt64) -> [UInt8] {
        var bytes = magic
        append(base, size: 8, to: &bytes)
        append(check(bytes[0..<16]), size: 4, to: &bytes)
        return bytes
    }

    /// `payload` framed as a record.
    public static func record(_ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 8)
        append(UInt64(payload.count), size: 4, to: &bytes)
        append(check(payload[...]), size: 4, to: &bytes)
        bytes += payload
        return bytes
    }

    /// Appends `payloads` as records with one write and one `fsync`, and returns the journal's
    /// new length.
    ///
    /// - Parameters:
    ///   - offset: where the records go (the end of the complete records); `nil` creates the
    ///     journal anew (replacing whatever file is there) with a header naming `base`.
    ///   - fileLength: the file's current length; when longer than `offset` (a torn record
    ///     follows), the file is cut back first.
    ///   - sync: whether to flush the journal before returning; without it the records are
    ///     written (a crash of the process keeps them) and reach the disk with the next flush
    ///     of the journal (a power loss may lose them, and ``Step/synced`` is not reported).
    ///     A new journal is always flushed.
    ///   - checkpoint: runs after each step; an error it throws stops the append there, as a
    ///     crash would (nothing more is done). A ``StorageError`` it throws stands for the
    ///     system call before it failing instead (tests): then, as for a failed write or
    ///     `fsync`, the journal is cut back to where it ended before this append (best effort),
    ///     so that a record reported as not written is not read by the next launch.
    public static func append(
        _ payloads: [[UInt8]], to path: String, at offset: Int?, fileLength: Int, base: UInt64, sync: Bool = true,
        checkpoint: (Step) throws -> Void = { _ in }
    ) throws -> Int {
        for payload in payloads where payload.count > maxRecordBytes {
            throw StorageError(
                operation: "append", path: path,
                reason: "a record of \(payload.count) bytes is over the limit of \(maxRecordBytes)")
        }
        let creating = offset == nil
        let flags = creating ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_WRONLY | O_CLOEXEC
        let descriptor = open(path, flags, 0o600)
        guard descriptor >= 0 else { throw AtomicFile.systemError(creating ? "create" : "open", path) }
        defer { close(descriptor) }
        let start = offset ?? 0
        if !creating && fileLength > start {
            guard ftruncate(descriptor, off_t(start)) == 0 else { throw AtomicFile.systemError("truncate", path) }
        }
        try checkpoint(.opened)
        do {
            return try write(
                payloads, to: descriptor, path: path, at: start, base: base, creating: creating, sync: sync,
                checkpoint: checkpoint)
        } catch let error as StorageError {
            // The records may be on disk although the append failed: cut them off again.
            _ = ftruncate(descriptor, off_t(creating ? 0 : start))
            _ = fsync(descriptor)
            throw error
        }
    }

    /// Writes and flushes the records of ``append(_:to:at:fileLength:base:sync:checkpoint:)``.
    private static func write(
        _ payloads: [[UInt8]], to descriptor: Int32, path: String, at start: Int, base: UInt64, creating: Bool,
        sync: Bool, checkpoint: (Step) throws -> Void
    ) throws -> Int {
        var bytes = creating ? header(base: base) : []
        bytes.reserveCapacity(bytes.count + payloads.reduce(0) { $0 + $1.count + 8 })
        for payload in payloads { bytes += record(payload) }
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = pwrite(
                    descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(start + written))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw AtomicFile.systemError("write", path)
                }
                written += result
            }
        }
        try checkpoint(.wrote)
        if sync || creating {
            guard fsync(descriptor) == 0 else { throw AtomicFile.systemError("fsync", path) }
            try checkpoint(.synced)
        }
        if creating { try AtomicFile.syncDirectory(containing: path) }
        try checkpoint(.committed)
        return start + bytes.count
    }

    private static func check(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash = FNV1a64()
        hash.update(bytes)
        return (hash.value ^ (hash.value >> 32)) & 0xffff_ffff
    }

    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }

    private static func append(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}
