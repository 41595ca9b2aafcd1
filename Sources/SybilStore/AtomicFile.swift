#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file reads and crash-safe whole-file replacement: the new bytes go to a temporary
/// file beside the target, which is flushed to disk, renamed over the target, and the
/// directory flushed, so that a crash at any point leaves either the old or the new content,
/// never a torn mix.
public enum AtomicFile {
    /// The steps of a replacement, in order; tests stop a write after any of them to simulate
    /// a crash there.
    public enum Step: Sendable, Hashable, CaseIterable {
        /// The temporary file was created (empty).
        case createdTemporary
        /// The new bytes were written to it.
        case wroteTemporary
        /// The temporary file was flushed to disk.
        case syncedTemporary
        /// It was renamed over the target.
        case renamed
        /// The directory entry was flushed to disk.
        case syncedDirectory
    }

    /// The temporary file a replacement of `path` writes first.
    public static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Replaces the content of `path` with `bytes` atomically (mode 0600 for a new file).
    /// `checkpoint` runs after each step; an error it throws stops the write there, as a
    /// crash would (the temporary file is left behind, as a crash would leave it).
    public static func write(
        _ bytes: [UInt8], to path: String, checkpoint: (Step) throws -> Void = { _ in }
    ) throws {
        let temporary = temporaryPath(for: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw systemError("create", temporary) }
        var closed = false
        defer { if !closed { close(descriptor) } }
        try checkpoint(.createdTemporary)
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = posixWrite(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw systemError("write", temporary)
                }
                written += result
            }
        }
        try checkpoint(.wroteTemporary)
        guard fsync(descriptor) == 0 else { throw systemError("fsync", temporary) }
        try checkpoint(.syncedTemporary)
        closed = true
        guard close(descriptor) == 0 else { throw systemError("close", temporary) }
        guard rename(temporary, path) == 0 else { throw systemError("rename", "\(temporary)' to '\(path)") }
        try checkpoint(.renamed)
        try syncDirectory(containing: path)
        try checkpoint(.syncedDirectory)
    }

    /// The whole content of `path`, or `nil` when it does not exist.
    public static func read(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw systemError("open", path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw systemError("read", path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }

    /// Removes `path` (and a temporary file a crash may have left); a missing file is fine.
    public static func remove(_ path: String) throws {
        for target in [path, temporaryPath(for: path)] where unlink(target) != 0 && errno != ENOENT {
            throw systemError("remove", target)
        }
        try syncDirectory(containing: path)
    }

    /// Creates `path` and its parents with mode 0700 where missing, flushing each new folder's
    /// entry into its parent.
    public static func createDirectory(_ path: String) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o700) == 0 {
                // The new folder's entry is durable only once its parent is flushed: without
                // it a power loss could take the folder, and every file synced inside it.
                try syncDirectory(containing: current)
            } else if errno != EEXIST {
                throw systemError("create directory", current)
            }
        }
    }

    static func syncDirectory(containing path: String) throws {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let target = directory.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : directory
        let descriptor = open(target, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw systemError("open directory", target) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw systemError("fsync directory", target) }
    }

    static func systemError(_ operation: String, _ path: String) -> StorageError {
        StorageError(operation: operation, path: path, reason: String(cString: strerror(errno)))
    }
}

// `write` and `read` are shadowed inside `AtomicFile` by its own methods.
@inline(__always)
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

@inline(__always)
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
