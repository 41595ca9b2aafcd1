import SybilCore

/// A queue between one producer and one consumer that holds at most ``limit`` bytes of
/// elements: ``push(_:cost:)`` waits while the queue is full, so a fast producer (a socket's
/// reader) is slowed to its consumer's pace instead of filling memory. One element larger
/// than the limit is still accepted when the queue is empty, so nothing is stuck.
///
/// ``stream`` hands the elements out in order; it ends after ``finish(throwing:)`` once the
/// queued elements are taken, and a finished queue refuses further pushes.
public final class BoundedMessageQueue<Element: Sendable>: Sendable {
    /// The bytes of queued elements above which ``push(_:cost:)`` waits.
    public let limit: Int
    private let state = Locked(State())

    private struct State {
        var items: [(element: Element, cost: Int)] = []
        var head = 0
        var queuedCost = 0
        var consumer: CheckedContinuation<Element?, any Error>?
        var producer: CheckedContinuation<Void, Never>?
        /// Set once: `nil` inside for a clean end.
        var end: (any Error)??
    }

    /// A queue holding at most `limit` bytes.
    public init(limit: Int) {
        precondition(limit > 0, "a queue needs room for something")
        self.limit = limit
    }

    /// Bytes queued now.
    public var queuedBytes: Int {
        state.withLock { $0.queuedCost }
    }

    /// The elements in order, pulled from the queue as the consumer asks.
    public var stream: AsyncThrowingStream<Element, any Error> {
        AsyncThrowingStream(unfolding: { [self] in try await next() })
    }

    /// Queues `element` (costing `cost` bytes), waiting while the queue is full; returns
    /// `false` when the queue is finished and the element was dropped.
    @discardableResult
    public func push(_ element: Element, cost: Int) async -> Bool {
        while true {
            let step = state.withLock { state -> PushStep in
                if state.end != nil { return .dropped }
                if let consumer = state.consumer {
                    state.consumer = nil
                    return .handed(consumer)
                }
                if state.queuedCost > 0, state.queuedCost + cost > limit { return .wait }
                state.items.append((element, cost))
                state.queuedCost += cost
                return .queued
            }
            switch step {
            case .handed(let consumer):
                consumer.resume(returning: element)
                return true
            case .queued: return true
            case .dropped: return false
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { state -> Bool in
                        if state.end != nil || state.queuedCost == 0 || state.queuedCost + cost <= limit { return true }
                        state.producer = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    private enum PushStep {
        case handed(CheckedContinuation<Element?, any Error>)
        case queued
        case dropped
        case wait
    }

    /// Ends the queue: the consumer gets the queued elements, then the end (or `error`); a
    /// waiting producer is released and its element dropped.
    public func finish(throwing error: (any Error)? = nil) {
        let (consumer, producer) = state.withLock {
            state -> (CheckedContinuation<Element?, any Error>?, CheckedContinuation<Void, Never>?) in
            guard state.end == nil else { return (nil, nil) }
            state.end = .some(error)
            defer {
                state.consumer = nil
                state.producer = nil
            }
            return (state.head < state.items.count ? nil : state.consumer, state.producer)
        }
        producer?.resume()
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
    }

    /// The next element, waiting for one; `nil` after a clean end.
    public func next() async throws -> Element? {
        // Something queued: taken without a continuation or a cancellation handler.
        let (ready, producer) = state.withLock { state -> (Element?, CheckedContinuation<Void, Never>?) in
            guard let element = Self.takeFirst(&state) else { return (nil, nil) }
            defer { state.producer = nil }
            return (element, state.producer)
        }
        if let ready {
            producer?.resume()
            return ready
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let (outcome, producer) = state.withLock {
                    state -> (Result<Element?, any Error>?, CheckedContinuation<Void, Never>?) in
                    if let element = Self.takeFirst(&state) {
                        defer { state.producer = nil }
                        return (.success(element), state.producer)
                    }
                    switch state.end {
                    case .some(.none): return (.success(nil), nil)
                    case .some(.some(let error)): return (.failure(error), nil)
                    case .none: break
                    }
                    if Task.isCancelled { return (.failure(CancellationError()), nil) }
                    state.consumer = continuation
                    return (nil, nil)
                }
                producer?.resume()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let consumer = state.withLock { state in
                defer { state.consumer = nil }
                return state.consumer
            }
            consumer?.resume(throwing: CancellationError())
        }
    }

    /// Takes the first queued element, if any, from `state`.
    private static func takeFirst(_ state: inout State) -> Element? {
        guard state.head < state.items.count else { return nil }
        let item = state.items[state.head]
        state.head += 1
        state.queuedCost -= item.cost
        if state.head == state.items.count {
            state.items.removeAll(keepingCapacity: true)
            state.head = 0
        }
        return item.element
    }
}
