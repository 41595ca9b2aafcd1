import Synchronization

/// Fans values out to every current subscriber (live streams of one room or chat). A
/// subscriber that stops listening is dropped; a slow one buffers up to `bufferLimit` values,
/// then loses the oldest (it replays from its cursor when it reconnects).
final class Broadcast<Value: Sendable>: Sendable {
    private let subscribers = Mutex<[UInt64: AsyncStream<Value>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let bufferLimit: Int

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    /// A stream of every value published from now on.
    func subscribe() -> AsyncStream<Value> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingNewest(bufferLimit))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Delivers `value` to every subscriber.
    func publish(_ value: Value) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(value) }
    }
}
