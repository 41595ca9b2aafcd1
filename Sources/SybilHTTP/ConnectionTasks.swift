import SybilCore

/// The tasks a server started for its connections — request handlers, stream producers,
/// WebSocket sessions — counted from start to end, so ``HTTPServer/shutdown(grace:)`` returns
/// only once every one has ended (each was cancelled when its connection closed) and
/// ``TransportStatistics/runningTasks`` says how many run now.
final class ConnectionTasks: Sendable {
    private let state = Locked<(running: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

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

    /// Returns once no task is running (at once when none is).
    func idle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.running == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func ended() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
