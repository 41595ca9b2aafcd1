import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 000 in the terminal app: a message the desktop rejects for good puts its text back in
/// the composer when the composer can take it, and otherwise names it, so it is never lost.
@Suite("Terminal app workspace messages rejected by the desktop", .timeLimit(.minutes(2)))
@MainActor
struct WorkspaceRejectedSendTests {
    static let session = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s1")
    static let other = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s2")
    nonisolated static let reason = "The session was archived on the desktop."

    /// Loads an empty chat and rejects every submission for good; while held, a submission
    /// waits for ``release()`` before it is answered.
    final class RejectingRPC: EmptyPagesChatRPC, WorkspaceSubmitRPC {
        private let state = Locked((held: false, waiting: 0))
        let changed = ChangeSignal()

        func hold() { state.withLock { $0.held = true } }
        func release() {
            state.withLock { $0.held = false }
            changed.notify()
        }
        var waiting: Int { state.withLock { $0.waiting } }

        func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope { .ready() }
        func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
            state.withLock { $0.waiting += 1 }
            changed.notify()
            _ = await changed.wait(until: { !state.withLock { $0.held } })
            return WorkspaceSubmitReceipt(
                operationId: submission.operationId, mutationId: submission.mutationId,
                outcome: .rejected(reason: WorkspaceRejectedSendTests.reason))
        }
    }

    /// What the fixture opened: the host cache and the session screens open now.
    final class Opened {
        var hosts: WorkspaceChatHostCache?
        var screens: [WorkspaceChatKey] = []
    }
    let opened = Opened()

    /// The app with two sessions listed and the first open, its composer focused.
    private func openSession(
        _ rpc: RejectingRPC = RejectingRPC(), outbox: WorkspaceOutbox? = nil, choosing: Bool = true
    ) async throws -> TerminalAppController {
        let clock = ManualClock()
        let hosts = WorkspaceChatHostCache { key in
            WorkspaceChatHost(key: key, rpc: rpc, clock: clock, random: SeededRandomSource(seed: 1))
        }
        let desktops = [
            SidebarDesktop(
                id: "desk-1", name: "Studio", online: true,
                projects: [
                    SidebarDesktop.Project(
                        id: "app", name: "App",
                        sessions: [.init(id: "s1", title: "One"), .init(id: "s2", title: "Two")])
                ])
        ]
        let outbox = try outbox ?? WorkspaceOutbox(store: InMemoryKeyValueStore())
        let opened = opened
        opened.hosts = hosts
        // As the command line wires the app: one list of undelivered messages for every opening.
        let undelivered = WorkspaceUndeliveredMessages()
        let workspaces = TerminalAppServices.Workspaces(
            list: { .success(desktops) },
            open: { key, title in
                if hosts.selectedKey != key { hosts.select(key) }
                let host =
                    hosts.selectedHost
                    ?? WorkspaceChatHost(
                        key: key, rpc: rpc, clock: clock, random: SeededRandomSource(seed: 1))
                let ids = SequentialIDGenerator(prefix: "op")
                let sender = WorkspaceOutboxSender(
                    outbox: outbox, rpc: rpc, clock: clock, ids: ids, now: { 0 })
                let composer = WorkspaceChatComposer(
                    host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 }, undelivered: undelivered,
                    restoresIntoDraft: false)
                // As the command line opens a session: the composer's restore starts with it.
                let restoring = Task { await composer.restore() }
                opened.screens.append(key)
                // As the command line's screens do: the selection is released only if no other
                // chat was selected since this one opened.
                let selection = hosts.selectionCount
                return WorkspaceSessionScreen(
                    key: key, title: title, screen: WorkspaceChatScreenModel(host: host, clock: AnyClock(clock)),
                    composer: composer, restoring: restoring
                ) {
                    if let index = opened.screens.firstIndex(of: key) { opened.screens.remove(at: index) }
                    hosts.deselect(ifNoSelectionSince: selection)
                }
            }, hosts: hosts)
        let controller = await TerminalAppController.startedForTest(workspaces: workspaces)
        await controller.settle()
        guard choosing else { return controller }
        try choose(Self.session, in: controller)
        await controller.settle()
        #expect(controller.workspace?.key == Self.session)
        #expect(await ConditionWait.until { hosts.selectedHost?.appliedLoads ?? 0 > 0 }, "the session loaded")
        if controller.app.focus != .composer { press(controller, .tab) }
        #expect(controller.app.focus == .composer)
        return controller
    }

    /// Selects `key`'s row in the sidebar and presses Return.
    private func choose(_ key: WorkspaceChatKey, in controller: TerminalAppController) throws {
        if controller.app.focus != .sidebar { press(controller, .escape) }
        press(controller, .home)
        let index = try #require(controller.app.sidebar.rows.compactMap(\.destination).firstIndex(of: .session(key)))
        for _ in 0..<index { press(controller, .down) }
        press(controller, .enter)
    }

    /// Empties the composer (Ctrl+U on its one line) and goes back to the timeline.
    private func clearComposer(_ controller: TerminalAppController) {
        while controller.app.focus != .composer { press(controller, .tab) }
        press(controller, .end)
        press(controller, .character("u"), .control)
        #expect(controller.app.composer.isEmpty)
        while controller.app.focus != .timeline { press(controller, .tab) }
    }

    private func press(_ controller: TerminalAppController, _ key: Key, _ modifiers: KeyModifiers = []) {
        controller.handle(.key(KeyEvent(key, modifiers: modifiers)), now: .zero)
    }

    @Test func aRejectedMessageIsBackInTheEmptyComposer() async throws {
        let controller = try await openSession()
        controller.handle(.paste("Bitte den Build neu starten."), now: .zero)
        press(controller, .enter)
        #expect(controller.app.composer.isEmpty, "the message left the composer when it was sent")
        await controller.settle()
        #expect(controller.app.composer.text == "Bitte den Build neu starten.", "the rejected text is back")
        #expect(controller.app.notice?.contains(Self.reason) == true)
        #expect(controller.workspace?.composer.deliveries.isEmpty == true)
        await controller.close()
    }

    @Test func aRejectedMessageNamesItsTextWhenTheComposerHoldsANewDraft() async throws {
        let controller = try await openSession()
        controller.handle(.paste("Bitte den Build neu starten."), now: .zero)
        press(controller, .enter)
        // Typed before the desktop's answer arrived: the new draft is the person's, and stays.
        controller.handle(.paste("Noch etwas."), now: .zero)
        await controller.settle()
        #expect(controller.app.composer.text == "Noch etwas.")
        #expect(controller.app.notice?.contains(Self.reason) == true)
        #expect(controller.app.notice?.contains("Bitte den Build neu starten.") == true, "the rejected text is named")
        await controller.close()
    }

    @Test func aMessageRejectedAfterTheSessionWasLeftIsNamedAndNotPutInAnotherSessionsComposer() async throws {
        let rpc = RejectingRPC()
        let controller = try await openSession(rpc)
        rpc.hold()
        controller.handle(.paste("Nur für Sitzung eins."), now: .zero)
        press(controller, .enter)
        #expect(await rpc.changed.wait(until: { rpc.waiting == 1 }), "the message waits for its receipt")
        try choose(Self.other, in: controller)
        #expect(await ConditionWait.until { controller.workspace?.key == Self.other }, "the second session is open")
        rpc.release()
        await controller.settle()
        #expect(controller.app.composer.isEmpty, "the second session's composer does not get the first's message")
        #expect(controller.app.notice?.contains("Nur für Sitzung eins.") == true, "the rejected text is named")
        #expect(controller.app.notice?.contains(Self.reason) == true)
        await controller.close()
    }

    @Test func messagesRejectedAfterTheSessionWasLeftAreKeptThereWhenItIsOpenedAgain() async throws {
        let rpc = RejectingRPC()
        let controller = try await openSession(rpc)
        rpc.hold()
        controller.handle(.paste("Erste für eins."), now: .zero)
        press(controller, .enter)
        controller.handle(.paste("Zweite für eins."), now: .zero)
        press(controller, .enter)
        #expect(await rpc.changed.wait(until: { rpc.waiting == 1 }), "the first waits for its receipt")
        try choose(Self.other, in: controller)
        #expect(await ConditionWait.until { controller.workspace?.key == Self.other }, "the second session is open")
        rpc.release()
        await controller.settle()
        #expect(controller.app.composer.isEmpty, "the second session's composer is left alone")
        #expect(controller.app.notice?.contains("One") == true, "the notice names the session")
        #expect(controller.app.notice?.contains("2 messages") == true, "and how many are kept there")
        #expect(try #require(controller.workspace).items.allSatisfy { $0.tone != .error }, "none shows in Two")

        try choose(Self.session, in: controller)
        await controller.settle()
        #expect(controller.workspace?.key == Self.session)
        let kept = try #require(controller.workspace).items.filter { $0.tone == .error }
        #expect(kept.map(\.body) == ["Erste für eins.", "Zweite für eins."], "both are kept in their session")
        await controller.close()
    }

    @Test func aMessageNotSentWhileANewDraftWasTypedIsKeptNotDropped() async throws {
        let controller = try await openSession()
        // The fixture's composer takes no attachments: the message is not sent at all.
        controller.handle(.paste("Siehe die Datei.\n/attach /tmp/nicht-da.txt"), now: .zero)
        press(controller, .enter)
        // Typed before the attachment's failure came back: the new draft stays.
        controller.handle(.paste("Noch etwas."), now: .zero)
        await controller.settle()
        #expect(controller.app.composer.text == "Noch etwas.")
        let kept = try #require(controller.workspace).items.filter { $0.tone == .error }
        #expect(kept.map(\.body) == ["Siehe die Datei.\n/attach /tmp/nicht-da.txt"], "the whole text is kept")
        #expect(controller.app.notice?.contains("not sent") == true)
        await controller.close()
    }

    @Test func aMessageAnEarlierRunLeftThatTheDesktopNowRejectsIsBackInTheComposer() async throws {
        // An earlier run saved the message but never got a receipt for it.
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        try await outbox.enqueue(
            WorkspaceOutboxEntry(
                chat: Self.session, operationId: "op-earlier",
                mutation: .init(mutationId: "m-earlier", text: "Von gestern.", attachments: []), mode: .send,
                createdAt: 0))
        let controller = try await openSession(outbox: outbox)
        await controller.settle()
        #expect(controller.app.composer.text == "Von gestern.", "the resent message the desktop rejected is back")
        #expect(controller.app.notice?.contains(Self.reason) == true)
        #expect(await outbox.pendingEntries(in: Self.session).isEmpty)
        await controller.close()
    }

    /// Three steers queued offline into a run that finished meanwhile: the desktop rejects each
    /// as they are resent on opening. The first comes back to the empty composer; the others
    /// are kept in the session's timeline, each with its reason, and come back one by one.
    @Test func everyEarlierMessageRejectedAtOnceIsKeptAndComesBackOneByOne() async throws {
        let outbox = try WorkspaceOutbox(store: InMemoryKeyValueStore())
        let texts = ["Erst die Tests.", "Dann den Build.", "Zuletzt die Doku."]
        for (index, text) in texts.enumerated() {
            try await outbox.enqueue(
                WorkspaceOutboxEntry(
                    chat: Self.session, operationId: "op-steer-\(index)",
                    mutation: .init(mutationId: "m-steer-\(index)", text: text, attachments: []),
                    mode: .steer(activeRunId: "run-finished"), createdAt: Int64(index)))
        }
        let controller = try await openSession(outbox: outbox)
        await controller.settle()
        #expect(await outbox.pendingEntries(in: Self.session).isEmpty, "each left the outbox")
        #expect(controller.app.composer.text == texts[0], "the first is back in the empty composer")
        let kept = try #require(controller.workspace).items.filter { $0.tone == .error }
        #expect(kept.map(\.body) == Array(texts.dropFirst()), "the others are kept, in order, as failed rows")
        #expect(kept.allSatisfy { $0.status?.contains(Self.reason) == true }, "each with its reason")
        #expect(controller.app.notice?.contains("2") == true, "the notice says how many more are kept")

        // d in the timeline puts the oldest kept one back, once the composer is empty.
        while controller.app.focus != .timeline { press(controller, .tab) }
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == texts[0], "a draft in the composer is never replaced")
        #expect(try #require(controller.workspace).items.filter { $0.tone == .error }.count == 2)
        clearComposer(controller)
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == texts[1])
        clearComposer(controller)
        // A composer holding only a blank is empty for this: the text replaces it.
        controller.handle(.paste(" "), now: .zero)
        while controller.app.focus != .timeline { press(controller, .tab) }
        press(controller, .character("d"))
        await controller.settle()
        #expect(controller.app.composer.text == texts[2])
        #expect(try #require(controller.workspace).items.filter { $0.tone == .error }.isEmpty, "none is kept twice")
        await controller.close()
    }

    @Test func choicesHandledBeforeTheirOpeningsRunLeaveOneScreenOpenAndItsHostActive() async throws {
        let controller = try await openSession(choosing: false)
        // Keys that arrive together: all three choices are handled before an opening task runs.
        try choose(Self.session, in: controller)
        try choose(Self.other, in: controller)
        try choose(Self.session, in: controller)
        await controller.settle()
        #expect(controller.workspace?.key == Self.session)
        #expect(opened.screens == [Self.session], "one screen open, the chosen one: \(opened.screens)")
        #expect(opened.hosts?.selectedKey == Self.session, "the chosen session stays selected")
        #expect(opened.hosts?.selectedHost?.isActive == true, "and its host active")
        await controller.close()
        #expect(opened.screens.isEmpty)
    }
}
