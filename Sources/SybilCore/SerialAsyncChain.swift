/// Runs async jobs one after another, in the order they were submitted, without overlap even
/// when a job suspends: the next job starts only after the previous one returned. Used where
/// changes to one thing (an outbox session) must never interleave across `await`.
public actor SerialAsyncChain {
    private var tail: Task<Void, Never>?
    private let unfinished = Locked(0)

    /// An empty chain.
    public init() {}

    /// Jobs submitted and not yet returned: the one running and those waiting behind it.
    /// Readable from any thread (a test sees a job queued behind one that is suspended).
    public nonisolated var unfinishedJobs: Int { unfinished.withLock { $0 } }

    /// Runs `job` after every job submitted before it has finished; returns its result.
    /// Cancelling the caller cancels the job (which still runs in its turn, and should check).
    public func run<Result: Sendable>(
        _ job: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let previous = tail
        unfinished.withLock { $0 += 1 }
        let task = Task<Result, any Error> {
            defer { self.unfinished.withLock { $0 -= 1 } }
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
