import Dispatch
import SybilStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file an Agent room outbox lives in: `<directory>/<scope file name>`, replaced
/// atomically (``AtomicFile``: temporary file, fsync, rename, fsync of the directory) on
/// every change. All file work runs on a serial dispatch queue of its own, never on the
/// cooperative pool or the main thread.
///
/// Unreadable content is never overwritten: it is moved (or copied) aside to
/// `<file>.unreadable-<n>` first, `n` the first free number.
public final class AgentOutboxFile: Sendable {
    /// The outbox file.
    public let path: String
    /// Its directory.
    public let directory: String
    private let checkpoint: @Sendable (AtomicFile.Step) throws -> Void
    private let queue = DispatchQueue(label: "sybil.agent-outbox.file")

    /// The file of `scope` in `directory`. `checkpoint` runs after each step of every write;
    /// an error it throws stops the write there, as a crash would (tests).
    public init(
        directory: String, scope: AgentOutboxScope,
        checkpoint: @escaping @Sendable (AtomicFile.Step) throws -> Void = { _ in }
    ) {
        self.directory = directory
        self.path = directory + "/" + scope.fileName
        self.checkpoint = checkpoint
    }

    /// Creates the directory (mode 0700) and reads the file; `nil` when there is none.
    func open() async throws(AgentOutboxError) -> [UInt8]? {
        let (directory, path) = (directory, path)
        return try await perform {
            try AtomicFile.createDirectory(directory)
            return try AtomicFile.read(path)
        }
    }

    /// Replaces the content with `bytes`; when this returns they are on disk.
    func write(_ bytes: [UInt8]) async throws(AgentOutboxError) {
        let (path, checkpoint) = (path, checkpoint)
        try await perform { try AtomicFile.write(bytes, to: path, checkpoint: checkpoint) }
    }

    /// Renames the file aside; returns where it went.
    func moveAside() async throws(AgentOutboxError) -> String {
        let path = path
        return try await perform {
            let aside = try Self.freeAsidePath(for: path)
            guard rename(path, aside) == 0 else {
                throw StorageError(
                    operation: "rename", path: "\(path)' to '\(aside)", reason: String(cString: strerror(errno)))
            }
            return aside
        }
    }

    /// Writes a copy of `bytes` aside; returns where.
    func copyAside(_ bytes: [UInt8]) async throws(AgentOutboxError) -> String {
        let path = path
        return try await perform {
            let aside = try Self.freeAsidePath(for: path)
            try AtomicFile.write(bytes, to: aside)
            return aside
        }
    }

    /// `<path>.unreadable-<n>` for the first `n` from 1 that does not exist yet.
    static func freeAsidePath(for path: String) throws -> String {
        for number in 1...10_000 {
            let candidate = "\(path).unreadable-\(number)"
            if access(candidate, F_OK) != 0 {
                guard errno == ENOENT else {
                    throw StorageError(operation: "check", path: candidate, reason: String(cString: strerror(errno)))
                }
                return candidate
            }
        }
        throw StorageError(operation: "move aside", path: path, reason: "10,000 unreadable copies already exist")
    }

    /// Runs `work` on the file queue.
    private func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws(AgentOutboxError) -> T {
        let result: Result<T, AgentOutboxError> = await withCheckedContinuation { continuation in
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
