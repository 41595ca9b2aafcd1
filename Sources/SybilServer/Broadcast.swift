import SybilCore
import Synchronization

/// Fans values out to every current subscriber (live streams of one room or chat). A
/// subscriber that stops listening is dropped; a slow one buffers up to `bufferLimit` values,
/// and past that its stream ends after the values it has, with no gap: its client reconnects
/// and replays from the last one it got (its cursor or `Last-Event-ID`).
final class Broadcast<Value: Sendable>: Sendable {
    private let subscribers = Locked<[UInt64: AsyncStream<Value>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let bufferLimit: Int

    init(bufferLimit: Int = 1024) {
        self.bufferLimit = bufferLimit
    }

    /// A stream of every value published from now on.
    func subscribe() -> AsyncStream<Value> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        return stream
    }

    /// Delivers `value` to every subscriber; one whose buffer is full is ended instead.
    func publish(_ value: Value) {
        for continuation in subscribers.withLock({ Array($0.values) }) {
            if case .dropped = continuation.yield(value) { continuation.finish() }
        }
    }
}
