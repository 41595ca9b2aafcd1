import SybilCore
import SybilHTTP

/// What an element costs a bounded stream: about the bytes it holds.
public protocol BoundedCost: Sendable {
    /// The bytes it holds (at least 1 is counted).
    var boundedCost: Int { get }
}

/// Hands a produced element to a ``BoundedStream``: waits while its queue is full, and returns
/// `false` once the consumer is gone (the producer should stop).
public typealias BoundedYield<Element: Sendable> = @Sendable (Element) async -> Bool

/// An `AsyncThrowingStream` whose producer is slowed to its consumer's pace: at most ``limit``
/// bytes of elements wait between them (``BoundedMessageQueue``), and a producer that gets
/// ahead waits in its `yield`. Every hop of a chat reply (transport, service, printer) is one
/// of these, so a server sending faster than the reply is shown is slowed by TCP instead of
/// filling memory. Dropping the stream, or cancelling its consumer, cancels the producer.
public enum BoundedStream {
    /// The bytes of elements a stream holds by default.
    public static let defaultLimit = 1 << 20

    /// A stream of what `produce` yields; its end (or error) ends the stream.
    public static func make<Element: BoundedCost>(
        limit: Int = defaultLimit,
        _ produce: @escaping @Sendable (_ yield: @escaping BoundedYield<Element>) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let queue = BoundedMessageQueue<Element>(limit: limit)
        let owner = start(queue, cost: { max(1, $0.boundedCost) }, produce)
        // The closure holds the owner: when the stream goes away, so does the producer.
        return AsyncThrowingStream(unfolding: {
            do {
                return try await queue.next()
            } catch {
                // The consumer was cancelled or the producer failed: nothing more is produced.
                owner.stop()
                throw error
            }
        })
    }

    /// A stream of the elements of the batches `produce` yields, in order. A producer that
    /// makes several elements at once (the events of one socket read) hands them over in one
    /// step, and the consumer takes them one at a time without waiting on the producer for
    /// each: one hand-off between tasks per batch instead of one per element. A batch costs
    /// the sum of its elements' costs, so the bound is the same as ``make(limit:_:)``'s.
    public static func makeFlattening<Element: BoundedCost>(
        limit: Int = defaultLimit,
        _ produce: @escaping @Sendable (_ yield: @escaping BoundedYield<[Element]>) async throws -> Void
    ) -> AsyncThrowingStream<Element, any Error> {
        let queue = BoundedMessageQueue<[Element]>(limit: limit)
        // Summed here, where `Element` is known, not through a conformance of `Array`.
        let owner = start(queue, cost: { $0.reduce(0) { $0 + max(1, $1.boundedCost) } }, produce)
        let batch = Batch<Element>()
        return AsyncThrowingStream(unfolding: {
            while true {
                if let element = batch.next() { return element }
                do {
                    guard let elements = try await queue.next() else { return nil }
                    batch.replace(with: elements)
                } catch {
                    owner.stop()
                    throw error
                }
            }
        })
    }

    /// Runs `produce` in a task that pushes into `queue` (each element costing what `cost`
    /// says) and ends it; the owner cancels both.
    private static func start<Element: Sendable>(
        _ queue: BoundedMessageQueue<Element>, cost: @escaping @Sendable (Element) -> Int,
        _ produce: @escaping @Sendable (_ yield: @escaping BoundedYield<Element>) async throws -> Void
    ) -> Owner {
        let task = Task {
            do {
                try await produce { element in await queue.push(element, cost: max(1, cost(element))) }
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
        return Owner(task: task, stop: { queue.finish(throwing: CancellationError()) })
    }

    /// The batch a flattening stream is handing out, element by element.
    private final class Batch<Element: Sendable>: Sendable {
        private let state = Locked((elements: [Element](), index: 0))

        /// The next element of the batch, or `nil` when it is used up.
        func next() -> Element? {
            state.withLock { state in
                guard state.index < state.elements.count else { return nil }
                defer { state.index += 1 }
                return state.elements[state.index]
            }
        }

        /// Starts handing out `elements`.
        func replace(with elements: [Element]) {
            state.withLock { $0 = (elements, 0) }
        }
    }

    /// Cancels the producer when the stream goes away.
    private final class Owner: Sendable {
        let task: Task<Void, Never>
        let finish: @Sendable () -> Void

        init(task: Task<Void, Never>, stop finish: @escaping @Sendable () -> Void) {
            self.task = task
            self.finish = finish
        }

        func stop() {
            task.cancel()
            finish()
        }

        deinit {
            stop()
        }
    }
}

extension String: BoundedCost {
    /// Its UTF-8 bytes.
    public var boundedCost: Int { utf8.count }
}
