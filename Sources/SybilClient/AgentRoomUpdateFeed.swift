import SybilCore

/// The updates of ``AgentRoomStream`` as the room model reads them: a bounded first-in
/// first-out queue like the `AsyncStream` of ``AgentRoomStreamSource/updates(replayFrom:)``
/// (the oldest updates kept, a new one refused when it is full), whose reader resumes on its
/// own executor when an update arrives.
///
/// An `AsyncStream` read from an actor (the room model's main actor) resumes its reader on the
/// cooperative pool first, and the reader then switches to its actor: two thread hand-offs for
/// every frame the socket's I/O thread decodes. Here the I/O thread resumes the reader on the
/// main actor directly. Updates already queued are taken without suspending.
///
/// The reader ends it by cancelling its task, by ``cancel()`` or by dropping the feed: the
/// queue empties, the waiting ``next(isolation:)`` returns `nil`, and the ``Writer``'s
/// `yield(_:)` answers ``YieldResult/terminated`` from then on; the termination handler runs
/// once (it cancels the stream's task). The writer's `finish()` ends it from its side: the
/// reader takes what is queued, then `nil`.
final class AgentRoomUpdateFeed: Sendable {
    /// What a writer's `yield(_:)` did with an update.
    enum YieldResult: Sendable, Equatable {
        /// Queued (or handed to the waiting reader).
        case enqueued
        /// Refused: the queue holds `limit` updates the reader has not taken.
        case dropped
        /// Refused: the feed ended.
        case terminated
    }

    /// The writer's side (the stream's task); it does not keep the feed open.
    struct Writer: Sendable {
        fileprivate let core: Core

        /// Runs `handler` once when the reader stops (at once when it has stopped already).
        func onTermination(_ handler: @escaping @Sendable () -> Void) { core.onTermination(handler) }

        /// Queues `update` for the reader, or hands it to the reader waiting for one; any
        /// thread.
        @discardableResult
        func yield(_ update: AgentRoomStreamUpdate) -> YieldResult { core.yield(update) }

        /// Ends the feed from the writer's side: the reader takes what is queued, then `nil`.
        func finish() { core.finish() }

        /// Whether the reader asked for the open connection to end (``requestReconnect()``);
        /// the request is taken, so it ends one connection.
        func takeReconnectRequest() -> Bool { core.takeReconnectRequest() }
    }

    private let core: Core

    /// The writer of this feed.
    let writer: Writer

    /// An empty feed that queues at most `limit` updates.
    init(limit: Int) {
        precondition(limit > 0, "the feed holds at least one update")
        core = Core(limit: limit)
        writer = Writer(core: core)
    }

    deinit {
        core.cancel()
    }

    /// Stops reading: what is queued is dropped, a waiting reader gets `nil`, and the
    /// termination handler runs (once).
    func cancel() { core.cancel() }

    /// Asks the stream to end its open connection before it hands on another frame and to
    /// connect again after its backoff (the reader can use nothing more of that connection).
    /// A connection that opens afterwards clears the request.
    func requestReconnect() { core.requestReconnect() }

    /// Updates the feed holds, taken ones not yet dropped included: at most the larger of twice
    /// its limit and its limit plus 63, however far behind its reader stays.
    var heldCount: Int { core.heldCount }

    /// The next update, oldest first; `nil` once the feed ended (finished and taken, or the
    /// reader stopped). Resumes on `isolation`, the caller's executor. One reader at a time.
    func next(isolation: isolated (any Actor)? = #isolation) async -> AgentRoomStreamUpdate? {
        await core.next(isolation: isolation)
    }
}

/// The queue a feed and its writer share.
private final class Core: Sendable {
    typealias YieldResult = AgentRoomUpdateFeed.YieldResult

    private struct State {
        var queue: [AgentRoomStreamUpdate] = []
        var head = 0
        var waiter: UnsafeContinuation<AgentRoomStreamUpdate?, Never>?
        /// The writer finished: the reader takes what is queued, then `nil`.
        var finished = false
        /// The reader stopped: nothing more is queued or taken.
        var terminated = false
        var onTermination: (@Sendable () -> Void)?
        /// The reader asked for the open connection to end.
        var reconnectRequested = false

        var count: Int { queue.count - head }

        mutating func take() -> AgentRoomStreamUpdate? {
            guard head < queue.count else { return nil }
            let update = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= queue.count {
                // A reader that stays behind never empties the queue: the updates it took are
                // dropped here, so at most max(2 × limit, limit + 63) are ever held.
                queue.removeFirst(head)
                head = 0
            }
            return update
        }
    }

    private let state = Locked(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Runs `handler` once when the reader stops (at once when it has stopped already).
    func onTermination(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.terminated else { return true }
            state.onTermination = handler
            return false
        }
        if now { handler() }
    }

    /// Queues `update` for the reader, or hands it to the reader waiting for one; any thread.
    @discardableResult
    func yield(_ update: AgentRoomStreamUpdate) -> YieldResult {
        let outcome = state.withLock { state -> (YieldResult, UnsafeContinuation<AgentRoomStreamUpdate?, Never>?) in
            if state.terminated || state.finished { return (.terminated, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.enqueued, waiter)
            }
            guard state.count < limit else { return (.dropped, nil) }
            state.queue.append(update)
            return (.enqueued, nil)
        }
        outcome.1?.resume(returning: update)
        return outcome.0
    }

    func requestReconnect() { state.withLock { $0.reconnectRequested = true } }

    func takeReconnectRequest() -> Bool {
        state.withLock { state in
            defer { state.reconnectRequested = false }
            return state.reconnectRequested
        }
    }

    /// Ends the feed from the writer's side: the reader takes what is queued, then `nil`.
    func finish() {
        let waiter = state.withLock { state -> UnsafeContinuation<AgentRoomStreamUpdate?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Updates held, taken ones not yet dropped included (for tests of the bound).
    var heldCount: Int { state.withLock { $0.queue.count } }

    /// Stops reading: what is queued is dropped, a waiting reader gets `nil`, and the
    /// termination handler runs (once).
    func cancel() {
        let (waiter, handler) = state.withLock {
            state -> (UnsafeContinuation<AgentRoomStreamUpdate?, Never>?, (@Sendable () -> Void)?) in
            guard !state.terminated else { return (nil, nil) }
            state.terminated = true
            state.queue.removeAll()
            state.head = 0
            defer {
                state.waiter = nil
                state.onTermination = nil
            }
            return (state.waiter, state.onTermination)
        }
        waiter?.resume(returning: nil)
        handler?()
    }

    /// The next update, oldest first; `nil` once the feed ended (finished and taken, or the
    /// reader stopped). Resumes on `isolation`, the caller's executor. One reader at a time.
    func next(isolation: isolated (any Actor)? = #isolation) async -> AgentRoomStreamUpdate? {
        if let ready = state.withLock({ state -> AgentRoomStreamUpdate?? in
            if state.terminated { return .some(nil) }
            if let update = state.take() { return .some(update) }
            return state.finished ? .some(nil) : nil
        }) {
            return ready
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: isolation) {
                (continuation: UnsafeContinuation<AgentRoomStreamUpdate?, Never>) in
                let now = state.withLock { state -> AgentRoomStreamUpdate?? in
                    if state.terminated { return .some(nil) }
                    if let update = state.take() { return .some(update) }
                    if state.finished { return .some(nil) }
                    precondition(state.waiter == nil, "two readers wait on one feed")
                    state.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            cancel()
        }
    }
}
