import SybilCore
import SybilTesting
import SybilWire
import Testing

@testable import SybilClient

/// The request task of the outbox sender: the entry decided behind a request leaves as soon as
/// that request is acknowledged, without the sender taking the outcome first, and in no other
/// case.
@Suite("Agent outbox send relay", .timeLimit(.minutes(1)))
struct AgentOutboxSendRelayTests {
    /// Answers submissions as told, one at a time: each waits for its answer.
    final class FakeRequests: Sendable {
        private struct State {
            var submitted: [String] = []
            var answers: [String: CheckedContinuation<Result<AgentRoomReceipt, AgentRoomError>, Never>] = [:]
            var ready: [String: Result<AgentRoomReceipt, AgentRoomError>] = [:]
            var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let state = Locked(State())

        /// The request ids submitted so far, in order.
        var submitted: [String] { state.withLock { $0.submitted } }

        func submit(_ submission: AgentRoomSubmission) async -> Result<AgentRoomReceipt, AgentRoomError> {
            await withCheckedContinuation { continuation in
                let (ready, woken) = state.withLock {
                    state -> (Result<AgentRoomReceipt, AgentRoomError>?, [CheckedContinuation<Void, Never>]) in
                    state.submitted.append(submission.requestId)
                    let count = state.submitted.count
                    let woken = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    if let ready = state.ready.removeValue(forKey: submission.requestId) { return (ready, woken) }
                    state.answers[submission.requestId] = continuation
                    return (nil, woken)
                }
                for watcher in woken { watcher.resume() }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// Answers `requestId` now, or as soon as it is submitted.
        func answer(_ requestId: String, _ result: Result<AgentRoomReceipt, AgentRoomError>) {
            let waiting = state.withLock { state in
                guard let waiting = state.answers.removeValue(forKey: requestId) else {
                    state.ready[requestId] = result
                    return nil as CheckedContinuation<Result<AgentRoomReceipt, AgentRoomError>, Never>?
                }
                return waiting
            }
            waiting?.resume(returning: result)
        }

        /// Returns once `count` submissions were made.
        func waitForSubmissions(_ count: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.submitted.count >= count { return true }
                    state.watchers.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    static func submission(_ id: String) -> AgentRoomSubmission {
        AgentRoomSubmission(requestId: id, text: "message \(id)", createdAt: 1_764_400_200_000)
    }

    static func receipt(_ id: String, cursor: String = "c-000007") -> Result<AgentRoomReceipt, AgentRoomError> {
        .success(AgentRoomReceipt(requestId: id, messageId: "msg-\(id)", cursor: AgentCursor(cursor)!, attachments: []))
    }

    /// Starts the request task for `first`.
    static func start(_ first: String, relay: AgentOutboxSendRelay, requests: FakeRequests) -> Task<Void, Never> {
        relay.begin(first)
        return Task { await AgentOutboxSendRelay.run(submission(first), relay: relay) { await requests.submit($0) } }
    }

    @Test func theEntryDecidedBehindLeavesOnceTheOneBeforeIsAcknowledgedBeforeItsOutcomeIsTaken() async {
        let relay = AgentOutboxSendRelay()
        let requests = FakeRequests()
        let task = Self.start("req-1", relay: relay, requests: requests)
        relay.decide(after: "req-1", next: Self.submission("req-2"))
        requests.answer("req-1", Self.receipt("req-1"))
        // Nobody took req-1's outcome: req-2 left from the request task itself.
        await requests.waitForSubmissions(2)
        #expect(requests.submitted == ["req-1", "req-2"])
        let first = await relay.outcome(of: "req-1")
        #expect(first.nextLeft)
        #expect((try? first.result.get())?.requestId == "req-1")
        // Nothing decided behind req-2 (and the decision comes after its answer): it ends there.
        requests.answer("req-2", Self.receipt("req-2"))
        relay.decide(after: "req-2", next: nil)
        let second = await relay.outcome(of: "req-2")
        #expect(!second.nextLeft)
        await task.value
        #expect(requests.submitted == ["req-1", "req-2"])
    }

    @Test func anAcknowledgedRequestWaitsForTheDecisionBehindIt() async throws {
        let relay = AgentOutboxSendRelay()
        let requests = FakeRequests()
        let task = Self.start("req-1", relay: relay, requests: requests)
        requests.answer("req-1", Self.receipt("req-1"))
        // Acknowledged, and nothing decided yet: the request task waits, sending nothing.
        try #require(
            await ConditionWait.until(limit: .seconds(20)) { relay.awaitsDecision },
            "the request task waits for the decision")
        #expect(requests.submitted == ["req-1"])
        // Decided only now (the write saving req-2 as sending took longer than the request).
        relay.decide(after: "req-1", next: Self.submission("req-2"))
        await requests.waitForSubmissions(2)
        #expect((await relay.outcome(of: "req-1")).nextLeft)
        requests.answer("req-2", .failure(.transport("connection reset")))
        let second = await relay.outcome(of: "req-2")
        #expect(!second.nextLeft)
        await task.value
    }

    @Test(
        "nothing more leaves after a failure or a receipt for another submission",
        arguments: [
            Result<AgentRoomReceipt, AgentRoomError>.failure(.transport("connection reset")),
            AgentOutboxSendRelayTests.receipt("req-9"),
        ])
    func nothingLeavesAfterARequestThatWasNotAcknowledged(_ answer: Result<AgentRoomReceipt, AgentRoomError>) async {
        let relay = AgentOutboxSendRelay()
        let requests = FakeRequests()
        let task = Self.start("req-1", relay: relay, requests: requests)
        relay.decide(after: "req-1", next: Self.submission("req-2"))
        requests.answer("req-1", answer)
        let outcome = await relay.outcome(of: "req-1")
        #expect(!outcome.nextLeft)
        await task.value
        #expect(requests.submitted == ["req-1"])
    }

    @Test func nothingLeavesAfterAStop() async {
        let relay = AgentOutboxSendRelay()
        let requests = FakeRequests()
        let task = Self.start("req-1", relay: relay, requests: requests)
        await requests.waitForSubmissions(1)
        task.cancel()
        requests.answer("req-1", Self.receipt("req-1"))
        relay.decide(after: "req-1", next: Self.submission("req-2"))
        let outcome = await relay.outcome(of: "req-1")
        #expect(!outcome.nextLeft)
        await task.value
        #expect(requests.submitted == ["req-1"])
    }

    @Test func aDecisionForARequestThatEndedChangesNothing() async {
        let relay = AgentOutboxSendRelay()
        let requests = FakeRequests()
        let task = Self.start("req-1", relay: relay, requests: requests)
        requests.answer("req-1", .failure(.transport("connection reset")))
        #expect(!(await relay.outcome(of: "req-1")).nextLeft)
        await task.value
        relay.decide(after: "req-1", next: Self.submission("req-2"))
        // The next request starts afresh and is not followed by the stale decision.
        let next = Self.start("req-2", relay: relay, requests: requests)
        requests.answer("req-2", Self.receipt("req-2"))
        relay.decide(after: "req-2", next: nil)
        #expect(!(await relay.outcome(of: "req-2")).nextLeft)
        await next.value
        #expect(requests.submitted == ["req-1", "req-2"])
    }
}
