import SybilCore
import SybilHTTP

/// The elements of the batches a producer hands a ``BoundedMessageQueue``, in order, as one
/// asynchronous sequence (``BoundedStream/makeFlattening(limit:_:)`` makes one). Its iterator
/// keeps the batch it is handing out to itself: an element already received is returned
/// without a lock, a task hand-off or a suspension point, and the queue is awaited only once
/// per batch. (An `AsyncThrowingStream` pays a cancellation handler and an executor check for
/// every element, which in a stream of small chat chunks cost more than decoding them.)
///
/// Dropping the sequence and its iterators, or a consumer cancelled while it waits, stops the
/// producer. Each iterator takes batches from the one shared queue, so iterate it from one
/// task at a time, as an `AsyncThrowingStream` of the same elements.
public struct BoundedBatchStream<Element: Sendable>: AsyncSequence, Sendable {
    /// What ends the sequence early.
    public typealias Failure = any Error

    @usableFromInline let source: Source

    init(queue: BoundedMessageQueue<[Element]>, stop: @escaping @Sendable () -> Void) {
        source = Source(queue: queue, stop: stop)
    }

    /// An iterator that hands out each batch's elements in order.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: source)
    }

    /// Hands out the elements of one batch after another.
    public struct Iterator: AsyncIteratorProtocol {
        /// What ends the sequence early.
        public typealias Failure = any Error

        @usableFromInline let source: Source
        @usableFromInline var batch: [Element] = []
        @usableFromInline var index = 0

        init(source: Source) {
            self.source = source
        }

        /// The next element, waiting for the producer only when the current batch is used up;
        /// `nil` after the producer's clean end.
        @inlinable
        public mutating func next() async throws -> Element? {
            try await next(isolation: nil)
        }

        /// The next element, as ``next()``, without leaving the caller's isolation for an
        /// element already received.
        @inlinable
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Element? {
            while true {
                if index < batch.count {
                    defer { index += 1 }
                    return batch[index]
                }
                // The used batch is let go before waiting: only the queue's bound is held.
                batch = []
                guard let elements = try await source.next() else { return nil }
                batch = elements
                index = 0
            }
        }
    }

    /// The queue and the producer's owner, shared by the sequence and its iterators.
    @usableFromInline
    final class Source: Sendable {
        private let queue: BoundedMessageQueue<[Element]>
        private let stop: @Sendable () -> Void

        init(queue: BoundedMessageQueue<[Element]>, stop: @escaping @Sendable () -> Void) {
            self.queue = queue
            self.stop = stop
        }

        /// The next batch; `nil` at the clean end. A failure (the producer's, or the consumer's
        /// cancellation) stops the producer.
        @usableFromInline
        func next() async throws -> [Element]? {
            do {
                return try await queue.next()
            } catch {
                stop()
                throw error
            }
        }

        deinit {
            // The sequence and every iterator are gone: nothing more is consumed.
            stop()
        }
    }
}
