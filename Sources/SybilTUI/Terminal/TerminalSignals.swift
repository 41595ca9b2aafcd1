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

// State the signal handlers read. Handlers may only touch memory that needs no locks and no
// allocation, so these are plain globals and preallocated buffers, set before any handler that
// reads them is installed (which also runs their lazy initialisers outside a handler).
nonisolated(unsafe) private var forwardingPipe: Int32 = -1
nonisolated(unsafe) private var crashArmed = false
nonisolated(unsafe) private var crashOutput: Int32 = -1
nonisolated(unsafe) private var crashInput: Int32 = -1
nonisolated(unsafe) private var crashByteCount = 0
private let crashByteCapacity = 1024
nonisolated(unsafe) private let crashBytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 1024)
nonisolated(unsafe) private let crashSettings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
private let actionSize = Int(sybil_sigaction_size())
nonisolated(unsafe) private let savedActions = UnsafeMutableRawPointer.allocate(
    byteCount: Int(sybil_sigaction_size()) * 65, alignment: 16)
nonisolated(unsafe) private var crashHandlersInstalled = false

private func savedAction(_ number: Int32) -> UnsafeMutableRawPointer {
    savedActions + Int(number) * actionSize
}

/// Writes the signal's number into the forwarding pipe; async-signal-safe.
private let forwardSignal: @convention(c) (Int32) -> Void = { number in
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: number)
    if forwardingPipe >= 0 { _ = write(forwardingPipe, &byte, 1) }
    errno = saved
}

/// Puts the terminal back, then the handler that was there before, and raises the signal again
/// so the process dies (or the runtime's backtracer reports) as it would have; async-signal-safe.
private let restoreAndCrash: @convention(c) (Int32) -> Void = { number in
    if crashArmed {
        crashArmed = false
        if crashByteCount > 0 { _ = write(crashOutput, crashBytes, crashByteCount) }
        _ = tcsetattr(crashInput, TCSANOW, crashSettings)
    }
    if number >= 0, number < 65 {
        _ = sybil_signal_put_back(number, savedAction(number))
    } else {
        _ = sybil_signal_default(number)
    }
    _ = raise(number)
}

/// Forwards SIGWINCH, SIGTSTP, SIGCONT, SIGINT, SIGTERM and SIGHUP into ``signals`` through a
/// self-pipe read on a thread of its own, and installs the crash handlers that put the
/// terminal back before the process dies.
///
/// One instance forwards at a time (signal dispositions belong to the process). Safe to share:
/// its own state sits behind a lock; the handlers read only preallocated globals.
public final class TerminalSignals: @unchecked Sendable {
    /// The forwarded signals, in the order they arrived; finishes after ``stop()``.
    public let signals: AsyncStream<TerminalSignal>
    private let continuation: AsyncStream<TerminalSignal>.Continuation
    private let state = Locked<(reader: Int32, writer: Int32)?>(nil)

    /// Signals whose default action would leave the terminal raw: faults and traps (Swift's
    /// runtime traps raise SIGILL or SIGTRAP) and abort.
    public static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    /// Creates a forwarder; nothing is installed until ``start()``.
    public init() {
        (signals, continuation) = AsyncStream.makeStream(of: TerminalSignal.self, bufferingPolicy: .unbounded)
    }

    /// Opens the self-pipe, installs the forwarding handlers and starts the thread that reads it.
    public func start() throws {
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw TerminalError.systemCall(name: "pipe", descriptor: -1, errno: errno)
        }
        let (reader, writer) = (descriptors[0], descriptors[1])
        _ = fcntl(reader, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writer, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        let started = state.withLock { state -> Bool in
            guard state == nil else { return false }
            state = (reader, writer)
            return true
        }
        guard started else {
            close(reader)
            close(writer)
            return
        }
        forwardingPipe = writer
        for signal in TerminalSignal.all {
            _ = sybil_signal_install(signal.number, forwardSignal, 0, savedAction(signal.number))
        }
        let continuation = continuation
        let thread = Thread {
            // Named from inside with the system call: Foundation's `Thread.name` setter loses
            // the name on Linux (see `SybilHTTP.ThreadName`).
            #if canImport(CEpoll)
                _ = sybil_set_current_thread_name("sybil-signals")
            #else
                Thread.current.name = "sybil-signals"
            #endif
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    if let signal = TerminalSignal(number: Int32(byte)) { continuation.yield(signal) }
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(reader)
            continuation.finish()
        }
        thread.start()
    }

    /// Puts the previous handlers back and ends ``signals``; safe to call more than once.
    public func stop() {
        guard
            let descriptors = state.withLock({ state in
                defer { state = nil }
                return state
            })
        else {
            continuation.finish()
            return
        }
        for signal in TerminalSignal.all {
            _ = sybil_signal_put_back(signal.number, savedAction(signal.number))
        }
        forwardingPipe = -1
        close(descriptors.writer)
    }

    /// Installs the crash handlers (once per process): on a fault, trap or abort they write the
    /// prepared restore bytes, put the saved terminal settings back, reinstall the handler they
    /// replaced and raise the signal again.
    public static func installCrashHandlers() {
        guard !crashHandlersInstalled else { return }
        crashHandlersInstalled = true
        _ = crashBytes
        _ = crashSettings
        crashArmed = false
        for number in crashSignals {
            _ = sybil_signal_install(number, restoreAndCrash, 0, savedAction(number))
        }
    }

    /// Sets what the crash handlers put back: `bytes` written to `output` (at most 1 KiB) and
    /// `settings` applied to `input`. Called before raw mode begins.
    static func prepareCrashRestore(output: Int32, bytes: [UInt8], input: Int32, settings: termios) {
        crashArmed = false
        let count = min(bytes.count, crashByteCapacity)
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { crashBytes.update(from: base, count: count) }
        }
        crashByteCount = count
        crashSettings.pointee = settings
        crashOutput = output
        crashInput = input
        crashArmed = true
    }

    /// Disarms the crash restore once the terminal is back to normal.
    static func clearCrashRestore() {
        crashArmed = false
    }
}
