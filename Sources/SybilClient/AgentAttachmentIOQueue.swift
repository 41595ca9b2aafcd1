import Dispatch

/// Runs blocking file work (reads, fsync'd writes, removals) on a serial dispatch queue of its
/// own, never on the cooperative pool, in the order it was submitted; and CPU-heavy work
/// (conversion, hashing, thumbnails) off the caller's actor.
final class AgentAttachmentIOQueue: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `work` on the queue and returns its result. The work is queued on the caller's
    /// actor before this suspends (`isolation`), so calls made one after another on one actor,
    /// from any of its tasks, run in that order.
    func run<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation, _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work` in a detached task (off the caller's actor); cancelling the caller cancels it.
    static func detached<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        let task = Task.detached(operation: work)
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
