import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@testable import SybilTUI

/// A workspace session's timeline entries while a message of this device is on its way: the
/// message is one entry, whose status follows its delivery.
@Suite("Terminal app workspace session entries", .timeLimit(.minutes(2)))
@MainActor
struct WorkspaceSessionItemsTests {
    static let session = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s1")

    /// Loads an empty chat; submissions are accepted, or fail in transit when `offline`.
    final class DesktopRPC: EmptyPagesChatRPC, WorkspaceSubmitRPC {
        struct Offline: Error {}
        let offline: Bool
        init(offline: Bool) { self.offline = offline }

        func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope { .ready() }
        func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
            if offline { throw Offline() }
            return WorkspaceSubmitReceipt(
                operationId: submission.operationId, mutationId: submission.mutationId,
                outcome: .accepted(runId: "run-1"))
        }
    }

    private func screen(offline: Bool) async throws -> WorkspaceSessionScreen {
        let rpc = DesktopRPC(offline: offline)
        let clock = ManualClock()
        let host = WorkspaceChatHost(key: Self.session, rpc: rpc, clock: clock, random: SeededRandomSource(seed: 1))
        host.activate()
        #expect(await ConditionWait.until { host.appliedLoads > 0 }, "the session loaded")
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let ids = SequentialIDGenerator(prefix: "op")
        let sender = WorkspaceOutboxSender(outbox: outbox, rpc: rpc, clock: clock, ids: ids, now: { 0 })
        let composer = WorkspaceChatComposer(host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 })
        return WorkspaceSessionScreen(
            key: Self.session, title: "One", screen: WorkspaceChatScreenModel(host: host, clock: AnyClock(clock)),
            composer: composer, onClose: { host.park() })
    }

    @Test func anAcceptedMessageIsOneEntryUntilHistoryCarriesIt() async throws {
        let session = try await screen(offline: false)
        #expect(await session.send("Bitte den Build neu starten."))
        session.screen.frame()  // a display tick: the rows the app draws next
        let entries = session.items.filter { $0.body == "Bitte den Build neu starten." }
        #expect(entries.count == 1, "shown once: \(entries.map(\.id))")
        #expect(entries.first?.status == "Accepted by the desktop")
        await session.close()
    }

    @Test func aFailedMessageIsOneEntryThatSaysItCanBeRetried() async throws {
        let session = try await screen(offline: true)
        #expect(await session.send("Bitte den Build neu starten."))
        session.screen.frame()  // a display tick: the rows the app draws next
        let entries = session.items.filter { $0.body == "Bitte den Build neu starten." }
        #expect(entries.count == 1, "shown once: \(entries.map(\.id))")
        #expect(entries.first?.status?.hasSuffix("(r retries)") == true)
        #expect(entries.first?.tone == .error)
        await session.close()
    }
}
