import SybilCore

/// The tasks a server started for its connections — request handlers, stream producers,
/// WebSocket sessions — counted from start to end, so ``HTTPServer/shutdown(grace:)`` returns
/// only once every one has ended (each was cancelled when its connection closed) and
/// ``TransportStatistics/runningTasks`` says how many run now.
final class ConnectionTasks: Sendable {
    private let state = Locked<(running: Int, nextWaiter: Int, waiters: [Int: CheckedContinuation<Void, Never>])>(
        (0, 0, [:]))

    /// Starts `work` on `executor`, counted until it returns.
    func start(on executor: ServerExecutor, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        state.withLock { $0.running += 1 }
        return Task(executorPreference: executor) { [self] in
            await work()
            ended()
        }
    }

    /// How many tasks have not ended.
    var running: Int { state.withLock { $0.running } }

    /// Returns once no task is running (at once when none is), or when the caller is cancelled.
    func idle() async {
        let waiter = state.withLock { state -> Int in
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

    /// Whether every task ended within `limit` (on the continuous clock: a bound that keeps a
    /// handler that ignores its cancellation from holding a shutdown forever, not a rule).
    func idle(atMost limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.idle()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first && running == 0
        }
    }

    private func ended() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
