import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
#if canImport(CEpoll)
    import CEpoll
#endif

/// The terminal behind an input and an output descriptor (standard input and output by
/// default): its size, raw mode, the modes in force, and writing whole buffers.
///
/// Safe to share between threads (hence `@unchecked Sendable`): the descriptors never change,
/// the saved settings and the modes in force sit behind one lock, and writes hold a second lock
/// for the whole buffer so two frames never interleave.
public final class TerminalDevice: @unchecked Sendable {
    /// The descriptor keys are read from.
    public let inputDescriptor: Int32
    /// The descriptor frames are written to.
    public let outputDescriptor: Int32

    private struct State {
        var saved: termios?
        var modes: TerminalModes?
    }

    private let state = Locked(State())
    private let writing = Locked(())

    /// Wraps `input` and `output` (0 and 1 by default); nothing is changed until
    /// ``enterRawMode(modes:)``.
    public init(input: Int32 = 0, output: Int32 = 1) {
        self.inputDescriptor = input
        self.outputDescriptor = output
    }

    /// Whether `descriptor` is a terminal.
    public static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// Whether raw mode is in force (entered and not yet restored).
    public var isRaw: Bool {
        state.withLock { $0.saved != nil }
    }

    /// The window size of the output terminal (or the input's when the output is redirected);
    /// ``TerminalSize/fallback`` when neither says or either side is zero.
    public func size() -> TerminalSize {
        for descriptor in [outputDescriptor, inputDescriptor] {
            var columns: Int32 = 0
            var rows: Int32 = 0
            if sybil_window_size(descriptor, &columns, &rows) == 0, columns > 0, rows > 0 {
                return TerminalSize(columns: Int(columns), rows: Int(rows))
            }
        }
        return .fallback
    }

    /// Saves the input terminal's settings, makes the crash handlers able to put them back,
    /// switches to raw mode (no line editing, echo, signal keys, flow control or output
    /// processing; reads return each byte as it comes) and writes `modes`' enable sequence.
    /// Entering again while raw re-applies the raw settings only (after a stop the shell may
    /// have changed them).
    public func enterRawMode(modes: TerminalModes = .none) throws {
        let enable: [UInt8]? = try state.withLock { state in
            if let saved = state.saved {
                var raw = Self.raw(from: saved)
                guard tcsetattr(inputDescriptor, TCSANOW, &raw) == 0 else {
                    throw TerminalError.systemCall(name: "tcsetattr", descriptor: inputDescriptor, errno: errno)
                }
                return nil
            }
            guard Self.isTerminal(inputDescriptor) else {
                throw TerminalError.notATerminal(descriptor: inputDescriptor)
            }
            var saved = termios()
            guard tcgetattr(inputDescriptor, &saved) == 0 else {
                throw TerminalError.systemCall(name: "tcgetattr", descriptor: inputDescriptor, errno: errno)
            }
            TerminalSignals.prepareCrashRestore(
                output: outputDescriptor, bytes: modes.disableSequence, input: inputDescriptor, settings: saved)
            var raw = Self.raw(from: saved)
            guard tcsetattr(inputDescriptor, TCSANOW, &raw) == 0 else {
                throw TerminalError.systemCall(name: "tcsetattr", descriptor: inputDescriptor, errno: errno)
            }
            state.saved = saved
            state.modes = modes
            return modes.enableSequence
        }
        if let enable, !enable.isEmpty { write(enable) }
    }

    /// Writes the disable sequence of the modes in force and puts the saved settings back.
    /// Does nothing when raw mode is not in force, so it is safe to call more than once.
    public func restore() {
        let taken = state.withLock { state -> (termios, TerminalModes)? in
            guard let saved = state.saved else { return nil }
            state.saved = nil
            defer { state.modes = nil }
            return (saved, state.modes ?? .none)
        }
        guard let taken else { return }
        var saved = taken.0
        write(taken.1.disableSequence)
        _ = tcsetattr(inputDescriptor, TCSANOW, &saved)
        TerminalSignals.clearCrashRestore()
    }

    /// Writes all of `bytes`, retrying after interruptions and waiting (up to five seconds at a
    /// time) while the terminal cannot take more; gives up silently when the terminal is gone.
    public func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        writing.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(outputDescriptor, base + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                        continue
                    }
                    let code = errno
                    if written < 0, code == EINTR { continue }
                    guard written < 0, code == EAGAIN || code == EWOULDBLOCK else { return }
                    var wait = pollfd(fd: outputDescriptor, events: Int16(POLLOUT), revents: 0)
                    if poll(&wait, 1, 5000) <= 0, errno != EINTR { return }
                }
            }
        }
    }

    /// `settings` made raw, as `cfmakeraw` does: VMIN 1, VTIME 0.
    static func raw(from settings: termios) -> termios {
        var raw = settings
        raw.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        raw.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        raw.c_cflag |= tcflag_t(CS8)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        return raw
    }
}
