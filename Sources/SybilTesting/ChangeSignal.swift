import SybilCore
import Synchronization

/// A notification for state that changes under a lock: whoever changes the state calls
/// ``notify()``, and a test waits with ``wait(until:limit:)`` for a condition over that state,
/// re-checked on each notification and never on a timer. This is the signal tests wait on
/// instead of yielding a number of times; ``ConditionWait`` does the same for `@Observable`
/// state.
public final class ChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// A signal nobody waits on yet.
    public init() {}

    /// Wakes every waiter to re-check its condition.
    public func notify() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns whether `condition` held before `limit` of real time passed (or the waiting
    /// task was cancelled); `condition` runs on the caller's actor. The limit only bounds a wait that should end on a notification,
    /// so a broken test fails instead of hanging; it never decides a rule.
    public func wait(
        isolation: isolated (any Actor)? = #isolation, until condition: () -> Bool, limit: Duration = .seconds(30)
    ) async -> Bool {
        let gaveUp = Atomic(false)
        let deadline = Task { [self] in
            try await ContinuousClock().sleep(for: limit)
            gaveUp.store(true, ordering: .sequentiallyConsistent)
            notify()
        }
        defer { deadline.cancel() }
        while true {
            // The generation is read before the condition, so a change between the check and
            // the suspension is never missed.
            let seen = state.withLock { $0.generation }
            if condition() { return true }
            if gaveUp.load(ordering: .sequentiallyConsistent) || Task.isCancelled { return false }
            await next(after: seen)
        }
    }

    /// Suspends until a notification after `generation` (at once if one came already), or the
    /// task is cancelled.
    private func next(isolation: isolated (any Actor)? = #isolation, after generation: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passed = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if passed { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
