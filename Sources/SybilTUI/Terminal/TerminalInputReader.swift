import Foundation
import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(CEpoll)
    import CEpoll
#endif

/// Reads the terminal's input descriptor on a thread of its own and delivers the bytes as they
/// come. Ends at end of input (or a read error, as when the terminal goes away) and on
/// ``stop()``, which wakes the thread through a pipe of its own.
///
/// Safe to share: the descriptors are fixed and the wake pipe sits behind a lock.
public final class TerminalInputReader: @unchecked Sendable {
    /// The bytes read, one element per `read`; finishes at end of input or after ``stop()``.
    public let chunks: AsyncStream<[UInt8]>
    /// The descriptor read.
    public let descriptor: Int32
    private let continuation: AsyncStream<[UInt8]>.Continuation
    private let wake = Locked<Int32?>(nil)
    private let ended = Locked(false)

    /// A reader of `descriptor` (standard input by default); nothing is read until ``start()``.
    public init(descriptor: Int32 = 0) {
        self.descriptor = descriptor
        (chunks, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .unbounded)
    }

    /// Whether the input ended by itself (end of input or a read error) rather than by ``stop()``.
    public var reachedEnd: Bool { ended.withLock { $0 } }

    /// Starts the reading thread.
    public func start() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw TerminalError.systemCall(name: "pipe", descriptor: -1, errno: errno)
        }
        let (wakeReader, wakeWriter) = (descriptors[0], descriptors[1])
        _ = fcntl(wakeReader, F_SETFD, FD_CLOEXEC)
        _ = fcntl(wakeWriter, F_SETFD, FD_CLOEXEC)
        let fresh = wake.withLock { wake -> Bool in
            guard wake == nil else { return false }
            wake = wakeWriter
            return true
        }
        guard fresh else {
            close(wakeReader)
            close(wakeWriter)
            return
        }
        let input = descriptor
        let continuation = continuation
        let thread = Thread { [self] in
            // Named from inside with the system call: Foundation's `Thread.name` setter loses
            // the name on Linux (see `SybilHTTP.ThreadName`).
            #if canImport(CEpoll)
                _ = sybil_set_current_thread_name("sybil-input")
            #else
                Thread.current.name = "sybil-input"
            #endif
            var buffer = [UInt8](repeating: 0, count: 4096)
            var watched = [
                pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            reading: while true {
                let ready = poll(&watched, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    self.ended.withLock { $0 = true }
                    break
                }
                if watched[1].revents != 0 { break }
                guard watched[0].revents != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                if count > 0 {
                    continuation.yield(Array(buffer[0..<count]))
                } else if count < 0, errno == EINTR || errno == EAGAIN {
                    continue reading
                } else {
                    self.ended.withLock { $0 = true }
                    break
                }
            }
            close(wakeReader)
            continuation.finish()
        }
        thread.start()
    }

    /// Stops reading and ends ``chunks``; safe to call more than once.
    public func stop() {
        let writer = wake.withLock { wake -> Int32? in
            defer { wake = -1 }
            return wake
        }
        guard let writer else {
            continuation.finish()
            return
        }
        // Closing the write end wakes the thread's poll (the read end hangs up) without writing
        // into a pipe whose reader may already be gone, which would raise SIGPIPE.
        guard writer >= 0 else { return }
        close(writer)
    }
}
