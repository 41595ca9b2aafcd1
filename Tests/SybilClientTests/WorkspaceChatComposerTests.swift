import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// The composer joined to the outbox (SPEC §2, §4.5): what the user wrote is saved before it is
/// shown as sent or sent, rejections give the text back, and a relaunch after a crash at any
/// persisted step delivers each message once, in order, with its first ids.
@MainActor
@Suite("Workspace chat composer", .timeLimit(.minutes(2)))
struct WorkspaceChatComposerTests {
    struct Phone {
        let outbox: WorkspaceOutbox
        let host: WorkspaceChatHost
        let composer: WorkspaceChatComposer
    }

    /// A phone over `store` whose host never loads (it is not activated).
    static func launch(store: any KeyValueStore, desktop: FakeDesktop, seed: UInt64) throws -> Phone {
        let outbox = try WorkspaceOutbox(store: store)
        let ids = RandomUUIDGenerator(source: SeededRandomSource(seed: seed))
        let sender = WorkspaceOutboxSender(
            outbox: outbox, rpc: desktop, clock: ManualClock(), ids: ids, now: { 1_764_400_000_000 })
        let host = WorkspaceChatHost(
            key: chatA, rpc: ScriptedWorkspaceChatRPC(), clock: ManualClock(), random: SeededRandomSource(seed: seed))
        let composer = WorkspaceChatComposer(
            host: host, outbox: outbox, sender: sender, ids: ids, now: { 1_764_400_000_000 })
        return Phone(outbox: outbox, host: host, composer: composer)
    }

    @Test func aMessageThatCannotBeSavedIsNotSentAndStaysInTheComposer() async throws {
        let store = FailingKeyValueStore()
        let desktop = FakeDesktop()
        let phone = try Self.launch(store: store, desktop: desktop, seed: 1)
        store.failWrites(true)
        phone.composer.draft = "Nicht verlieren."
        #expect(await phone.composer.send() == nil)
        #expect(phone.composer.draft == "Nicht verlieren.")
        #expect(phone.composer.notice?.contains("could not be saved") == true)
        #expect(phone.composer.deliveries.isEmpty)
        #expect(phone.host.timeline.pending.isEmpty, "nothing is shown as sent")
        #expect(desktop.calls == 0)
    }

    @Test func aSentMessageIsShownPendingThenAcceptedAndHistoryCompletesIt() async throws {
        let desktop = FakeDesktop()
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, seed: 2)
        phone.composer.draft = "Hallo"
        #expect(await phone.composer.send() == .accepted)
        #expect(phone.composer.draft == "")
        let delivery = try #require(phone.composer.deliveries.first)
        #expect(delivery.state == .accepted)
        #expect(phone.host.timeline.pending.map(\.operationId) == [delivery.id])
        await phone.composer.confirm([delivery.id])
        #expect(phone.composer.deliveries.isEmpty)
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
    }

    @Test func aFinalRejectionGivesTheTextBackOnlyWhenTheComposerIsFree() async throws {
        let desktop = FakeDesktop()
        desktop.behaviour = .reject("The run finished.")
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, seed: 3)
        phone.composer.draft = "Zu spät"
        guard case .rejected? = await phone.composer.send() else {
            Issue.record("expected a rejection")
            return
        }
        #expect(phone.composer.draft == "Zu spät")
        #expect(phone.composer.notice == "The desktop did not take your message: The run finished.")
        #expect(phone.composer.deliveries.isEmpty)
        #expect(phone.host.timeline.pending.isEmpty)
        #expect(await phone.outbox.pendingEntries(in: chatA).isEmpty)
    }

    @Test func aSteerNeedsARunningTurn() async throws {
        let desktop = FakeDesktop()
        let phone = try Self.launch(store: InMemoryKeyValueStore(), desktop: desktop, seed: 4)
        phone.composer.draft = "Schneller"
        #expect(await phone.composer.send(steer: true) == nil)
        #expect(phone.composer.draft == "Schneller")
        #expect(desktop.calls == 0)
    }

    enum CrashPoint: String, CaseIterable, Sendable {
        /// Saved; the process dies before the submission leaves.
        case afterSaveBeforeSend
        /// The desktop took it; the process dies before reading the receipt.
        case afterDeliveryBeforeReceipt
        /// The receipt ("accepted") is saved; the process dies before history confirms it.
        case afterAcceptedBeforeConfirmation
    }

    @Test("a crash at each persisted step, then a relaunch: delivered once, in order", arguments: CrashPoint.allCases)
    func crashThenRelaunch(at point: CrashPoint) async throws {
        let disk = InMemoryKeyValueStore()
        let desktop = FakeDesktop()
        let dying = FailingKeyValueStore(inner: disk)
        let first = try Self.launch(store: dying, desktop: desktop, seed: 5)
        first.composer.draft = "eins"
        #expect(await first.composer.send() == .accepted)
        first.composer.draft = "zwei"
        switch point {
        case .afterSaveBeforeSend:
            desktop.behaviour = .hang
            let sending = Task { await first.composer.send() }
            await desktop.waitForCalls(desktop.calls + 1)
            dying.failWrites(true)  // the process is gone: nothing more is written
            sending.cancel()
            _ = await sending.value
        case .afterDeliveryBeforeReceipt:
            desktop.behaviour = .crashPhoneAfterDelivery(phoneStore: dying)
            _ = await first.composer.send()
        case .afterAcceptedBeforeConfirmation:
            #expect(await first.composer.send() == .accepted)
            dying.failWrites(true)
        }
        desktop.behaviour = .accept

        let relaunched = try Self.launch(store: disk, desktop: desktop, seed: 6)
        let keysBefore = await relaunched.outbox.pendingEntries(in: chatA).map(\.callKey)
        #expect(keysBefore.count == 2, "both were saved before the crash")
        await relaunched.composer.restore()
        #expect(relaunched.composer.deliveries.map(\.text) == ["eins", "zwei"], "both shown as pending again")
        #expect(relaunched.composer.deliveries.allSatisfy { $0.state == .accepted })
        #expect(desktop.delivered.map(\.text) == ["eins", "zwei"], "each once, in order")
        #expect(desktop.delivered.map(\.callKey) == keysBefore, "with the ids each was first given")
        #expect(relaunched.host.timeline.pending.map(\.text) == ["eins", "zwei"])
    }
}
