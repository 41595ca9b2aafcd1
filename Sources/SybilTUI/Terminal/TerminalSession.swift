import SybilCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The devices of live sessions, restored by the `atexit` hook if the process exits without
/// stopping them.
private let liveDevices = Locked<[ObjectIdentifier: TerminalDevice]>([:])

private let exitHookInstalled: Bool = {
    atexit {
        let devices = liveDevices.withLock { Array($0.values) }
        for device in devices { device.restore() }
    }
    return true
}()

/// A full-screen session on a terminal: raw mode and the modes on, the startup queries sent,
/// input, resizes and signals delivered as ``events``, frames drawn with a ``FrameWriter``,
/// Ctrl-Z style suspension, and the terminal put back on ``stop()``, at exit, or on a crash.
///
/// Safe to share (hence `@unchecked Sendable`): its state, the frame writer included, sits
/// behind one lock, and a frame is written while it is held so frames never interleave.
public final class TerminalSession: @unchecked Sendable {
    /// The terminal.
    public let device: TerminalDevice
    /// The modes turned on at start and after a resume.
    public let modes: TerminalModes
    /// What happens on the terminal; finishes after ``stop()``.
    public let events: AsyncStream<TerminalEvent>

    private enum Phase {
        case idle, running, suspended, stopped
    }

    private struct State {
        var phase = Phase.idle
        var writer: FrameWriter
        var reader: TerminalInputReader?
        var signals: TerminalSignals?
        /// The tasks forwarding input and signals to ``events``; ``stop()`` cancels them.
        var forwarders: [Task<Void, Never>] = []
    }

    private let continuation: AsyncStream<TerminalEvent>.Continuation
    private let state: Locked<State>
    private let stopProcess: @Sendable () -> Void

    /// A session on `device` that will turn on `modes`; `colors: false` draws attributes only.
    public convenience init(
        device: TerminalDevice = TerminalDevice(), modes: TerminalModes = .fullScreen, colors: Bool = true
    ) {
        self.init(device: device, modes: modes, colors: colors) { _ = kill(getpid(), SIGSTOP) }
    }

    /// A session whose suspension calls `stopProcess` instead of stopping the process (tests).
    init(device: TerminalDevice, modes: TerminalModes, colors: Bool, stopProcess: @escaping @Sendable () -> Void) {
        self.device = device
        self.modes = modes
        self.stopProcess = stopProcess
        self.state = Locked(State(writer: FrameWriter(colors: colors)))
        (events, continuation) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .unbounded)
    }

    /// The terminal's size now.
    public var size: TerminalSize { device.size() }

    /// Installs the crash handlers, enters raw mode, turns the modes on, sends the startup
    /// queries (background colour, keyboard protocol, device attributes), and starts reading
    /// input and forwarding signals. Does nothing when already started.
    public func start() throws {
        let started = try state.withLock { state -> (TerminalInputReader, TerminalSignals)? in
            guard state.phase == .idle else { return nil }
            TerminalSignals.installCrashHandlers()
            try device.enterRawMode(modes: modes)
            device.write(TerminalQueries.startup)
            let signals = TerminalSignals()
            let reader = TerminalInputReader(descriptor: device.inputDescriptor)
            do {
                try signals.start()
                try reader.start()
            } catch {
                signals.stop()
                reader.stop()
                device.restore()
                throw error
            }
            state.signals = signals
            state.reader = reader
            state.phase = .running
            return (reader, signals)
        }
        guard let (reader, signals) = started else { return }
        _ = exitHookInstalled
        let live = self.device
        liveDevices.withLock { $0[ObjectIdentifier(live)] = live }
        let continuation = continuation
        let input = Task {
            for await chunk in reader.chunks { continuation.yield(.input(chunk)) }
            if reader.reachedEnd, !Task.isCancelled { continuation.yield(.inputClosed) }
        }
        let signalForwarder = Task { [weak self] in
            for await signal in signals.signals { self?.handle(signal) }
        }
        let stopped = state.withLock { state -> Bool in
            state.forwarders = [input, signalForwarder]
            return state.phase == .stopped
        }
        if stopped {
            input.cancel()
            signalForwarder.cancel()
        }
    }

    /// Draws `grid` (only what changed since the last frame) and places the cursor; does
    /// nothing unless the session is running.
    public func present(_ grid: CellGrid, cursor: CursorPlacement?) {
        state.withLock { state in
            guard state.phase == .running else { return }
            let bytes = state.writer.render(grid, cursor: cursor)
            device.write(bytes)
        }
    }

    /// Makes the next frame repaint the whole screen.
    public func invalidate() {
        state.withLock { $0.writer.invalidate() }
    }

    /// Puts the terminal back and stops the process (SIGSTOP); when it continues, SIGCONT turns
    /// raw mode and the modes on again and the next frame repaints (see ``TerminalEvent/resume``).
    public func suspend() {
        let suspended = state.withLock { state -> Bool in
            guard state.phase == .running else { return false }
            device.restore()
            state.phase = .suspended
            return true
        }
        if suspended { stopProcess() }
    }

    /// Puts everything back: the modes off, the saved settings, the signal handlers; stops
    /// reading and ends ``events``. Safe to call more than once.
    public func stop() {
        let parts = state.withLock { state -> (TerminalInputReader?, TerminalSignals?, [Task<Void, Never>]) in
            guard state.phase != .stopped else { return (nil, nil, []) }
            state.phase = .stopped
            device.restore()
            defer {
                state.reader = nil
                state.signals = nil
                state.forwarders = []
            }
            return (state.reader, state.signals, state.forwarders)
        }
        for forwarder in parts.2 { forwarder.cancel() }
        parts.0?.stop()
        parts.1?.stop()
        let live = self.device
        liveDevices.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(live)) }
        continuation.finish()
    }

    private func handle(_ signal: TerminalSignal) {
        switch signal {
        case .resize:
            invalidate()
            continuation.yield(.resize(device.size()))
        case .suspend:
            continuation.yield(.suspend)
            suspend()
        case .resume:
            let resumed = state.withLock { state -> Bool in
                guard state.phase == .running || state.phase == .suspended else { return false }
                do {
                    try device.enterRawMode(modes: modes)
                } catch {
                    return false
                }
                state.writer.invalidate()
                state.phase = .running
                return true
            }
            if resumed { continuation.yield(.resume) }
        case .interrupt:
            continuation.yield(.interrupt)
        case .terminate, .hangup:
            continuation.yield(.terminate)
        }
    }
}
