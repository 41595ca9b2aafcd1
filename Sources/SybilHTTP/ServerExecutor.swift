import Dispatch
import Foundation
import SybilCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads the server's own work runs on: request handlers, stream producers and WebSocket
/// sessions prefer this task executor over the shared cooperative pool. A process that embeds
/// the server (the terminal app, the command-line tool, a test run) keeps its pool busy with
/// its own work — drawing, parsing, a test's CPU-bound checks — and on a two-core machine that
/// pool has two threads: the server must still answer a request while they are busy, or a
/// client times out on a server that is idle. Actors with an executor of their own (the SQLite
/// stores) still run there.
///
/// Each ``HTTPServer`` runs on one: its own, started with it and stopped in
/// ``HTTPServer/shutdown(grace:)`` after its handler tasks ended, or one its embedder passes
/// (SybilServer's `ReferenceServer` hands the same executor to its services' background work
/// and stops it after that work ended). ``stop()`` lets the threads run what is queued and end,
/// and ``stopped()`` returns once every one has exited. A job that arrives after the stop (a
/// task that outlived its server) runs on the global concurrent executor instead, so nothing
/// waits for a thread that is gone. There is no process-wide instance: every thread belongs to
/// an executor someone stops.
public final class ServerExecutor: TaskExecutor {
    private struct State: ~Copyable {
        var jobs = JobQueue()
        var stopping = false
        /// The threads not yet joined (by ``stopped()``) or detached (when the executor ends
        /// without it).
        var unjoined: [pthread_t] = []
        var threadIDs: [Int] = []
    }

    private let state = Locked(State())
    private let available = DispatchSemaphore(value: 0)
    private let threads: Int
    private let running = Atomic<Int>(0)
    private let ended = StopSignal()
    private let joined = StopSignal()

    /// An executor with `threads` threads of its own, started now and running until ``stop()``;
    /// returns once each has started and named itself `sybil-server-<index>`.
    public init(threads: Int) {
        precondition(threads > 0, "a server executor needs at least one thread")
        self.threads = threads
        running.store(threads, ordering: .sequentiallyConsistent)
        let started = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            let start = ThreadStart(executor: self, index: index, started: started)
            let argument = Unmanaged.passRetained(start).toOpaque()
            #if canImport(Darwin)
                var created: pthread_t?
            #else
                var created = pthread_t()
            #endif
            let result = pthread_create(&created, nil, serverExecutorThreadMain, argument)
            precondition(result == 0, "cannot start a server executor thread (error \(result))")
            #if canImport(Darwin)
                let thread = created!
            #else
                let thread = created
            #endif
            state.withLock { $0.unjoined.append(thread) }
        }
        for _ in 0..<threads { started.wait() }
    }

    deinit {
        // Threads nobody waited for (an executor stopped without ``stopped()``, or never
        // stopped) release their resources when they end.
        let unjoined = state.withLock { state in
            defer { state.unjoined.removeAll() }
            return state.unjoined
        }
        for thread in unjoined { pthread_detach(thread) }
    }

    /// How many of its threads are running: the count it started with until ``stop()``, then
    /// fewer as each ends, 0 once ``stopped()`` returned.
    public var runningThreads: Int { running.load(ordering: .sequentiallyConsistent) }

    /// The kernel's ids of its threads (on Linux, where `/proc/self/task/<id>` names each; empty
    /// elsewhere), for tests and monitoring that look for them after ``stopped()``.
    public var threadIDs: [Int] { state.withLock { $0.threadIDs } }

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

    /// Returns once every thread has ended and exited (after ``stop()``): the threads are
    /// joined, so none is left in the process. Never call it from a job on this executor.
    public func stopped() async {
        await ended.wait()
        let unjoined = state.withLock { state in
            defer { state.unjoined.removeAll() }
            return state.unjoined
        }
        // Every thread has left its loop, so each join waits for no more than its exit.
        guard !unjoined.isEmpty else { return await joined.wait() }
        for thread in unjoined { pthread_join(thread, nil) }
        joined.signal()
    }

    fileprivate func run(index: Int, started: DispatchSemaphore) {
        ThreadName.setCurrent("sybil-server-\(index)")
        if let id = Self.currentThreadID() { state.withLock { $0.threadIDs.append(id) } }
        started.signal()
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

    /// The calling thread's kernel id, from `/proc/thread-self` (`<pid>/task/<tid>`); `nil`
    /// where there is no such link.
    private static func currentThreadID() -> Int? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard count > 0 else { return nil }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return link.split(separator: "/").last.flatMap { Int($0) }
        #else
            return nil
        #endif
    }
}

/// What a new executor thread needs: its executor, its index, and the semaphore it signals once
/// it has named itself.
private final class ThreadStart {
    let executor: ServerExecutor
    let index: Int
    let started: DispatchSemaphore

    init(executor: ServerExecutor, index: Int, started: DispatchSemaphore) {
        self.executor = executor
        self.index = index
        self.started = started
    }
}

#if canImport(Darwin)
    private func serverExecutorThreadMain(_ argument: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
        start.executor.run(index: start.index, started: start.started)
        return nil
    }
#else
    private func serverExecutorThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let argument else { return nil }
        let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
        start.executor.run(index: start.index, started: start.started)
        return nil
    }
#endif

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
