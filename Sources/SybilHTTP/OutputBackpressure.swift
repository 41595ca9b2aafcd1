import SybilCore

/// The high- and low-water marks of a connection's unsent output, as a rule: producers must
/// wait once the backlog is above ``high`` and may go on once it is below ``low``.
struct OutputWatermarks: Sendable, Hashable {
    /// Above this many unsent bytes, producers wait.
    var high = 256 << 10
    /// Below this many, waiting producers resume.
    var low = 64 << 10

    /// Whether producers must wait with `backlog` unsent bytes, given whether they were
    /// waiting before (between the marks the previous answer holds).
    func mustWait(backlog: Int, wasWaiting: Bool) -> Bool {
        wasWaiting ? backlog >= low : backlog > high
    }
}

/// The room a stream producer or WebSocket session has on one connection: bytes it posted
/// that the loop has not applied yet, plus the connection's unsent output as the loop last
/// reported it. ``waitForRoom()`` suspends while ``OutputWatermarks`` say wait, and returns at
/// once when the connection closed. Shared between the producer's task and the loop thread.
final class OutputBackpressure: Sendable {
    private struct State {
        var inFlight = 0
        var unsent = 0
        var waiting = false
        var closed = false
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let marks: OutputWatermarks
    private let state = Locked(State())
    private let suspended: TransportStatistics.Counters?

    /// A gate with `marks`; `suspended` counts producers waiting right now (statistics).
    init(marks: OutputWatermarks = OutputWatermarks(), statistics: TransportStatistics.Counters? = nil) {
        self.marks = marks
        self.suspended = statistics
    }

    /// Whether bytes a producer offers may go to the loop.
    enum Admission: Equatable {
        /// They go: the loop will apply them.
        case accepted
        /// Refused, and the gate closed now: the backlog passed the limit, so the client is not
        /// reading (the caller has the loop cut it off, once).
        case overran
        /// Refused: the gate closed earlier.
        case refused
    }

    /// The producer offers `count` bytes for the loop. They are refused once the backlog
    /// (posted and not yet applied, plus unsent) is above `limit`, so a producer that never
    /// waits for room cannot pile up output faster than the loop applies it; one large
    /// offer on an empty backlog is accepted whatever its size, as the loop accepts it.
    func admit(_ count: Int, limit: Int) -> Admission {
        let (admission, resumed) = state.withLock { state -> (Admission, [CheckedContinuation<Void, Never>]) in
            if state.closed { return (.refused, []) }
            if state.inFlight + state.unsent > limit {
                state.closed = true
                defer { state.waiters.removeAll() }
                return (.overran, Array(state.waiters.values))
            }
            state.inFlight += count
            state.waiting = marks.mustWait(backlog: state.inFlight + state.unsent, wasWaiting: state.waiting)
            return (.accepted, [])
        }
        resume(resumed)
        return admission
    }

    /// The loop applied `applied` posted bytes; `unsent` bytes wait for the socket now.
    func update(applied: Int = 0, unsent: Int) {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight = max(0, state.inFlight - applied)
            state.unsent = unsent
            state.waiting = marks.mustWait(backlog: state.inFlight + state.unsent, wasWaiting: state.waiting)
            guard !state.waiting else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        resume(resumed)
    }

    /// The connection closed (or the work ended): every waiter returns, and waits return at once.
    func close() {
        let resumed = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        resume(resumed)
    }

    /// Whether the connection closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Whether ``waitForRoom()`` would return at once: the backlog allows more, or the
    /// connection closed.
    var hasRoom: Bool { state.withLock { !$0.waiting || $0.closed } }

    /// Returns once the backlog is below the low-water mark, the connection closed, or the
    /// waiting task is cancelled.
    func waitForRoom() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = state.withLock { state in
                    guard state.waiting, !state.closed, !Task.isCancelled else { return false }
                    state.waiters[id] = continuation
                    suspended?.producerSuspended()
                    return true
                }
                if !wait { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            if let waiter { resume([waiter]) }
        }
    }

    private func resume(_ waiters: [CheckedContinuation<Void, Never>]) {
        for waiter in waiters {
            suspended?.producerResumed()
            waiter.resume()
        }
    }
}
