import Observation
import SybilCore

/// Waits for a condition over `@Observable` state: re-checked whenever what it read changes
/// (the code's own signal), and at least every `recheck` for state that is not observable.
/// Gives up after `limit` of real time, or when the waiting task is cancelled, so a broken test
/// fails instead of hanging; the limit bounds the wait and never decides a rule.
@MainActor
public enum ConditionWait {
    /// Returns whether `condition` held before `limit` passed.
    public static func until(
        limit: Duration = .seconds(60), recheck: Duration = .milliseconds(20),
        _ condition: @escaping @MainActor () -> Bool
    ) async -> Bool {
        let gaveUp = Locked(false)
        let deadline = Task {
            try? await ContinuousClock().sleep(for: limit)
            gaveUp.withLock { $0 = true }
        }
        defer { deadline.cancel() }
        while !condition() {
            if gaveUp.withLock({ $0 }) || Task.isCancelled { return false }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumed = Locked(false)
                let resume: @Sendable () -> Void = {
                    let first = resumed.withLock { flag in
                        defer { flag = true }
                        return !flag
                    }
                    if first { continuation.resume() }
                }
                withObservationTracking {
                    _ = condition()
                } onChange: {
                    resume()
                }
                Task {
                    try? await ContinuousClock().sleep(for: recheck)
                    resume()
                }
            }
        }
        return true
    }
}
