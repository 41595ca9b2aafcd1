import SybilCore

/// A `Clock` that moves only when a test calls ``advance(by:)``: sleepers wake in deadline
/// order, exactly when the clock passes their deadline, and never on wall time.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual time line: the time elapsed since the clock was created.
    public typealias Instant = OffsetInstant

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var sleepsStarted = 0
        var nowReads = 0
    }

    private let state = Locked(State())
    /// Notified whenever a sleeper starts or stops sleeping, or the time is read.
    private let changes = ChangeSignal()

    /// A clock at its origin with no sleepers.
    public init() {}

    /// The current manual time. Each reading is counted and signalled (see ``nowReads``).
    public var now: Instant {
        let now = state.withLock { state in
            state.nowReads += 1
            return state.now
        }
        changes.notify()
        return now
    }

    /// How many times ``now`` was read: code that notes the time of an event (a stall watch
    /// touched by a heartbeat) signals that it got there by reading the clock.
    public var nowReads: Int {
        state.withLock { $0.nowReads }
    }

    /// Returns once ``now`` was read more than `count` times; `false` after `limit` of real
    /// time or when the task is cancelled.
    @discardableResult
    public func waitForNowReads(after count: Int, limit: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: { nowReads > count }, limit: limit)
    }

    /// Zero: the manual clock is exact.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// How many sleeps have started on this clock so far (sleeps whose deadline had passed
    /// already are not counted: they never wait).
    public var sleepsStarted: Int {
        state.withLock { $0.sleepsStarted }
    }

    /// Suspends until the clock is advanced to `deadline` (at once when it already passed).
    /// Throws `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock so that a cancellation racing with this append is
                // seen either here or by the cancellation handler below, never by neither.
                let outcome = state.withLock { state -> Result<Bool, CancellationError> in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(true) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    state.sleepsStarted += 1
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): changes.notify()
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let position = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: position)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
            if cancelled != nil { changes.notify() }
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline is reached,
    /// earliest first.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "a manual clock only moves forward")
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due {
            sleeper.continuation.resume()
        }
        if !due.isEmpty { changes.notify() }
    }

    /// Returns once at least `count` tasks sleep on this clock, so that a test can advance
    /// time knowing the code under test has reached its wait: the clock signals each sleeper
    /// that starts or stops, nothing is polled. Reports whether the count was reached before
    /// `limit` of real time (a bound for a broken test, never a rule) or the task's cancellation.
    @discardableResult
    public func waitForSleepers(count: Int = 1, limit: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: { sleeperCount >= count }, limit: limit)
    }

    /// Returns once exactly `count` tasks sleep on this clock (see ``waitForSleepers(count:limit:)``).
    @discardableResult
    public func waitForSleepers(exactly count: Int, limit: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: { sleeperCount == count }, limit: limit)
    }

    /// Returns once a task sleeps on this clock until exactly `deadline` (the wait a test
    /// means, when other tasks may sleep on the same clock for a while too); `false` after
    /// `limit` of real time or when the task is cancelled.
    @discardableResult
    public func waitForSleeper(until deadline: Instant, limit: Duration = .seconds(30)) async -> Bool {
        await changes.wait(
            until: { self.state.withLock { $0.sleepers.contains { $0.deadline == deadline } } }, limit: limit)
    }

    /// Returns once more than `count` sleeps have started (see ``sleepsStarted``); `false`
    /// after `limit` of real time or when the task is cancelled.
    @discardableResult
    public func waitForSleeps(after count: Int, limit: Duration = .seconds(30)) async -> Bool {
        await changes.wait(until: { sleepsStarted > count }, limit: limit)
    }

    /// Advances by `step` each time a task starts sleeping (once at first when tasks already
    /// sleep), until the calling task is cancelled: drives code whose every wait should pass,
    /// moving only when the code has reached its next wait.
    public func drive(step: Duration) async {
        var seen = state.withLock { $0.sleepsStarted - $0.sleepers.count }
        while !Task.isCancelled {
            guard await waitForSleeps(after: seen, limit: .seconds(3600)) else { return }
            seen = sleepsStarted
            advance(by: step)
        }
    }
}
