import SybilCore

/// Draws ``WaitingSpinner`` on one line of a terminal until the reply starts: a frame every
/// ``WaitingSpinner/frameInterval`` of the injected clock, each one back at the line's start
/// (CR) and clearing the rest of it (CSI K); ``stop()`` erases the line. The state comes from
/// `isWaking`, asked at every frame with the elapsed time.
final class WaitingIndicator<C: Clock>: Sendable where C.Duration == Duration {
    private let clock: C
    private let write: @Sendable (String) -> Void
    private let isWaking: @Sendable (Duration) async -> Bool
    private let state = Locked<(task: Task<Void, Never>?, drawn: Bool, stopped: Bool)>((nil, false, false))

    /// An indicator writing through `write` (a terminal's raw stream), timed on `clock`.
    init(clock: C, write: @escaping @Sendable (String) -> Void, isWaking: @escaping @Sendable (Duration) async -> Bool)
    {
        self.clock = clock
        self.write = write
        self.isWaking = isWaking
    }

    /// Starts drawing (once).
    func start() {
        let start = clock.now
        let task = Task { [self] in
            var next = start
            while !Task.isCancelled {
                let elapsed = start.duration(to: clock.now)
                let line = WaitingSpinner.line(elapsed: elapsed, waking: await isWaking(elapsed))
                let shown = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.drawn = true
                    write("\r" + line + "\u{1B}[K")
                    return true
                }
                guard shown else { return }
                next = next.advanced(by: WaitingSpinner.frameInterval)
                do { try await clock.sleep(until: next, tolerance: nil) } catch { return }
            }
        }
        let started = state.withLock { state -> Bool in
            guard state.task == nil, !state.stopped else { return false }
            state.task = task
            return true
        }
        if !started { task.cancel() }
    }

    /// Stops drawing and erases the line (once; later calls do nothing).
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard !state.stopped else { return nil }
            state.stopped = true
            if state.drawn { write("\r\u{1B}[K") }
            return state.task
        }
        task?.cancel()
    }

    /// Stops drawing, erases the line, and returns once the drawing task has ended.
    func finish() async {
        stop()
        await state.withLock { $0.task }?.value
    }
}
