import SybilCore
import SybilHTTP

/// The work a service started on tasks of its own (an Agent turn loop, a workspace run, a
/// chat stream's producer or forwarder), tracked from start to end: each task is held under a
/// name until it ends, ``quiescent()`` returns once none is left, and
/// ``shutdown(within:sleep:)`` refuses new work, cancels what runs and waits for it within a
/// deadline, naming what did not finish. Nothing a service starts outlives its shutdown
/// unseen. The tasks prefer the executor given at creation: a ``ReferenceServer``'s own
/// (``SybilHTTP/ServerExecutor``), which it stops only after this shutdown, so the work runs
/// on the server's threads and ends with them; without one (an app without a server, as in
/// tests) they run on the global concurrent executor.
final class ServiceTasks: Sendable {
    private struct Entry {
        let name: String
        let task: Task<Void, Never>
    }

    private struct State {
        var nextID: UInt64 = 0
        var running: [UInt64: Entry] = [:]
        var closed = false
    }

    private let state = Locked(State())
    /// The running tasks counted, for ``quiescent()`` to wait on.
    private let runningCount = RunningCount()
    private let executor: (any TaskExecutor)?

    /// No tasks yet; they will prefer `executor` (none: the global concurrent executor).
    init(executor: (any TaskExecutor)? = nil) {
        self.executor = executor
    }

    /// Starts `work` on a task held as `name` until it ends; `nil` (and nothing started) once
    /// ``shutdown(within:sleep:)`` began.
    @discardableResult
    func start(_ name: String, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never>? {
        state.withLock { state -> Task<Void, Never>? in
            guard !state.closed else { return nil }
            state.nextID += 1
            let id = state.nextID
            runningCount.increment()
            // Created under the lock: the task's own removal cannot run before its insertion.
            let task = Task(executorPreference: executor) { [self] in
                await work()
                finished(id)
            }
            state.running[id] = Entry(name: name, task: task)
            return task
        }
    }

    /// The running task held as `name`, if any.
    func task(named name: String) -> Task<Void, Never>? {
        state.withLock { state in state.running.values.first { $0.name == name }?.task }
    }

    /// How many tasks are running.
    var count: Int { state.withLock { $0.running.count } }

    /// The names of the tasks still running, sorted.
    var names: [String] {
        state.withLock { state in state.running.values.map(\.name).sorted() }
    }

    /// Whether ``shutdown(within:sleep:)`` began (new work is refused).
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Returns once no task is running (at once when none is), or when the waiting task is
    /// cancelled. Work started from a task that is ending (a next queued run) is started
    /// before that task ends, so "none running" means nothing more will happen.
    func quiescent() async {
        await runningCount.zero()
    }

    /// Refuses new work, cancels every running task and waits until they end or `deadline`
    /// passed on `sleep`'s clock (the service's injected one); returns the names of the tasks
    /// that had not ended by then (empty when all did).
    func shutdown(within deadline: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) async
        -> [String]
    {
        let tasks = state.withLock { state -> [Task<Void, Never>] in
            state.closed = true
            return state.running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        _ = await runningCount.zero(within: deadline, sleep: sleep)
        return names
    }

    private func finished(_ id: UInt64) {
        state.withLock { $0.running[id] = nil }
        runningCount.decrement()
    }
}
