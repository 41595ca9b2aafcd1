import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

@Suite("Workspace outbox sender", .timeLimit(.minutes(2)))
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
        #expect(desktop.delivered == [entry.submission])
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
        // The advance wakes due sleepers at once: one left asleep has not timed out.
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
        let store = WriteSignallingKeyValueStore()
        let phone = try Self.launch(store: store, desktop: desktop, clock: clock)
        let first = Task { try await phone.sender.submit(text: "eins", mode: .send, to: chatA) }
        #expect(await clock.waitForSleepers(count: 1))
        let writesBefore = store.writes
        let second = Task { try await phone.sender.submit(text: "zwei", mode: .send, to: chatA) }
        await store.waitForWrites(writesBefore + 1)
        #expect(desktop.calls == 1, "the second waits for the first, even while it is suspended")
        #expect(
            await phone.outbox.pendingEntries(in: chatA).map(\.mutation.text) == ["eins", "zwei"],
            "saved before its turn: a crash while it waits loses nothing")
        desktop.behaviour = .accept
        clock.advance(by: .seconds(20))
        #expect(try await first.value.outcome == .timedOut)
        #expect(try await second.value.outcome == .accepted)
        #expect(await phone.outbox.pendingEntries(in: chatA).map(\.mutation.text) == ["eins", "zwei"])
    }
}

/// An in-memory store that counts writes and lets a test wait for the n-th one.
final class WriteSignallingKeyValueStore: KeyValueStore {
    private let inner = InMemoryKeyValueStore()
    private let state = Locked<(writes: Int, waiters: [(Int, CheckedContinuation<Void, Never>)])>((0, []))

    var writes: Int { state.withLock { $0.writes } }

    func data(forKey key: String) throws -> [UInt8]? { try inner.data(forKey: key) }

    func set(_ data: [UInt8], forKey key: String) throws {
        try inner.set(data, forKey: key)
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.writes += 1
            let count = state.writes
            let ready = state.waiters.filter { $0.0 <= count }.map(\.1)
            state.waiters.removeAll { $0.0 <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func removeValue(forKey key: String) throws { try inner.removeValue(forKey: key) }

    /// Returns once `count` writes have happened.
    func waitForWrites(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.writes >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
