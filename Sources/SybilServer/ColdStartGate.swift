import SybilCore

/// A scale-to-zero service's start-up, simulated: the first request after `idleTimeout`
/// without requests (or the very first) begins a start that lasts `duration`; requests
/// during it are told how long is left.
final class ColdStartGate: Sendable {
    /// What a request meets.
    enum Admission: Sendable, Equatable {
        case ready
        /// Starting; this much is left.
        case starting(remaining: Duration)
    }

    private let duration: Duration
    private let idleTimeout: Duration
    private let state = Locked<(lastRequest: Duration?, readyAt: Duration?)>((nil, nil))

    init(duration: Duration, idleTimeout: Duration) {
        self.duration = duration
        self.idleTimeout = idleTimeout
    }

    /// Records a request at `now` and says whether the service is up.
    func admit(now: Duration) -> Admission {
        state.withLock { state in
            defer { state.lastRequest = now }
            if let readyAt = state.readyAt, now < readyAt { return .starting(remaining: readyAt - now) }
            if let last = state.lastRequest, now - last <= idleTimeout { return .ready }
            guard duration > .zero else { return .ready }
            state.readyAt = now + duration
            return .starting(remaining: duration)
        }
    }
}
