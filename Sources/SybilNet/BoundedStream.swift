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
        let task = Task {
            do {
                try await produce { element in await queue.push(element, cost: max(1, element.boundedCost)) }
                queue.finish()
            } catch {
                queue.finish(throwing: error)
            }
        }
        let owner = Owner(task: task, stop: { queue.finish(throwing: CancellationError()) })
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
