import SybilCore
import Synchronization

/// Fans values out to every current subscriber (live streams of one room or chat). A
/// subscriber that stops listening is dropped; a slow one buffers up to `bufferLimit` values,
/// and past that its subscription ends after the values it has, with no gap: its client
/// reconnects and replays from the last one it got (its cursor or `Last-Event-ID`).
///
/// A subscriber takes every value queued for it in one go (``Subscription/next()``): a burst
/// published while its task was on its way costs that task one wake-up, not one per value.
/// The limit counts the values not taken yet, so a subscriber holds at most twice it: a full
/// queue and the batch it is working through.
final class Broadcast<Value: Sendable>: Sendable {
    /// One subscriber's side: the values published since it subscribed, taken in batches.
    /// Dropping it (or cancelling the task waiting in ``next()``) unsubscribes.
    final class Subscription: Sendable {
        fileprivate let queue: Queue

        fileprivate init(queue: Queue) {
            self.queue = queue
        }

        deinit {
            queue.cancel()
        }

        /// Every value queued since the last call, oldest first, waiting for one when none is;
        /// `nil` once the subscription ended (it fell `bufferLimit` values behind and took
        /// what it had, or the waiting task was cancelled). One reader at a time.
        func next() async -> [Value]? {
            await queue.next()
        }
    }

    private struct Subscribers {
        var byID: [UInt64: Queue] = [:]
        /// The same queues, copied once per change so a publish takes no copy of its own.
        var all: [Queue] = []
    }

    private let subscribers = Locked(Subscribers())
    private let nextID = Atomic<UInt64>(0)
    private let bufferLimit: Int

    init(bufferLimit: Int = 1024) {
        precondition(bufferLimit > 0, "a subscriber buffers at least one value")
        self.bufferLimit = bufferLimit
    }

    /// How many subscriptions are open (for tests).
    var subscriberCount: Int { subscribers.withLock { $0.byID.count } }

    /// A subscription to every value published from now on.
    func subscribe() -> Subscription {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let queue = Queue(limit: bufferLimit) { [weak self] in self?.remove(id) }
        subscribers.withLock { subscribers in
            subscribers.byID[id] = queue
            subscribers.all = Array(subscribers.byID.values)
        }
        return Subscription(queue: queue)
    }

    /// Delivers `value` to every subscriber; one whose buffer is full is ended instead.
    func publish(_ value: Value) {
        publish(contentsOf: CollectionOfOne(value))
    }

    /// Delivers `values`, in order, to every subscriber as one burst: a subscriber waiting
    /// takes them all in one wake-up. One whose buffer cannot take them all gets those that
    /// fit and is ended.
    func publish(contentsOf values: some Collection<Value>) {
        guard !values.isEmpty else { return }
        for queue in subscribers.withLock({ $0.all }) { queue.offer(values) }
    }

    private func remove(_ id: UInt64) {
        subscribers.withLock { subscribers in
            guard subscribers.byID.removeValue(forKey: id) != nil else { return }
            subscribers.all = Array(subscribers.byID.values)
        }
    }

    /// The values queued for one subscriber and the task waiting for them.
    fileprivate final class Queue: Sendable {
        private struct State {
            var values: [Value] = []
            var waiter: UnsafeContinuation<[Value]?, Never>?
            /// Nothing more is queued: the reader takes what is, then the end.
            var ended = false
        }

        private let state = Locked(State())
        private let limit: Int
        /// Unsubscribes; run once, when the queue ends.
        private let removal: @Sendable () -> Void

        init(limit: Int, removal: @escaping @Sendable () -> Void) {
            self.limit = limit
            self.removal = removal
        }

        /// Queues what fits of `values`, handing the queue to the waiting reader; past the
        /// limit the queue ends after the values that fit.
        func offer(_ values: some Collection<Value>) {
            let (waiter, handed, overflowed) = state.withLock {
                state -> (UnsafeContinuation<[Value]?, Never>?, [Value]?, Bool) in
                guard !state.ended else { return (nil, nil, false) }
                let room = limit - state.values.count
                let overflowed = values.count > room
                if overflowed {
                    state.values.append(contentsOf: values.prefix(room))
                    state.ended = true
                } else {
                    state.values.append(contentsOf: values)
                }
                guard let waiter = state.waiter else { return (nil, nil, overflowed) }
                state.waiter = nil
                return (waiter, Self.take(&state), overflowed)
            }
            waiter?.resume(returning: handed)
            if overflowed { removal() }
        }

        /// Ends the queue from the reader's side: what is queued is dropped, a waiting reader
        /// gets `nil`.
        func cancel() {
            let (waiter, first) = state.withLock { state -> (UnsafeContinuation<[Value]?, Never>?, Bool) in
                let first = !state.ended
                state.ended = true
                state.values = []
                defer { state.waiter = nil }
                return (state.waiter, first)
            }
            waiter?.resume(returning: nil)
            if first { removal() }
        }

        func next() async -> [Value]? {
            if let ready = state.withLock({ state -> [Value]?? in
                state.values.isEmpty && !state.ended ? nil : .some(Self.take(&state))
            }) {
                return ready
            }
            return await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<[Value]?, Never>) in
                    let now = state.withLock { state -> [Value]?? in
                        if !state.values.isEmpty || state.ended { return .some(Self.take(&state)) }
                        precondition(state.waiter == nil, "two readers wait on one subscription")
                        state.waiter = continuation
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                cancel()
            }
        }

        /// The queued values, or `nil` when there are none (the queue ended).
        private static func take(_ state: inout State) -> [Value]? {
            guard !state.values.isEmpty else { return nil }
            defer { state.values = [] }
            return state.values
        }
    }
}
