import Dispatch
import Foundation
import SybilCore
import Synchronization

/// The threads the server's own work runs on: request handlers, stream producers and WebSocket
/// sessions prefer this task executor over the shared cooperative pool. A process that embeds
/// the server (the terminal app, the command-line tool, a test run) keeps its pool busy with
/// its own work — drawing, parsing, a test's CPU-bound checks — and on a two-core machine that
/// pool has two threads: the server must still answer a request while they are busy, or a
/// client times out on a server that is idle. Actors with an executor of their own (the SQLite
/// stores) still run there.
///
/// Each ``HTTPServer`` starts an executor of its own and stops it in
/// ``HTTPServer/shutdown(grace:)``, after its handler tasks ended: ``stop()`` lets the threads
/// run what is queued and end, and ``stopped()`` returns once every one has. A job that
/// arrives after the stop (a task that outlived its server) runs on the global concurrent
/// executor instead, so nothing waits for a thread that is gone.
public final class ServerExecutor: TaskExecutor {
    /// The executor the services' background work (SybilServer's `ServiceTasks`) shares; it
    /// runs for the life of the process. Servers do not use it: each has its own.
    public static let shared = ServerExecutor(threads: 2)

    private struct State: ~Copyable {
        var jobs = JobQueue()
        var stopping = false
    }

    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let threads: Int
    private let running = Atomic<Int>(0)
    private let ended = StopSignal()

    /// An executor with `threads` threads of its own, started now and running until ``stop()``.
    init(threads: Int) {
        precondition(threads > 0, "a server executor needs at least one thread")
        self.threads = threads
        running.store(threads, ordering: .sequentiallyConsistent)
        for index in 0..<threads {
            // Named from inside: on Linux a name set before `start()` is not given to the
            // system thread, which would keep its creator's (a pool thread's) name.
            let thread = Thread { [self] in
                Thread.current.name = "sybil-server-\(index)"
                run()
            }
            thread.start()
        }
    }

    /// How many of its threads are running: the count it started with until ``stop()``, then
    /// fewer as each ends, 0 once ``stopped()`` returned.
    public var runningThreads: Int { running.load(ordering: .sequentiallyConsistent) }

    /// Queues `job` for the next free thread; after ``stop()``, hands it to the global
    /// concurrent executor.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if queued {
            available.signal()
        } else {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    /// Lets the threads run the jobs already queued, then end; later jobs go to the global
    /// concurrent executor. Any thread; later calls do nothing.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        for _ in 0..<threads { available.signal() }
    }

    /// Returns once every thread has ended (after ``stop()``).
    public func stopped() async {
        await ended.wait()
    }

    private func run() {
        while true {
            available.wait()
            let next = state.withLock { state -> (job: UnownedJob?, end: Bool) in
                let job = state.jobs.next()
                return (job, job == nil && state.stopping)
            }
            if let job = next.job {
                job.runSynchronously(on: asUnownedTaskExecutor())
                continue
            }
            guard next.end else { continue }
            // Each stop signal is one thread's: the others still get theirs.
            if running.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 { ended.signal() }
            return
        }
    }
}

/// A first-in first-out queue of jobs with amortised O(1) removal from the front.
private struct JobQueue: ~Copyable {
    private var items: [UnownedJob] = []
    private var head = 0

    mutating func append(_ job: UnownedJob) {
        items.append(job)
    }

    mutating func next() -> UnownedJob? {
        guard head < items.count else { return nil }
        let job = items[head]
        head += 1
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return job
    }
}
