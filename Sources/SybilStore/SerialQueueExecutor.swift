import Dispatch

/// A serial executor backed by a dispatch queue of its own, so an actor whose
/// `unownedExecutor` is this one runs its blocking work (SQLite, fsync) on that queue and never
/// on the cooperative pool. Jobs run one at a time in the order they were enqueued.
///
/// ```swift
/// actor Store {
///     private let executor = SerialQueueExecutor(label: "sybil.store")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
/// }
/// ```
public final class SerialQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label`.
    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.key, value: ObjectIdentifier(self))
    }

    /// Runs `job` on the queue.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    /// Runs `work` on the queue (outside any actor) and returns its result: for work that must
    /// happen before the actor exists, such as opening its database.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Whether the caller is running on this executor's queue (tests check where work runs).
    public var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) == ObjectIdentifier(self)
    }

    private static let key = DispatchSpecificKey<ObjectIdentifier>()
}
