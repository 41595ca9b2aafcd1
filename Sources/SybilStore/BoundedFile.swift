#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole file only when its size (asked with `fstat` before any byte is read) is
/// within a bound, so a corrupt or sparse multi-gigabyte file cannot exhaust memory.
public enum BoundedFile {
    /// What ``read(_:maxBytes:)`` found.
    public enum Reading: Sendable, Hashable {
        /// There is no file.
        case missing
        /// The file is larger than the bound; nothing was read.
        case tooLarge(bytes: Int)
        /// The file's bytes.
        case bytes([UInt8])
    }

    /// Reads `path` whole when it holds at most `maxBytes` bytes. A file that grows while it
    /// is read is cut at `maxBytes + 1` bytes and reported as too large.
    public static func read(_ path: String, maxBytes: Int) throws -> Reading {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .missing }
            throw AtomicFile.systemError("open", path)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw AtomicFile.systemError("stat", path) }
        let size = Int(status.st_size)
        guard size <= maxBytes else { return .tooLarge(bytes: size) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let cap = maxBytes == Int.max ? Int.max : max(0, maxBytes) + 1
        while true {
            let wanted = min(chunk.count, cap - bytes.count)
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress!, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.systemError("read", path)
            }
            if count == 0 { return .bytes(bytes) }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes { return .tooLarge(bytes: bytes.count) }
        }
    }
}

// `read` is shadowed inside `BoundedFile` by its own method.
@inline(__always)
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
