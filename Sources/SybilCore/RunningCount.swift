/// How many pieces of work are running, and a wait for none to be: the count a task registry
/// keeps (a server's connection tasks, a service's background work) so that a shutdown can
/// return once everything it cancelled has ended. Waiting is cancellable and may be bounded.
public final class RunningCount: Sendable {
    private struct State {
        var running = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Nothing running.
    public init() {}

    /// How many are running now.
    public var value: Int { state.withLock { $0.running } }

    /// One more is running.
    public func increment() {
        state.withLock { $0.running += 1 }
    }

    /// One has ended; at zero every waiter returns.
    public func decrement() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running = max(0, state.running - 1)
            guard state.running == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once nothing is running (at once when nothing is), or when the waiting task is
    /// cancelled.
    public func zero() async {
        let waiter = state.withLock { state -> UInt64 in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.running == 0 || Task.isCancelled { return true }
                    state.waiters[waiter] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume()
        }
    }

    /// Whether nothing was running any more before `limit` passed on `sleep`'s clock.
    public func zero(within limit: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) async
        -> Bool
    {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.zero() }
            group.addTask { try? await sleep(limit) }
            await group.next()
            group.cancelAll()
        }
        return value == 0
    }
}
