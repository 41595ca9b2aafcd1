import Observation

/// The app's run loop: reads the terminal's events, feeds input bytes through the
/// ``TerminalInputDecoder`` (a lone Esc is flushed after ``escapeTimeout`` without more
/// bytes), hands the decoded inputs to the controller, and redraws when the state changes —
/// the view models it reads are observed with `withObservationTracking`, and redraws are
/// coalesced to at most one per ``frameInterval``. Resizes repaint at the new size, Ctrl+Z
/// suspends, SIGTERM/SIGHUP and the end of input quit, and the terminal is always put back
/// on the way out. Waits run on the injected clock.
@MainActor
public final class TerminalAppRunner<C: Clock> where C.Duration == Duration {
    /// How long a lone Esc waits for the rest of a sequence.
    public static var escapeTimeout: Duration { .milliseconds(50) }
    /// The shortest time between two frames (60 frames a second).
    public static var frameInterval: Duration { .milliseconds(16) }

    /// The controller it drives.
    public let controller: TerminalAppController

    private let terminal: any AppTerminal
    private let clock: C
    private let environment: [String: String]
    private var decoder = TerminalInputDecoder()
    private var origin: C.Instant
    private var lastFrame: C.Instant?
    private var frameScheduled = false
    private var escapeGeneration = 0
    /// The wait before a lone Esc is flushed; a newer one replaces it (only the newest input's
    /// flush counts) and the loop cancels it on the way out.
    private var escapeFlush: Task<Void, Never>?
    /// When the newest lone Esc is flushed (``escapeTimeout`` after its input was handled).
    private var escapeDeadline: C.Instant?
    /// The wait for the next frame, if one is asked for; the loop cancels it on the way out.
    private var frameTask: Task<Void, Never>?
    private var continuation: AsyncStream<Wake>.Continuation?

    private enum Wake: Sendable {
        case terminal(TerminalEvent)
        case changed
        case flushEscape(Int)
        case frame
        case screenModelFrame
        case terminalEnded
    }

    /// A runner of `controller` on `terminal`; `environment` decides the theme when the
    /// terminal reports its background (`NO_COLOR` wins).
    public init(
        controller: TerminalAppController, terminal: any AppTerminal, clock: C, environment: [String: String] = [:]
    ) {
        self.controller = controller
        self.terminal = terminal
        self.clock = clock
        self.environment = environment
        self.origin = clock.now
    }

    /// Runs until the person quits or the terminal goes away, then closes the controller and
    /// stops the terminal (also when the loop ends early).
    public func run() async {
        let (stream, continuation) = AsyncStream<Wake>.makeStream()
        self.continuation = continuation
        let events = terminal.events
        let forward = Task {
            for await event in events { continuation.yield(.terminal(event)) }
            continuation.yield(.terminalEnded)
        }
        let ticker = Task { @MainActor [clock, controller] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: controller.frameTickInterval) } catch { return }
                if controller.needsFrames { continuation.yield(.screenModelFrame) }
            }
        }
        origin = clock.now
        controller.resize(terminal.size)
        draw()
        loop: for await wake in stream {
            switch wake {
            case .terminal(let event):
                if handle(event) { break loop }
            case .flushEscape(let generation):
                guard generation == escapeGeneration else { continue }
                if deliver(decoder.flush()) { break loop }
            case .changed:
                requestFrame()
            case .frame:
                frameScheduled = false
                draw()
            case .screenModelFrame:
                if controller.frame(now: origin.duration(to: clock.now)) { requestFrame() }
            case .terminalEnded:
                break loop
            }
        }
        forward.cancel()
        ticker.cancel()
        escapeFlush?.cancel()
        escapeFlush = nil
        frameTask?.cancel()
        frameTask = nil
        continuation.finish()
        self.continuation = nil
        // The terminal is put back first: closing may wait for a send in flight.
        terminal.stop()
        await controller.close()
    }

    /// Handles a terminal event; returns whether the loop ends.
    private func handle(_ event: TerminalEvent) -> Bool {
        switch event {
        case .input(let bytes):
            // An Esc whose wait is over is a lone Esc, whether its flush or these bytes came
            // first: under load the two race, and Esc then Ctrl+Z would read as Alt+Ctrl+Z.
            if decoder.hasPendingEscape, let deadline = escapeDeadline, clock.now >= deadline {
                if deliver(decoder.flush()) { return true }
            }
            let inputs = decoder.feed(bytes)
            escapeGeneration += 1
            if deliver(inputs) { return true }
            if decoder.hasPendingEscape { scheduleEscapeFlush() }
            return false
        case .resize(let size):
            controller.resize(size)
            draw()
            return false
        case .suspend:
            controller.suspended()
            terminal.suspend()
            return false
        case .resume:
            controller.resumed()
            draw()
            return false
        case .interrupt:
            // SIGINT from outside (raw mode makes Ctrl+C a key): the same as the key.
            return deliver([.key(KeyEvent(.character("c"), modifiers: .control))])
        case .terminate, .inputClosed:
            return true
        }
    }

    /// Hands inputs to the controller; returns whether one asked to quit.
    private func deliver(_ inputs: [TerminalInput]) -> Bool {
        guard !inputs.isEmpty else { return false }
        let now = origin.duration(to: clock.now)
        for input in inputs {
            if case .backgroundColor(let red, let green, let blue) = input {
                controller.setTheme(
                    ThemeChoice.resolve(environment: environment, reportedBackground: (red, green, blue)))
                continue
            }
            if controller.handle(input, now: now) { return true }
            if controller.takeSuspendRequest() { terminal.suspend() }
        }
        requestFrame()
        return false
    }

    private func scheduleEscapeFlush() {
        let generation = escapeGeneration
        let deadline = clock.now.advanced(by: Self.escapeTimeout)
        escapeDeadline = deadline
        let continuation = continuation
        escapeFlush?.cancel()
        escapeFlush = Task { [clock] in
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            continuation?.yield(.flushEscape(generation))
        }
    }

    /// Asks for a frame: at once when the last one is older than ``frameInterval``, else at
    /// that time; requests in between join it.
    private func requestFrame() {
        guard !frameScheduled else { return }
        frameScheduled = true
        let deadline = lastFrame.map { $0.advanced(by: Self.frameInterval) } ?? clock.now
        let continuation = continuation
        frameTask = Task { [clock] in
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
            continuation?.yield(.frame)
        }
    }

    /// Copies the models' state in (observing what it reads), renders and presents.
    private func draw() {
        let continuation = continuation
        withObservationTracking {
            controller.sync()
        } onChange: {
            continuation?.yield(.changed)
        }
        let size = terminal.size
        let (grid, cursor) = controller.render(size: size)
        terminal.present(grid, cursor: cursor)
        lastFrame = clock.now
    }
}
