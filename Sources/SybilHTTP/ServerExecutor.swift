import Dispatch
import Foundation
import SybilCore

/// The threads the server's own work runs on: request handlers, stream producers, WebSocket
/// sessions and the services' background turns prefer this task executor over the shared
/// cooperative pool. A process that embeds the server (the terminal app, the command-line
/// tool, a test run) keeps its pool busy with its own work — drawing, parsing, a test's CPU-
/// bound checks — and on a two-core machine that pool has two threads: the server must still
/// answer a request while they are busy, or a client times out on a server that is idle.
/// Actors with an executor of their own (the SQLite stores) still run there.
public final class ServerExecutor: TaskExecutor {
    /// The executor every server in the process shares.
    public static let shared = ServerExecutor(threads: 2)

    private let jobs = Locked(JobQueue())
    private let available = DispatchSemaphore(value: 0)

    /// An executor with `threads` threads of its own, which run for the life of the process.
    init(threads: Int) {
        precondition(threads > 0, "a server executor needs at least one thread")
        for index in 0..<threads {
            let thread = Thread { [self] in run() }
            thread.name = "sybil-server-\(index)"
            thread.start()
        }
    }

    /// Queues `job` for the next free thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    private func run() {
        while true {
            available.wait()
            guard let job = jobs.withLock({ $0.next() }) else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
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
