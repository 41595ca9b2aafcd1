import SybilCore
import Synchronization

/// A notification for state that changes under a lock: whoever changes the state calls
/// ``notify()``, and a test waits with ``wait(until:limit:)`` for a condition over that state,
/// re-checked on each notification and never on a timer. This is the signal tests wait on
/// instead of yielding a number of times; ``ConditionWait`` does the same for `@Observable`
/// state.
public final class ChangeSignal: Sendable {
    private let changes = GenerationSignal()

    /// A signal nobody waits on yet.
    public init() {}

    /// Wakes every waiter to re-check its condition.
    public func notify() {
        changes.fire()
    }

    /// Returns whether `condition` held before `limit` of real time passed (or the waiting
    /// task was cancelled); `condition` runs on the caller's actor. The limit only bounds a wait
    /// that should end on a notification, so a broken test fails instead of hanging; it never
    /// decides a rule.
    public func wait(
        isolation: isolated (any Actor)? = #isolation, until condition: () -> Bool, limit: Duration = .seconds(30)
    ) async -> Bool {
        let gaveUp = Atomic(false)
        let deadline = Task { [self] in
            try await ContinuousClock().sleep(for: limit)
            gaveUp.store(true, ordering: .sequentiallyConsistent)
            notify()
        }
        defer { deadline.cancel() }
        while true {
            // The generation is read before the condition, so a change between the check and
            // the suspension is never missed.
            let seen = changes.generation
            if condition() { return true }
            if gaveUp.load(ordering: .sequentiallyConsistent) || Task.isCancelled { return false }
            await changes.wait(after: seen)
        }
    }
}
