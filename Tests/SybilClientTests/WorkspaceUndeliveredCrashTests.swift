import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

/// SPEC §2 "nothing lost": the process dies between any two writes of a message the desktop
/// refuses for good (its text kept, its entry leaving the outbox). At the next launch the text
/// is kept, or still in the outbox, and shown once.
@MainActor
@Suite("Workspace kept texts across a crash", .timeLimit(.minutes(2)))
struct WorkspaceUndeliveredCrashTests {
    /// A disk shared by the outbox and the kept texts whose writes stop once the process died:
    /// after ``arm(writes:)``, that many more writes finish, every later one fails before it
    /// changes anything.
    final class DyingStore: KeyValueStore, Sendable {
        struct SimulatedCrash: Error, CustomStringConvertible {
            var description: String { "the process died" }
        }

        let disk: InMemoryKeyValueStore
        private let left = Locked<Int?>(nil)

        init(disk: InMemoryKeyValueStore) { self.disk = disk }

        func arm(writes: Int) { left.withLock { $0 = writes } }

        private func write() throws {
            try left.withLock { left in
                guard let remaining = left else { return }
                guard remaining > 0 else { throw SimulatedCrash() }
                left = remaining - 1
            }
        }

        func data(forKey key: String) throws -> [UInt8]? { try disk.data(forKey: key) }

        func set(_ data: [UInt8], forKey key: String) throws {
            try write()
            try disk.set(data, forKey: key)
        }

        func removeValue(forKey key: String) throws {
            try write()
            try disk.removeValue(forKey: key)
        }
    }

    static let text = "Bitte die Migration zuerst prüfen."

    /// One launch over `store`: the outbox, the kept texts and a composer of chat A whose
    /// sender keeps texts in that list, as the terminal app wires them.
    private func launch(store: any KeyValueStore, desktop: FakeDesktop) throws -> (
        outbox: WorkspaceOutbox, kept: WorkspaceUndeliveredMessages, composer: WorkspaceChatComposer
    ) {
        let outbox = try WorkspaceOutbox(store: store)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: store))
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 9))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ManualClock(), ids: ids, now: { 0 }, keptTexts: kept)
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 9))
        let composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 }, restoresIntoDraft: false)
        return (outbox, kept, composer)
    }

    @Test("a refused text survives a crash after any write, shown once", arguments: 0...2)
    func aRefusedTextSurvivesACrash(writesBeforeDeath: Int) async throws {
        let disk = InMemoryKeyValueStore()
        let dying = DyingStore(disk: disk)
        let refusing = FakeDesktop()
        refusing.behaviour = .reject("The run has finished.")
        let first = try launch(store: dying, desktop: refusing)
        try await first.outbox.enqueue(
            WorkspaceOutboxEntry(
                chat: chatA, operationId: "op-1", mutation: .init(mutationId: "m-1", text: Self.text), mode: .send,
                createdAt: 1))
        dying.arm(writes: writesBeforeDeath)
        await first.composer.restore()

        // The next launch cannot reach the desktop: what it shows is what the disk kept.
        let offline = FakeDesktop()
        offline.behaviour = .fail("The desktop cannot be reached.")
        let second = try launch(store: disk, desktop: offline)
        await second.composer.restore()
        let inOutbox = await second.outbox.pendingEntries(in: chatA).map(\.mutation.text)
        let shown = second.composer.deliveries.map(\.text) + second.composer.undelivered.map(\.text)
        #expect(shown == [Self.text], "kept or still in the outbox, and shown once")
        #expect(inOutbox + second.kept.messages.map(\.text) == [Self.text], "on disk once")
    }

    /// Submits ``text`` to a desktop that refuses it for good, through a sender keeping texts
    /// in `kept` over a fresh outbox: the outbox, the sender, the entry and the outcome.
    private func submitRefused(keptIn kept: WorkspaceUndeliveredMessages, seed: UInt64) async throws -> (
        outbox: WorkspaceOutbox, sender: WorkspaceOutboxSender, entry: WorkspaceOutboxEntry,
        outcome: WorkspaceOutboxSender.Outcome
    ) {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let desktop = FakeDesktop()
        desktop.behaviour = .reject("The run has finished.")
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ManualClock(),
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: seed)), now: { 0 }, keptTexts: kept)
        let (entry, outcome) = try await sender.submit(text: Self.text, mode: .send, to: chatA)
        return (outbox, sender, entry, outcome)
    }

    @Test func aTextTheListCannotSaveStaysInTheOutbox() async throws {
        let failing = FailingKeyValueStore()
        failing.failWrites(true)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: failing))
        let (outbox, sender, entry, outcome) = try await submitRefused(keptIn: kept, seed: 3)
        guard case .failed(let reason) = outcome else {
            Issue.record("a text that cannot be kept does not leave the outbox: \(outcome)")
            return
        }
        #expect(reason.contains("could not be saved") && reason.contains("stays in the outbox"))
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == [entry.operationId])
        #expect(kept.messages.isEmpty, "the outbox holds its one copy")
        #expect(await sender.takeUndelivered().isEmpty)
    }

    /// A list whose store could not be opened lives only until the app quits: a refused text
    /// is not handed to it, its outbox entry (saved) stays the one copy.
    @Test func aTextTheListHoldsOnlyInMemoryStaysInTheOutbox() async throws {
        let kept = WorkspaceUndeliveredMessages(storeProblem: "the data folder cannot be made")
        let (outbox, _, entry, outcome) = try await submitRefused(keptIn: kept, seed: 4)
        guard case .failed(let reason) = outcome else {
            Issue.record("a text no saved list can hold does not leave the outbox: \(outcome)")
            return
        }
        #expect(
            reason.contains("the data folder cannot be made") && reason.contains("stays in the outbox"), "\(reason)")
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == [entry.operationId])
        #expect(kept.messages.isEmpty, "the outbox holds its one copy")
    }

    @Test func aTextTheListCannotSaveAfterManyDropsNoKeptText() async throws {
        let failing = FailingKeyValueStore()
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: failing))
        let limit = 300
        for number in 1...limit {
            kept.keep(.init(id: "kept-\(number)", chat: chatA, text: "Text \(number)", cause: .notSent, reason: "r"))
        }
        failing.failWrites(true)
        let (outbox, _, entry, outcome) = try await submitRefused(keptIn: kept, seed: 5)
        guard case .failed = outcome else {
            Issue.record("a text that cannot be kept does not leave the outbox: \(outcome)")
            return
        }
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == [entry.operationId])
        let left = kept.messages(in: chatA)
        #expect(
            left.count == limit && left.first?.id == "kept-1" && left.last?.id == "kept-\(limit)",
            "the oldest kept text does not leave for one the list did not take")
    }

    @Test func aTextTheDraftTakesBackLeavesTheListTheSenderKeptItIn() async throws {
        let store = InMemoryKeyValueStore()
        let outbox = try WorkspaceOutbox(store: store)
        let kept = WorkspaceUndeliveredMessages(persistence: .workspaces(in: store))
        let desktop = FakeDesktop()
        desktop.behaviour = .reject("The run has finished.")
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: 4))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ManualClock(), ids: ids, now: { 0 }, keptTexts: kept)
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: 4))
        let composer = WorkspaceChatComposer(host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 })
        #expect(composer.undeliveredMessages === kept, "the composer shows the list the sender saves in")
        composer.draft = Self.text
        #expect(await composer.send() == .rejected(reason: "The run has finished."))
        #expect(composer.draft == Self.text)
        #expect(kept.messages.isEmpty, "the draft holds it: not kept twice")
        #expect(WorkspaceUndeliveredMessages(persistence: .workspaces(in: store)).messages.isEmpty)
    }
}
