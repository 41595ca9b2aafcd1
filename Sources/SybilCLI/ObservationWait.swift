import Observation

/// Waits for a condition over `@Observable` state, re-checking only when what it read changes.
@MainActor
enum ObservationWait {
    /// Returns once `condition` is true.
    static func until(_ condition: @escaping @MainActor () -> Bool) async {
        while !condition() {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking {
                    _ = condition()
                } onChange: {
                    continuation.resume()
                }
            }
        }
    }
}
