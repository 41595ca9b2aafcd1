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

/// Hands a batch of produced elements and what they cost together (in bytes) to a
/// ``BoundedBatchStream``: waits while its queue is full, and returns `false` once the consumer
/// is gone. An empty batch is skipped.
public typealias BoundedBatchYield<Element: Sendable> = @Sendable (_ batch: [Element], _ cost: Int) async -> Bool

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
        let owner = start(queue) { push in try await produce { element in await push(element, element.boundedCost) } }
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
    /// each: one hand-off between tasks per batch instead of one per element, and none per
    /// element on the consumer's side (``BoundedBatchStream``). A batch costs the sum of its
    /// elements' costs, so the bound is the same as ``make(limit:_:)``'s.
    public static func makeFlattening<Element: BoundedCost>(
        limit: Int = defaultLimit,
        _ produce: @escaping @Sendable (_ yield: @escaping BoundedYield<[Element]>) async throws -> Void
    ) -> BoundedBatchStream<Element> {
        makeBatched(limit: limit) { yield in
            try await produce { batch in await yield(batch, batch.reduce(0) { $0 + max(1, $1.boundedCost) }) }
        }
    }

    /// As ``makeFlattening(limit:_:)``, for a producer that knows what each batch costs (the
    /// bytes of the events it came from) and hands that over with it, so nothing is summed per
    /// element.
    public static func makeBatched<Element: Sendable>(
        limit: Int = defaultLimit,
        _ produce: @escaping @Sendable (_ yield: @escaping BoundedBatchYield<Element>) async throws -> Void
    ) -> BoundedBatchStream<Element> {
        let queue = BoundedMessageQueue<[Element]>(limit: limit)
        let owner = start(queue) { push in
            try await produce { batch, cost in batch.isEmpty ? true : await push(batch, cost) }
        }
        // The sequence holds the owner: when it and its iterators go away, so does the producer.
        return BoundedBatchStream(queue: queue, stop: { owner.stop() })
    }

    /// Runs `produce` in a task that pushes into `queue` (each element costing what it is
    /// pushed with, at least 1) and ends it; the owner cancels both.
    private static func start<Element: Sendable>(
        _ queue: BoundedMessageQueue<Element>,
        _ produce: @escaping @Sendable (_ push: @escaping @Sendable (Element, Int) async -> Bool) async throws -> Void
    ) -> Owner {
        let task = Task {
            do {
                try await produce { element, cost in await queue.push(element, cost: max(1, cost)) }
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
        return Owner(task: task, stop: { queue.finish(throwing: CancellationError()) })
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
