import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's standard output or error, written with POSIX `write`. Foundation's
/// `FileHandle.write(_:)` stops the process when a write fails (standard error closed with
/// `2>&-`, output sent to a full disk or to `/dev/full`); a command or a server must say so, or
/// carry on, instead. The first failure is remembered for the command to report at its end.
public final class StandardStream: Sendable {
    /// The descriptor written to.
    public let descriptor: Int32
    private let failure = Locked<String?>(nil)

    /// Standard output (descriptor 1).
    public static let output = StandardStream(descriptor: 1)
    /// Standard error (descriptor 2).
    public static let error = StandardStream(descriptor: 2)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Why a write to this stream failed, the first time one did (`strerror`'s text, such as
    /// "No space left on device"); `nil` while every write went through.
    public var firstFailure: String? { failure.withLock { $0 } }

    /// Writes all of `text`, retrying short and interrupted writes; returns whether it was all
    /// written. A failure is remembered (``firstFailure``), never fatal; a reader gone from a
    /// pipe still raises `SIGPIPE`, as for any command in a pipeline.
    @discardableResult
    public func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                    let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                #else
                    let written = Darwin.write(descriptor, base + offset, buffer.count - offset)
                #endif
                if written > 0 {
                    offset += written
                    continue
                }
                var code = written < 0 ? errno : EIO
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    // A descriptor left non-blocking (shared with a terminal's input): wait.
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&ready, 1, -1) >= 0 || errno == EINTR { continue }
                    code = errno  // the wait itself failed: its reason, not "try again"
                }
                let reason = String(cString: strerror(code))
                failure.withLock { if $0 == nil { $0 = reason } }
                return false
            }
            return true
        }
    }
}
