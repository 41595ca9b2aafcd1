import SybilClient
import SybilCore
import SybilStore
import SybilTimeline
import Testing

/// The phone dies between any two steps of sending a message (persist, send, receipt,
/// complete, reload). After a restart every message reaches the desktop once, in order, with
/// the ids it was first given.
@Suite("Workspace outbox crash safety", .timeLimit(.minutes(2)))
struct WorkspaceOutboxCrashTests {
    enum CrashPoint: String, CaseIterable, Sendable {
        case afterPersistBeforeSend
        case afterSendBeforeReceipt
        case afterReceiptBeforeComplete
        case afterCompleteBeforeReload
        case duringReload
    }

    @Test("crash, restart, deliver each message once", arguments: CrashPoint.allCases)
    func crashAndRestart(at point: CrashPoint) async throws {
        let disk = InMemoryKeyValueStore()
        let desktop = FakeDesktop()

        // Process 1: "eins" goes through; "zwei" is cut off at the crash point.
        let store1 = FailingKeyValueStore(inner: disk)
        let phone1 = try WorkspaceOutboxSenderTests.launch(store: store1, desktop: desktop, seed: 1)
        let (eins, einsOutcome) = try await phone1.sender.submit(text: "eins", mode: .send, to: chatA)
        #expect(einsOutcome == .accepted)
        try await phone1.sender.confirm([eins.operationId], in: chatA)

        let zwei: WorkspaceOutboxEntry
        switch point {
        case .afterPersistBeforeSend:
            zwei = WorkspaceOutboxEntry(
                chat: chatA, operationId: "op-zwei", mutation: .init(mutationId: "mut-zwei", text: "zwei"), mode: .send,
                createdAt: 2)
            try await phone1.outbox.enqueue(zwei)
            store1.failWrites(true)
        case .afterSendBeforeReceipt:
            desktop.behaviour = .crashPhoneAfterDelivery(phoneStore: store1)
            let (entry, outcome) = try await phone1.sender.submit(text: "zwei", mode: .send, to: chatA)
            #expect(outcome != .accepted, "the receipt never reached the phone")
            zwei = entry
        case .afterReceiptBeforeComplete:
            zwei = try await phone1.sender.submit(text: "zwei", mode: .send, to: chatA).entry
            store1.failWrites(true)
        case .afterCompleteBeforeReload, .duringReload:
            zwei = try await phone1.sender.submit(text: "zwei", mode: .send, to: chatA).entry
            try await phone1.sender.confirm([zwei.operationId], in: chatA)
            store1.failWrites(true)
        }
        desktop.behaviour = .accept

        if point == .duringReload {
            // The relaunch itself dies while saving the cleaned outbox.
            let dying = FailingKeyValueStore(inner: disk)
            dying.failWrites(true)
            #expect(throws: (any Error).self) { _ = try WorkspaceOutbox(store: dying) }
        }

        // Process 2: retry what is pending, then write "drei".
        let phone2 = try WorkspaceOutboxSenderTests.launch(store: disk, desktop: desktop, seed: 2)
        let pendingAfterRestart = await phone2.outbox.pendingEntries(in: chatA).map(\.operationId)
        switch point {
        case .afterCompleteBeforeReload, .duringReload: #expect(pendingAfterRestart.isEmpty)
        default: #expect(pendingAfterRestart == [zwei.operationId], "zwei survived with its id")
        }
        _ = try await phone2.sender.retryPending(in: chatA)
        let drei = try await phone2.sender.submit(text: "drei", mode: .send, to: chatA).entry

        #expect(desktop.delivered.map(\.text) == ["eins", "zwei", "drei"], "each once, in order")
        #expect(desktop.delivered.map(\.callKey) == [eins.callKey, zwei.callKey, drei.callKey], "original ids")
        try await phone2.sender.confirm([zwei.operationId, drei.operationId], in: chatA)
        #expect(await phone2.outbox.pendingEntries(in: chatA).isEmpty)
    }
}
