import SybilCore
import SybilWire

/// Where ``AgentOutboxSender``'s requests run, off the main actor, and how one leads to the
/// next without it: while a request is out, the sender saves the entry behind it as `sending`
/// and tells the relay (``decide(after:next:)``); once that request is acknowledged, its task
/// submits the entry so decided at once, and the sender learns of the acknowledgement (and
/// that the next left) from ``outcome(of:isolation:)``, saving it while the next is out. A
/// message delivered after a queue of them costs one network round trip, not a round trip and
/// two thread hand-offs through the main actor.
///
/// The rules stay the sender's: the next leaves only after the one before it is acknowledged
/// (its receipt acknowledges exactly that submission), only once the sender decided it (the
/// entry is saved as `sending` by then), and never after a stop (a cancelled request task).
/// Anything else (a failure, a receipt for something else, nothing decided behind it) ends the
/// task with that outcome, and the sender goes on as without the relay.
final class AgentOutboxSendRelay: Sendable {
    /// How one request ended, and whether the entry decided behind it left.
    struct Outcome: Sendable {
        var requestId: String
        var result: Result<AgentRoomReceipt, AgentRoomError>
        var nextLeft: Bool
    }

    private enum Decision {
        case undecided(waiter: CheckedContinuation<AgentRoomSubmission?, Never>?)
        case next(AgentRoomSubmission?)
    }

    private struct State {
        /// The request out now, and what leaves once it is acknowledged.
        var current: String?
        var decision = Decision.undecided(waiter: nil)
        /// Outcomes the sender has not taken yet (in the order the requests left).
        var outcomes: [Outcome] = []
        var waiter: (requestId: String, continuation: CheckedContinuation<Outcome, Never>)?
    }

    private let state = Locked(State())

    /// The requests of `first` and of every entry decided behind it, one after another; runs on
    /// the task it is called from (the sender's request task) until one is not followed by
    /// another.
    static func run(
        _ first: AgentRoomSubmission, relay: AgentOutboxSendRelay,
        submit: @Sendable (AgentRoomSubmission) async -> Result<AgentRoomReceipt, AgentRoomError>
    ) async {
        var submission = first
        while true {
            let result = await submit(submission)
            let acknowledged: Bool
            if case .success(let receipt) = result, !Task.isCancelled {
                acknowledged = receipt.acknowledges(submission)
            } else {
                acknowledged = false
            }
            guard let next = await relay.finish(submission.requestId, result: result, acknowledged: acknowledged)
            else { return }
            submission = next
        }
    }

    /// Whether a request task was acknowledged and waits for ``decide(after:next:)`` (tests
    /// look for that moment).
    var awaitsDecision: Bool {
        state.withLock { state in
            if case .undecided(.some) = state.decision { return true }
            return false
        }
    }

    /// `requestId`'s request is about to leave (the sender starts its task).
    func begin(_ requestId: String) {
        state.withLock { state in
            state.current = requestId
            state.decision = .undecided(waiter: nil)
        }
    }

    /// What leaves once `requestId` is acknowledged: `next` (saved as `sending` by now), or
    /// nothing. Once per request; a decision for a request that already ended changes nothing.
    func decide(after requestId: String, next: AgentRoomSubmission?) {
        let waiter = state.withLock { state -> CheckedContinuation<AgentRoomSubmission?, Never>? in
            guard state.current == requestId, case .undecided(let waiter) = state.decision else { return nil }
            state.decision = .next(next)
            return waiter
        }
        waiter?.resume(returning: next)
    }

    /// The outcome of `requestId`, once its request ended; resumes on `isolation` (the sender's
    /// actor). The sender takes every outcome, in order, one at a time.
    func outcome(of requestId: String, isolation: isolated (any Actor)? = #isolation) async -> Outcome {
        await withCheckedContinuation(isolation: isolation) { (continuation: CheckedContinuation<Outcome, Never>) in
            let ready = state.withLock { state -> Outcome? in
                if let index = state.outcomes.firstIndex(where: { $0.requestId == requestId }) {
                    return state.outcomes.remove(at: index)
                }
                precondition(state.waiter == nil, "one sender takes the outcomes")
                state.waiter = (requestId, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// `requestId`'s request ended with `result`: reports it, and returns the entry to submit
    /// next when it was `acknowledged` and the sender decided one (waiting for that decision).
    private func finish(
        _ requestId: String, result: Result<AgentRoomReceipt, AgentRoomError>, acknowledged: Bool
    ) async -> AgentRoomSubmission? {
        let next: AgentRoomSubmission?
        if acknowledged {
            next = await withCheckedContinuation { (continuation: CheckedContinuation<AgentRoomSubmission?, Never>) in
                let decided = state.withLock { state -> AgentRoomSubmission?? in
                    guard state.current == requestId else { return .some(nil) }
                    switch state.decision {
                    case .next(let next): return .some(next)
                    case .undecided:
                        state.decision = .undecided(waiter: continuation)
                        return nil
                    }
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } else {
            next = nil
        }
        // A stop that came while the decision was awaited: nothing more leaves.
        let leaving = Task.isCancelled ? nil : next
        let outcome = Outcome(requestId: requestId, result: result, nextLeft: leaving != nil)
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            // One request is out at a time: the sender begins another only after taking this
            // outcome.
            state.current = leaving?.requestId
            state.decision = .undecided(waiter: nil)
            guard let waiter = state.waiter, waiter.requestId == requestId else {
                state.outcomes.append(outcome)
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: outcome)
        return leaving
    }
}
