import SybilCore

/// The tasks a server started for its connections — request handlers, stream producers,
/// WebSocket sessions — counted from start to end, so ``HTTPServer/shutdown(grace:)`` returns
/// only once every one has ended (each was cancelled when its connection closed) and
/// ``TransportStatistics/runningTasks`` says how many run now.
final class ConnectionTasks: Sendable {
    private let count = RunningCount()

    /// Starts `work` on `executor`, counted until it returns.
    func start(on executor: ServerExecutor, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        count.increment()
        return Task(executorPreference: executor) { [count] in
            await work()
            count.decrement()
        }
    }

    /// How many tasks have not ended.
    var running: Int { count.value }

    /// Whether every task ended within `limit` (on the continuous clock: a bound that keeps a
    /// handler that ignores its cancellation from holding a shutdown for ever, not a rule).
    func idle(atMost limit: Duration) async -> Bool {
        // This bounds how long a shutdown waits for a task that ignores its cancellation (a
        // safety net); it decides nothing a test pins.
        await count.zero(within: limit) { try await Task.sleep(for: $0) }  // the live clock default, on purpose
    }
}
