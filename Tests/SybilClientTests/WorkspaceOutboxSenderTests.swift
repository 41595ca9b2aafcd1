import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

@Suite("Workspace outbox sender")
struct WorkspaceOutboxSenderTests {
    struct Phone {
        let outbox: WorkspaceOutbox
        let sender: WorkspaceOutboxSender
    }

    /// A phone process on `store`: launching loads the outbox from it.
    static func launch(
        store: any KeyValueStore, desktop: FakeDesktop, clock: ManualClock = ManualClock(), seed: UInt64 = 1
    ) throws -> Phone {
        let outbox = try WorkspaceOutbox(store: store)
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: clock,
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: seed)),
            now: { 1_764_400_000_000 })
        return Phone(outbox: outbox, sender: sender)
    }

    @Test func anAcceptedMessageIsSavedBeforeItIsSentAndStaysUntilHistoryCarriesIt() async throws {
        let store = InMemoryKeyValueStore()
        let desktop = FakeDesktop()
        let phone = try Self.launch(store: store, desktop: desktop)
        let (entry, outcome) = try await phone.sender.submit(text: "Hallo", mode: .send, to: chatA)
        #expect(outcome == .accepted)
        #expect(desktop.delivered == [entry])
        let pending = await phone.outbox.pendingEntries(in: chatA)
        #expect(pending.map(\.status) == [.accepted])
        #expect(pending.map(\.acceptedByDesktop) == [true])
        #expect(entry.callKey == "run.codexChatSubmit:\(entry.operationId):\(entry.mutation.mutationId)")
        try await phone.sender.confirm([entry.operationId, "someone-elses-op"], in: chatA)
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
    }

    @Test func noReceiptWithin20SecondsLeavesTheEntryPendingForRetryWithTheSameIds() async throws {
        let store = InMemoryKeyValueStore()
        let desktop = FakeDesktop()
        desktop.behaviour = .hang
        let clock = ManualClock()
        let phone = try Self.launch(store: store, desktop: desktop, clock: clock)
        let submission = Task { try await phone.sender.submit(text: "Hallo", mode: .send, to: chatA) }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .milliseconds(19_999))
        for _ in 0..<100 { await Task.yield() }
        #expect(clock.sleeperCount == 1, "still waiting 1 ms before 20 s")
        clock.advance(by: .milliseconds(1))
        let (entry, outcome) = try await submission.value
        #expect(outcome == .timedOut)
        let pending = await phone.outbox.pendingEntries(in: chatA)
        #expect(pending.map(\.status) == [.awaitingRetry])
        desktop.behaviour = .accept
        let retried = try await phone.sender.retryPending(in: chatA)
        #expect(retried.map(\.operationId) == [entry.operationId])
        #expect(retried.map(\.outcome) == [.accepted])
        #expect(desktop.delivered.map(\.callKey) == [entry.callKey], "same operation and mutation ids")
    }

    @Test func aFinalRejectionLeavesTheOutbox() async throws {
        let desktop = FakeDesktop()
        desktop.behaviour = .reject("The run finished before the steer arrived.")
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop)
        let (_, outcome) = try await phone.sender.submit(text: "Fix it", mode: .steer(activeRunId: "run-7"), to: chatA)
        #expect(outcome == .rejected(reason: "The run finished before the steer arrived."))
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
        #expect(desktop.delivered.isEmpty)
    }

    @Test func aStorageFailureSendsNothing() async throws {
        let store = FailingKeyValueStore()
        let desktop = FakeDesktop()
        let phone = try Self.launch(store: store, desktop: desktop)
        store.failWrites(true)
        await #expect(throws: WorkspaceOutboxError.self) {
            _ = try await phone.sender.submit(text: "Hallo", mode: .send, to: chatA)
        }
        #expect(desktop.calls == 0)
    }

    @Test func submissionsOfOneChatRunOneAfterAnother() async throws {
        let desktop = FakeDesktop()
        desktop.behaviour = .hang
        let clock = ManualClock()
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, clock: clock)
        let first = Task { try await phone.sender.submit(text: "eins", mode: .send, to: chatA) }
        #expect(await clock.waitForSleepers(count: 1))
        let second = Task { try await phone.sender.submit(text: "zwei", mode: .send, to: chatA) }
        for _ in 0..<200 { await Task.yield() }
        #expect(desktop.calls == 1, "the second waits for the first, even while it is suspended")
        #expect(await phone.outbox.pendingEntries(in: chatA).count == 1, "not even saved before its turn")
        desktop.behaviour = .accept
        clock.advance(by: .seconds(20))
        #expect(try await first.value.outcome == .timedOut)
        #expect(try await second.value.outcome == .accepted)
        #expect(await phone.outbox.pendingEntries(in: chatA).map(\.mutation.text) == ["eins", "zwei"])
    }
}
