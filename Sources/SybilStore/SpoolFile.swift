import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written piece by piece under a temporary name, appended as a request body arrives or
/// written at offsets as chunks arrive in any order, then flushed to disk and renamed into
/// place in one step (``commit(to:checkpoint:)``), so a file at the final name is always
/// whole: a crash before the rename leaves only the temporary file, which its owner removes
/// when it next starts, and a crash after it leaves the whole file.
///
/// A spool ``created(in:prefix:)`` is its writer's alone and is removed when it is released
/// without being committed (a client that left mid-body); one ``opened(_:)`` by name outlives
/// its handle (a resumable upload's chunks), and its owner removes it. Safe to use from any
/// thread: one call at a time runs, in the order the calls came.
public final class SpoolFile: Sendable {
    /// The steps of a commit, in order; tests stop a commit after any of them to simulate a
    /// crash there.
    public enum Step: Sendable, Hashable, CaseIterable {
        /// The written bytes were flushed to disk.
        case synced
        /// The temporary file was renamed to its final name.
        case renamed
        /// The directory entry was flushed to disk.
        case syncedDirectory
    }

    private struct State: ~Copyable {
        /// The open descriptor; -1 once closed.
        var descriptor: Int32
        /// Where the next appended byte goes.
        var end: Int64
        /// Committed (or discarded): nothing more is written and nothing is removed on release.
        var settled = false
    }

    /// The temporary file's path.
    public let path: String
    /// Whether releasing the spool uncommitted removes its file.
    private let removeWhenReleased: Bool
    private let state: Locked<State>

    private init(path: String, descriptor: Int32, end: Int64, removeWhenReleased: Bool) {
        self.path = path
        self.removeWhenReleased = removeWhenReleased
        state = Locked(State(descriptor: descriptor, end: end))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { close(state.descriptor) }
            if removeWhenReleased && !state.settled { unlink(path) }
        }
    }

    /// A new, empty spool `<directory>/<prefix><random>` (mode 0600; `directory` is created,
    /// 0700, when missing), removed when released uncommitted.
    public static func created(in directory: String, prefix: String) throws -> SpoolFile {
        try AtomicFile.createDirectory(directory)
        var random = SystemRandomNumberGenerator()
        while true {
            let suffix = String(random.next() as UInt64, radix: 16)
            let path = directory + "/" + prefix + suffix
            let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                return SpoolFile(path: path, descriptor: descriptor, end: 0, removeWhenReleased: true)
            }
            // Another spool drew the same name: draw again.
            guard errno == EEXIST else { throw AtomicFile.systemError("create", path) }
        }
    }

    /// The spool at `path`, created (mode 0600, its directory 0700 when missing) when there is
    /// none; its bytes stay when it is released. Appends go after what it holds.
    public static func opened(_ path: String) throws -> SpoolFile {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        if !directory.isEmpty { try AtomicFile.createDirectory(directory) }
        var descriptor = open(path, O_RDWR | O_CLOEXEC)
        while descriptor < 0 && errno == ENOENT {
            descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                // A new file's name is durable only once its directory is flushed: what is
                // synced into it later (an answered chunk) must not vanish with its entry.
                do {
                    try AtomicFile.syncDirectory(containing: path)
                } catch {
                    close(descriptor)
                    throw error
                }
            } else if errno == EEXIST {
                // Created by another opener meanwhile: open that one.
                descriptor = open(path, O_RDWR | O_CLOEXEC)
            } else {
                break
            }
        }
        guard descriptor >= 0 else { throw AtomicFile.systemError("open", path) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let error = AtomicFile.systemError("stat", path)
            close(descriptor)
            throw error
        }
        return SpoolFile(path: path, descriptor: descriptor, end: Int64(status.st_size), removeWhenReleased: false)
    }

    /// The number of bytes up to the end of what was written.
    public var size: Int64 { state.withLock { $0.end } }

    /// Writes `bytes` after everything written so far.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        try state.withLock { state in
            try Self.write(bytes, at: state.end, to: &state, path: path)
            state.end += Int64(bytes.count)
        }
    }

    /// Writes `bytes` after everything written so far.
    public func append(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try append($0) }
    }

    /// Writes `bytes` at `offset` (a hole before it reads as zeros).
    public func write(_ bytes: [UInt8], at offset: Int64) throws {
        precondition(offset >= 0, "a spool offset is never negative")
        try state.withLock { state in
            try bytes.withUnsafeBytes { try Self.write($0, at: offset, to: &state, path: path) }
            state.end = max(state.end, offset + Int64(bytes.count))
        }
    }

    /// Flushes what was written to disk.
    public func sync() throws {
        try state.withLock { state in
            guard state.descriptor >= 0 else { throw StorageError(operation: "fsync", path: path, reason: "closed") }
            guard fsync(state.descriptor) == 0 else { throw AtomicFile.systemError("fsync", path) }
        }
    }

    /// Flushes the bytes to disk, closes the file, renames it to `finalPath` (replacing a file
    /// there) and flushes the directory. `checkpoint` runs after each step; an error it throws
    /// stops the commit there, as a crash would (what the step left stays, also on release).
    /// A failure before the rename leaves the temporary file to the spool (a created one is
    /// removed on release). Nothing can be written after a commit.
    public func commit(to finalPath: String, checkpoint: (Step) throws -> Void = { _ in }) throws {
        try state.withLock { state in
            guard state.descriptor >= 0, !state.settled else {
                throw StorageError(operation: "rename", path: path, reason: "the spool was already settled")
            }
            guard fsync(state.descriptor) == 0 else { throw AtomicFile.systemError("fsync", path) }
            do {
                try checkpoint(.synced)
            } catch {
                // Stopped as by a crash: the temporary file stays, also on release.
                state.settled = true
                throw error
            }
            let descriptor = state.descriptor
            state.descriptor = -1
            guard close(descriptor) == 0 else { throw AtomicFile.systemError("close", path) }
            guard rename(path, finalPath) == 0 else {
                throw AtomicFile.systemError("rename", "\(path)' to '\(finalPath)")
            }
            // The temporary name is free again: releasing the spool must not remove what another
            // spool may create under it.
            state.settled = true
            try checkpoint(.renamed)
            try AtomicFile.syncDirectory(containing: finalPath)
            try checkpoint(.syncedDirectory)
        }
    }

    /// Closes the file and removes it (nothing, once committed).
    public func discard() throws {
        try state.withLock { state in
            guard !state.settled else { return }
            if state.descriptor >= 0 { close(state.descriptor) }
            state.descriptor = -1
            state.settled = true
            guard unlink(path) == 0 || errno == ENOENT else { throw AtomicFile.systemError("remove", path) }
        }
    }

    /// Reads the file at `path` from its start in pieces of at most `pieceBytes` (one buffer,
    /// reused), calling `body` with each; returns the number of bytes read. Memory does not grow
    /// with the file.
    public static func readPieces(
        of path: String, pieceBytes: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        precondition(pieceBytes > 0, "a piece holds at least one byte")
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw AtomicFile.systemError("open", path) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pieceBytes, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = read(descriptor, buffer.baseAddress!, pieceBytes)
            if count < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.systemError("read", path)
            }
            if count == 0 { return total }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += Int64(count)
        }
    }

    private static func write(
        _ bytes: UnsafeRawBufferPointer, at offset: Int64, to state: inout State, path: String
    ) throws {
        guard state.descriptor >= 0, !state.settled else {
            throw StorageError(operation: "write", path: path, reason: "the spool was already settled")
        }
        var written = 0
        while written < bytes.count {
            let result = pwrite(
                state.descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if result < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.systemError("write", path)
            }
            written += result
        }
    }
}
