import SybilCore

/// The tasks a screen model started, by purpose: starting a task for a purpose cancels the
/// one it replaces, and ``cancelAll()`` ends them all. Not isolated to an actor, so that a
/// `deinit` can cancel what a torn-down model still owns.
final class OwnedTasks<Key: Hashable & Sendable>: Sendable {
    private let tasks = Locked<[Key: Task<Void, Never>]>([:])

    init() {}

    /// Holds `task` for `key`, cancelling the task held before.
    func set(_ key: Key, _ task: Task<Void, Never>) {
        let previous = tasks.withLock { $0.updateValue(task, forKey: key) }
        previous?.cancel()
    }

    /// Cancels and forgets the task for `key`.
    func cancel(_ key: Key) {
        let previous = tasks.withLock { $0.removeValue(forKey: key) }
        previous?.cancel()
    }

    /// Cancels and forgets every task.
    func cancelAll() {
        let all = tasks.withLock { tasks -> [Task<Void, Never>] in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in all { task.cancel() }
    }

    /// How many tasks are held.
    var count: Int { tasks.withLock { $0.count } }

    deinit {
        cancelAll()
    }
}
