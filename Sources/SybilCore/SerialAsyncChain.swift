/// Runs async jobs one after another, in the order they were submitted, without overlap even
/// when a job suspends: the next job starts only after the previous one returned. Used where
/// changes to one thing (an outbox session) must never interleave across `await`.
public actor SerialAsyncChain {
    private var tail: Task<Void, Never>?

    /// An empty chain.
    public init() {}

    /// Runs `job` after every job submitted before it has finished; returns its result.
    /// Cancelling the caller cancels the job (which still runs in its turn, and should check).
    public func run<Result: Sendable>(
        _ job: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let previous = tail
        let task = Task<Result, any Error> {
            await previous?.value
            return try await job()
        }
        tail = Task { _ = try? await task.value }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
