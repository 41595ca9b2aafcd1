import SybilClient
import SybilCore
import SybilWire
import Testing

/// Saving the entry behind the one being submitted as `sending` ahead of its turn.
@Suite("Agent outbox queue, next saved ahead", .timeLimit(.minutes(2)))
struct AgentOutboxQueueAheadTests {
    typealias Q = AgentOutboxQueueTests

    @Test func onlyTheQueuedEntryRightBehindTheOneInFlightIsMarkedAhead() throws {
        var queue = try Q.queue("a", "b", "c")
        #expect(throws: AgentOutboxError.self) { try queue.beginSendingNext(after: "a") }
        _ = try queue.beginSending("a")
        #expect(queue.queuedBehind("a")?.requestId == "b")
        let next = try queue.beginSendingNext(after: "a")
        #expect(next.requestId == "b")
        #expect(queue.entries.map(\.state) == [.sending, .sending, .queued])
        #expect(queue.entries.map(\.attempts) == [1, 1, 0])
        #expect(queue.nextAction == .inFlight(requestId: "a"), "a is still the one being sent")
        #expect(queue.queuedBehind("a") == nil, "b is already marked")
        #expect(throws: AgentOutboxError.self) { try queue.beginSendingNext(after: "a") }
        #expect(throws: AgentOutboxError.self) { try queue.beginSendingNext(after: "b") }
        #expect(throws: AgentOutboxError.wrongState(requestId: "b", state: .sending, change: "discarded")) {
            try queue.discard("b")
        }
    }

    @Test func anAcknowledgementMakesTheEntryMarkedAheadTheOneInFlight() throws {
        var queue = try Q.queue("a", "b", "c")
        _ = try queue.beginSending("a")
        _ = try queue.beginSendingNext(after: "a")
        #expect(queue.finishSending("a", result: .success(Q.receipt(for: queue.entry("a")!))) != .settledMeanwhile)
        #expect(queue.nextAction == .inFlight(requestId: "b"))
        #expect(try queue.beginSendingNext(after: "b").requestId == "c")
    }

    @Test(arguments: [
        Result<AgentRoomReceipt, AgentRoomError>.failure(.transport("reset")),
        .failure(roomRejection(413, "too_large", "The message is too large.")),
    ])
    func aFailureHoldsTheQueueAndPutsTheEntryMarkedAheadBack(_ result: Result<AgentRoomReceipt, AgentRoomError>) throws
    {
        var queue = try Q.queue("a", "b", "c")
        _ = try queue.beginSending("a")
        _ = try queue.beginSendingNext(after: "a")
        guard case .failed = queue.finishSending("a", result: result) else {
            Issue.record("a did not fail")
            return
        }
        #expect(queue.entries.map(\.state) == [.failed, .queued, .queued])
        #expect(queue.entries.map(\.attempts) == [1, 0, 0], "b's attempt never happened")
        if case .held(let entry) = queue.nextAction {
            #expect(entry.requestId == "a")
        } else {
            Issue.record("not held")
        }
    }

    @Test func aRelaunchFailsBothTheEntryInFlightAndTheOneMarkedAheadWithRetry() throws {
        var queue = try Q.queue("a", "b", "c")
        _ = try queue.beginSending("a")
        _ = try queue.beginSendingNext(after: "a")
        #expect(queue.relaunch() == ["a", "b"])
        #expect(queue.entries.map(\.state) == [.failed, .failed, .queued])
        #expect(queue.entries.prefix(2).allSatisfy { $0.failure == .relaunched && $0.canRetry })
        #expect(queue.resendAll() == ["a", "b"])
        #expect(queue.nextAction == .send(queue.entry("a")!))
    }
}
