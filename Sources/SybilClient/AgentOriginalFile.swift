import Foundation

/// Writes an attachment's verified original to a file the person named or chose, never over
/// an existing file: the file is created exclusively (`O_CREAT | O_EXCL`, so a file that
/// appears between a check and the write is not replaced either). Shared by
/// `sybil agent download` and the app's export key.
public enum AgentOriginalFile {
    /// Why an original was not written.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// A file (or anything else) is already at this path.
        case exists(String)
        /// The file could not be created or written, with the system's reason.
        case cannotWrite(String, reason: String)

        public var description: String {
            switch self {
            case .exists(let path): "'\(path)' exists"
            case .cannotWrite(let path, let reason): "cannot write '\(path)' (\(reason))"
            }
        }
    }

    /// The most names ``save(_:named:in:)`` tries before giving up.
    public static let maxNameAttempts = 100

    /// Writes `bytes` to a new file at `path`; throws ``Failure/exists(_:)`` when anything is
    /// there already. A partly written file is removed.
    public static func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw .exists(path) }
            throw .cannotWrite(path, reason: String(cString: strerror(code)))
        }
        var written = 0
        var failure: Int32?
        bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                written += result
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if let failure {
            unlink(path)
            throw .cannotWrite(path, reason: String(cString: strerror(failure)))
        }
    }

    /// Writes `bytes` into `directory` under `fileName` (cleaned as the draft cleans names: no
    /// path, no control characters), or `name (2).ext`, `name (3).ext`… when that is taken;
    /// returns the path written. Never replaces a file.
    public static func save(_ bytes: [UInt8], named fileName: String, in directory: String) throws(Failure) -> String {
        let name = AgentAttachmentPreparer.displayName(fileName)
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var lastPath = base + name
        for attempt in 1...maxNameAttempts {
            let path = base + numbered(name, attempt)
            lastPath = path
            do {
                try write(bytes, to: path)
                return path
            } catch .exists {
                continue
            }
        }
        throw .exists(lastPath)
    }

    /// `name` for the first attempt, then `stem (n).ext`.
    static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 1 else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot]) (\(attempt))\(name[dot...])"
        }
        return "\(name) (\(attempt))"
    }
}
