import SybilCore

/// IDs `prefix-1`, `prefix-2`, … in order: readable, deterministic ids for tests and benchmarks.
public final class SequentialIDGenerator: IDGenerator {
    private let prefix: String
    private let counter = Locked(0)

    /// A generator whose ids start with `prefix`.
    public init(prefix: String) { self.prefix = prefix }

    public func makeID() -> String {
        let n = counter.withLock {
            $0 += 1
            return $0
        }
        return "\(prefix)-\(n)"
    }
}
