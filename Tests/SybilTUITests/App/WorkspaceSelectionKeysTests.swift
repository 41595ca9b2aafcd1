import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 000 in the terminal app: a session chosen in the sidebar is only recorded in the host
/// cache while the key is handled (nothing published mid-update) and committed by the opening
/// task; Ctrl+R is an explicit refresh of the open session, choosing it again reloads it, and a
/// cached session chosen after one on another desktop reloads.
@Suite("Terminal app workspace selection and refresh triggers", .timeLimit(.minutes(2)))
@MainActor
struct WorkspaceSelectionKeysTests {
    static let first = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s1")
    static let second = WorkspaceChatKey(desktopId: "desk-1", projectId: "app", sessionId: "s2")
    static let elsewhere = WorkspaceChatKey(desktopId: "desk-2", projectId: "ci", sessionId: "s9")

    /// Answers every load with one row and counts the loads of each chat.
    final class CountingChatRPC: EmptyPagesChatRPC, WorkspaceSubmitRPC {
        private let counts = Locked<[WorkspaceChatKey: Int]>([:])
        func loads(_ key: WorkspaceChatKey) -> Int { counts.withLock { $0[key] ?? 0 } }

        func codexChatLoad(_ chat: WorkspaceChatKey) async throws -> WorkspaceChatLoadEnvelope {
            counts.withLock { $0[chat, default: 0] += 1 }
            let row = TimelineBlock(
                type: .agentReply, id: "r-\(chat.sessionId)", origin: .canonical, sourceOrder: [1], timestamp: 0,
                text: "hello from \(chat.sessionId)")
            return .ready([row])
        }
        func codexChatSubmit(_ submission: WorkspaceSubmission) async throws -> WorkspaceSubmitReceipt {
            throw CancellationError()
        }
    }

    struct Fixture {
        let controller: TerminalAppController
        let hosts: WorkspaceChatHostCache
        let rpc: CountingChatRPC
    }

    /// The app with two desktops listed (two sessions on the first, one on the second), its
    /// sessions opened as the command line opens them: through the host cache.
    private func fixture() async throws -> Fixture {
        let rpc = CountingChatRPC()
        // A clock that never moves: no poll reloads a chat, so every load counted came from a
        // selection or a trigger.
        let clock = ManualClock()
        let hosts = WorkspaceChatHostCache { key in
            WorkspaceChatHost(key: key, rpc: rpc, clock: clock, random: SystemRandomSource())
        }
        let desktops = [
            SidebarDesktop(
                id: "desk-1", name: "Studio", online: true,
                projects: [
                    SidebarDesktop.Project(
                        id: "app", name: "App",
                        sessions: [SidebarDesktop.Session(id: "s1", title: "One"), .init(id: "s2", title: "Two")])
                ]),
            SidebarDesktop(
                id: "desk-2", name: "Build", online: true,
                projects: [SidebarDesktop.Project(id: "ci", name: "CI", sessions: [.init(id: "s9", title: "Nine")])]),
        ]
        let workspaces = TerminalAppServices.Workspaces(
            list: { .success(desktops) },
            open: { key, title in
                if hosts.selectedKey != key { hosts.select(key) }
                let host =
                    hosts.selectedHost
                    ?? WorkspaceChatHost(
                        key: key, rpc: rpc, clock: clock, random: SystemRandomSource())
                let outbox = try! WorkspaceOutbox(store: InMemoryKeyValueStore())
                let ids = SequentialIDGenerator(prefix: "op")
                let sender = WorkspaceOutboxSender(
                    outbox: outbox, rpc: rpc, clock: ContinuousClock(), ids: ids, now: { 0 })
                let composer = WorkspaceChatComposer(host: host, outbox: outbox, sender: sender, ids: ids, now: { 0 })
                return WorkspaceSessionScreen(
                    key: key, title: title,
                    screen: WorkspaceChatScreenModel(host: host, clock: AnyClock(ContinuousClock())),
                    composer: composer
                ) {
                    if hosts.selectedHost?.key == key { hosts.select(nil) }
                }
            }, hosts: hosts)
        let controller = await TerminalAppController.startedForTest(workspaces: workspaces)
        await controller.settle()
        #expect(controller.app.sidebar.workspaces?.count == 2)
        return Fixture(controller: controller, hosts: hosts, rpc: rpc)
    }

    private func press(_ controller: TerminalAppController, _ key: Key, _ modifiers: KeyModifiers = []) {
        controller.handle(.key(KeyEvent(key, modifiers: modifiers)), now: .zero)
    }

    /// Selects `key`'s row in the sidebar and presses Return (the opening task not yet run).
    private func choose(_ key: WorkspaceChatKey, in controller: TerminalAppController) throws {
        if controller.app.focus != .sidebar { press(controller, .escape) }
        press(controller, .home)
        let index = try #require(controller.app.sidebar.rows.compactMap(\.destination).firstIndex(of: .session(key)))
        for _ in 0..<index { press(controller, .down) }
        #expect(controller.app.sidebar.selection == .session(key))
        press(controller, .enter)
    }

    /// Opens `key` and waits until its screen shows the rows of `loads` loads.
    private func open(_ key: WorkspaceChatKey, in fixture: Fixture, loads: Int) async throws {
        try choose(key, in: fixture.controller)
        await fixture.controller.settle()
        #expect(await ConditionWait.until { fixture.rpc.loads(key) == loads }, "\(key) loaded \(loads) time(s)")
        #expect(
            await ConditionWait.until { fixture.hosts.selectedHost?.appliedLoads ?? 0 > 0 },
            "the load of \(key) applies")
    }

    @Test func aChosenSessionIsRecordedWhileTheKeyIsHandledAndCommittedByTheOpeningTask() async throws {
        let fixture = try await fixture()
        try choose(Self.first, in: fixture.controller)
        #expect(fixture.hosts.hasPendingSelection, "recorded while the key was handled")
        #expect(fixture.hosts.selectedKey == nil, "nothing published in the middle of the update")
        await fixture.controller.settle()
        #expect(!fixture.hosts.hasPendingSelection)
        #expect(fixture.hosts.selectedKey == Self.first)
        #expect(await ConditionWait.until { fixture.rpc.loads(Self.first) == 1 })
        await fixture.controller.close()
    }

    @Test func controlRReloadsTheOpenSessionAndChoosingItAgainReloadsIt() async throws {
        let fixture = try await fixture()
        try await open(Self.first, in: fixture, loads: 1)
        press(fixture.controller, .character("r"), .control)
        #expect(await ConditionWait.until { fixture.rpc.loads(Self.first) == 2 }, "Ctrl+R is an explicit refresh")
        try choose(Self.first, in: fixture.controller)
        await fixture.controller.settle()
        #expect(await ConditionWait.until { fixture.rpc.loads(Self.first) == 3 }, "choosing it again reloads it")
        #expect(HelpOverlay.bindings.contains { $0.keys == "Ctrl+R" }, "F1 lists Ctrl+R")
        await fixture.controller.close()
    }

    @Test func aCachedSessionChosenAfterAnotherDesktopsSessionReloads() async throws {
        let fixture = try await fixture()
        try await open(Self.first, in: fixture, loads: 1)
        try await open(Self.second, in: fixture, loads: 1)
        try choose(Self.first, in: fixture.controller)
        await fixture.controller.settle()
        #expect(fixture.hosts.selectedKey == Self.first)
        #expect(fixture.rpc.loads(Self.first) == 1, "the same desktop: its cached rows come back")
        try await open(Self.elsewhere, in: fixture, loads: 1)
        try choose(Self.first, in: fixture.controller)
        await fixture.controller.settle()
        #expect(
            await ConditionWait.until { fixture.rpc.loads(Self.first) == 2 }, "another desktop was chosen in between")
        await fixture.controller.close()
    }
}
