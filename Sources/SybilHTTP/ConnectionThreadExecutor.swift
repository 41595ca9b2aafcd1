import Synchronization

/// A task executor that runs a response body's reader on the I/O thread of the connection it
/// reads from. A reader run by ``run(_:)`` that waits for bytes of a socket connection
/// (``DefaultHTTPClient`` on Linux) makes that connection's thread this executor's target: the
/// thread that reads the next bytes also resumes the reader, one wake-up per read instead of
/// two (the I/O thread, then a cooperative-pool thread). Before that, with another client, or
/// once the connection is gone, jobs go to the global concurrent executor. Code run under it
/// must not block or run long, since the connection's reads and writes wait for it meanwhile;
/// child tasks inherit it.
public final class ConnectionThreadExecutor: TaskExecutor, Sendable {
    /// The executor of the reader running now, which a socket connection it waits on adopts.
    @TaskLocal static var current: ConnectionThreadExecutor?

    private let target = Mutex(Target())

    /// The connection whose thread runs the jobs (not kept alive by this executor).
    private struct Target {
        weak var thread: (any JobRunningThread)?
    }

    /// An executor with no connection yet.
    public init() {}

    /// Runs `operation` preferring this executor; the first connection it waits on becomes the
    /// thread that runs it.
    public func run<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ operation: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withTaskExecutorPreference(self, isolation: isolation) {
            await Self.$current.withValue(
                self,
                operation: {
                    do throws(Failure) {
                        return .success(try await operation())
                    } catch {
                        return .failure(error)
                    }
                }, isolation: isolation)
        }
        return try result.get()
    }

    /// Hands `job` to the adopted connection's thread, or to the global concurrent executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let thread = target.withLock({ $0.thread }) {
            thread.enqueue(job, runningOn: asUnownedTaskExecutor())
        } else {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Makes `thread` run this executor's jobs from now on.
    func adopt(_ thread: any JobRunningThread) {
        target.withLock { target in
            if target.thread !== thread { target.thread = thread }
        }
    }
}

/// A thread that runs jobs handed to it between its own work (a socket connection's I/O thread).
protocol JobRunningThread: AnyObject, Sendable {
    /// Runs `job` on this thread as if on `executor` (the task executor it was enqueued on), or
    /// on the global concurrent executor once the thread has ended.
    func enqueue(_ job: UnownedJob, runningOn executor: UnownedTaskExecutor)
}
