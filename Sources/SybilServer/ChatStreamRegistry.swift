import SybilCore

/// Running and recently finished chat streams, shared by the producers that generate them and
/// the connections that read them (docs/api/chats.md, "Resuming a stream"). Generation is
/// decoupled from the connection: a producer appends whether or not anyone reads, and a reader
/// replays what it missed, then waits here for more. The rules live in ``ChatStreamTable``.
final class ChatStreamRegistry: Sendable {
    private struct State {
        var table: ChatStreamTable
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiter: UInt64 = 0
    }

    private enum Waiter {
        case waiting(id: String, after: Int64, CheckedContinuation<Void, Never>)
        case cancelled
    }

    private let state: Locked<State>
    private let now: @Sendable () -> Duration

    /// A registry with `limits`, reading the time from `now` (the server's injected uptime).
    init(limits: ChatStreamTable.Limits = ChatStreamTable.Limits(), now: @escaping @Sendable () -> Duration) {
        state = Locked(State(table: ChatStreamTable(limits: limits)))
        self.now = now
    }

    /// The bounds.
    var limits: ChatStreamTable.Limits { state.withLock { $0.table.limits } }

    /// Opens stream `id`; false when every kept stream is running (the caller answers 503).
    func open(_ id: String) -> Bool {
        let now = now()
        return state.withLock { $0.table.open(id, now: now) }
    }

    /// Appends an event and wakes the readers of `id`.
    @discardableResult
    func append(_ id: String, data: String, type: String? = nil, overLimitFrame: String) -> ChatStreamTable.Appended {
        let now = now()
        return changed(id) { $0.append(id, data: data, type: type, now: now, overLimitFrame: overLimitFrame) }
    }

    /// Ends stream `id` and wakes its readers.
    func finish(_ id: String) {
        let now = now()
        changed(id) { $0.finish(id, now: now) }
    }

    /// The events of `id` after `after`.
    func read(_ id: String, after: Int64) -> ChatStreamTable.Read {
        let now = now()
        return state.withLock { $0.table.read(id, after: after, now: now) }
    }

    /// Returns once `id` has events after `after`, has finished or is gone, or the calling task
    /// is cancelled.
    func wait(_ id: String, after: Int64) async {
        let token = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if case .cancelled? = state.waiters[token] {
                        state.waiters[token] = nil
                        return true
                    }
                    if state.table.hasNews(id, after: after) { return true }
                    state.waiters[token] = .waiting(id: id, after: after, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if case .waiting(_, _, let continuation)? = state.waiters[token] {
                    state.waiters[token] = nil
                    return continuation
                }
                state.waiters[token] = .cancelled
                return nil
            }
            waiting?.resume()
        }
        // A cancellation that came after the wait ended leaves a marker; drop it.
        state.withLock { state in
            if case .cancelled? = state.waiters[token] { state.waiters[token] = nil }
        }
    }

    /// Runs `change` on the table, then resumes the readers of `id` that now have news.
    @discardableResult
    private func changed<T>(_ id: String, _ change: (inout ChatStreamTable) -> T) -> T {
        let (result, ready) = state.withLock { state in
            let result = change(&state.table)
            var ready: [CheckedContinuation<Void, Never>] = []
            for (token, waiter) in state.waiters {
                guard case .waiting(let waitingId, let after, let continuation) = waiter, waitingId == id,
                    state.table.hasNews(id, after: after)
                else { continue }
                state.waiters[token] = nil
                ready.append(continuation)
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }
}
