/// A generation counter with waiters: a waiter notes the generation, looks at what it watches,
/// and waits for the generation to move on, so a change made between the look and the wait is
/// never missed. ``AgentOutboxSender`` waits on its outbox's changes this way; the seeded
/// simulations wait on theirs. Cancelling the waiting task ends the wait.
public final class GenerationSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Locked(State())

    /// Generation 0, no waiters.
    public init() {}

    /// The current generation.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Moves the generation on and wakes every waiter.
    public func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation is past `generation` (at once if it already is), or when
    /// the waiting task is cancelled.
    public func wait(after generation: UInt64) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWaiter &+= 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.generation != generation || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
