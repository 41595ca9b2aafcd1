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
/// fails its check: that is what a crash in the middle of an append leaves, and such a record
/// was never reported as written (an append counts once its `fsync` returned).
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
        /// The file's length (more than ``validLength`` when a torn record follows).
        public var fileLength: Int
    }

    /// The fingerprint of a snapshot (its length and FNV-1a 64 hash); an absent snapshot is
    /// the fingerprint of no bytes.
    public static func fingerprint(_ bytes: [UInt8]) -> UInt64 {
        var hash = FNV1a64()
        hash.update(bytes)
        return hash.value ^ (UInt64(bytes.count) &* 0x9e37_79b9_7f4a_7c15)
    }

    /// Reads the journal at `path`.
    public static func read(_ path: String) throws -> Reading {
        guard let bytes = try AtomicFile.read(path) else { return .missing }
        return parse(bytes)
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
        return .journal(Contents(base: base, records: records, validLength: offset, fileLength: bytes.count))
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
    ///     crash would.
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
