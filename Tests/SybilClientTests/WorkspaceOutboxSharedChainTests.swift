import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// Seed 000: one chat's outbox changes run as one serial chain however many senders work on
/// the outbox (the terminal app makes a composer and a sender each time a chat is opened),
/// and an attempt's late timeout never takes back the desktop's acceptance.
@Suite("Workspace outbox chain shared by every sender", .timeLimit(.minutes(2)))
@MainActor
struct WorkspaceOutboxSharedChainTests {
    /// A desktop whose first receipt never arrives (the call waits until it is cancelled);
    /// every later submission is accepted at once. Counts calls and how many overlap.
    final class SlowFirstReceiptDesktop: WorkspaceSubmitRPC {
        private let state = Locked((calls: 0, inFlight: 0, mostInFlight: 0))
        let changed = ChangeSignal()

        var calls: Int { state.withLock { $0.calls } }
        var mostInFlight: Int { state.withLock { $0.mostInFlight } }

        func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
            let call = state.withLock { state in
                state.calls += 1
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
                return state.calls
            }
            changed.notify()
            defer {
                state.withLock { $0.inFlight -= 1 }
                changed.notify()
            }
            if call == 1 {
                let never = AsyncStream<Void> { _ in }
                for await _ in never {}
                throw CancellationError()
            }
            return WorkspaceSubmitReceipt(
                operationId: submission.operationId, mutationId: submission.mutationId,
                outcome: .accepted(runId: "run-1"))
        }
    }

    private static func sender(
        _ outbox: WorkspaceOutbox, _ desktop: some WorkspaceSubmitRPC, _ clock: ManualClock, seed: UInt64
    ) -> WorkspaceOutboxSender {
        WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: clock,
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: seed)), now: { 1_764_400_000_000 })
    }

    @Test func aChatOpenedAgainWaitsForTheAttemptAnEarlierOpeningStarted() async throws {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let desktop = SlowFirstReceiptDesktop()
        let clock = ManualClock()
        // Two openings of the same chat: each has its own sender over the one outbox.
        let first = Self.sender(outbox, desktop, clock, seed: 1)
        let reopened = Self.sender(outbox, desktop, clock, seed: 2)
        let sending = Task { try await first.submit(text: "Hallo", mode: .send, to: chatA) }
        #expect(await desktop.changed.wait(until: { desktop.calls == 1 }), "the message waits for its receipt")
        #expect(await clock.waitForSleepers(count: 1), "its 20 s receipt wait began")
        // The reopened chat's composer resends what the desktop has not accepted.
        let resending = Task { try await reopened.retryPending(in: chatA) }
        #expect(
            await ConditionWait.until { desktop.calls == 2 || outbox.changes(in: chatA).unfinishedJobs == 2 },
            "the resend either reached the desktop or waits in the chat's chain")
        clock.advance(by: WorkspaceOutboxSender.receiptTimeout)
        let (entry, outcome) = try await sending.value
        let resent = try await resending.value
        #expect(outcome == .timedOut, "the first attempt got no receipt")
        #expect(resent.map(\.operationId) == [entry.operationId])
        #expect(resent.map(\.outcome) == [.accepted], "sent again after the first attempt ended")
        #expect(desktop.mostInFlight == 1, "never two attempts of the chat at once")
        #expect(desktop.calls == 2)
        let stored = await outbox.pendingEntries(in: chatA)
        #expect(stored.map(\.acceptedByDesktop) == [true], "the desktop's acceptance is what the outbox keeps")
        #expect(stored.map(\.status) == [.accepted])
    }

    @Test func aLateTimeoutDoesNotTakeBackTheDesktopsAcceptance() async throws {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let desktop = SlowFirstReceiptDesktop()
        let clock = ManualClock()
        let sender = Self.sender(outbox, desktop, clock, seed: 1)
        let sending = Task { try await sender.submit(text: "Hallo", mode: .send, to: chatA) }
        #expect(await desktop.changed.wait(until: { desktop.calls == 1 }), "the message waits for its receipt")
        #expect(await clock.waitForSleepers(count: 1), "its 20 s receipt wait began")
        // Another writer recorded the desktop's acceptance meanwhile.
        var accepted = try #require(await outbox.pendingEntries(in: chatA).first)
        accepted.status = .accepted
        accepted.acceptedByDesktop = true
        try await outbox.update(accepted)
        clock.advance(by: WorkspaceOutboxSender.receiptTimeout)
        let (_, outcome) = try await sending.value
        #expect(outcome == .accepted, "the late timeout yields to the newer outcome")
        let stored = await outbox.pendingEntries(in: chatA)
        #expect(stored.map(\.acceptedByDesktop) == [true])
        #expect(stored.map(\.status) == [.accepted])
        // A stale view cannot mark it unaccepted directly either.
        var stale = accepted
        stale.status = .awaitingRetry
        stale.acceptedByDesktop = false
        await #expect(throws: WorkspaceOutboxError.operationAccepted(accepted.operationId)) {
            try await outbox.update(stale)
        }
    }
}
