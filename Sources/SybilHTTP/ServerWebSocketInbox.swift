import SybilCore

/// The messages a WebSocket session has not taken yet, in order, and the weight it has taken
/// since the transport last asked: the transport bounds the inbox by what it delivered minus
/// what was taken. `consumed` is called once per batch of takes (not again until the
/// transport has collected the weight), so a session that keeps up costs one report per
/// batch, not one per message. After `.closed` the inbox ends.
final class ServerWebSocketInbox: Sendable {
    private struct State {
        var messages: [WebSocketIncoming] = []
        var head = 0
        var finished = false
        var waiter: CheckedContinuation<WebSocketIncoming?, Never>?
        var consumedWeight = 0
        var reportPending = false
    }

    private let state = Locked(State())
    private let consumed: @Sendable () -> Void

    init(consumed: @escaping @Sendable () -> Void) {
        self.consumed = consumed
    }

    /// Adds a message from the client; the first `.closed` ends the inbox.
    func append(_ message: WebSocketIncoming) {
        let (waiter, report) = state.withLock { state -> (CheckedContinuation<WebSocketIncoming?, Never>?, Bool) in
            guard !state.finished else { return (nil, false) }
            if case .closed = message { state.finished = true }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, Self.took(message, &state))
            }
            state.messages.append(message)
            return (nil, false)
        }
        if report { consumed() }
        waiter?.resume(returning: message)
    }

    /// The next message, or `nil` after `.closed` or when the waiting task is cancelled.
    func next() async -> WebSocketIncoming? {
        let cancelled = Locked(false)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketIncoming?, Never>) in
                let (ready, report) = state.withLock { state -> (WebSocketIncoming??, Bool) in
                    if state.head < state.messages.count {
                        let message = state.messages[state.head]
                        state.head += 1
                        if state.head > 64, state.head * 2 > state.messages.count {
                            state.messages.removeFirst(state.head)
                            state.head = 0
                        }
                        return (.some(message), Self.took(message, &state))
                    }
                    if state.finished || cancelled.withLock({ $0 }) { return (.some(nil), false) }
                    state.waiter = continuation
                    return (nil, false)
                }
                if report { consumed() }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                cancelled.withLock { $0 = true }
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The weight taken since the last call; the next take reports again.
    func takeConsumedWeight() -> Int {
        state.withLock { state in
            defer {
                state.consumedWeight = 0
                state.reportPending = false
            }
            return state.consumedWeight
        }
    }

    /// Accounts for a taken message; returns whether the transport must be told.
    private static func took(_ message: WebSocketIncoming, _ state: inout State) -> Bool {
        let weight = ServerWebSocket.weight(of: message)
        guard weight > 0 else { return false }
        state.consumedWeight += weight
        guard !state.reportPending else { return false }
        state.reportPending = true
        return true
    }
}
