import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilTUI

/// Foreground and tab switches (seed 004 warms up on both, seed 000 marks the workspace chats
/// stale when the app becomes active, seed 003 replays the Agent room on foreground): the
/// terminal's focus reports and the suspend/continue pair as the app's foreground, and a move
/// between the sidebar's sections as a tab switch.
@Suite("Terminal app foreground and tab switches")
@MainActor
struct TerminalAppForegroundTests {
    /// Records the warm-ups the chat models ask for.
    final class RecordingWarmUp: ChatWarmUp {
        var triggers: [ChatWarmUpTrigger] = []
        func requestWarmUp(_ trigger: ChatWarmUpTrigger) { triggers.append(trigger) }
    }

    private func app() -> TerminalApp { .withOneChat() }

    private func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TerminalInput { .press(key, modifiers) }

    @Test func focusOutGoesToTheBackgroundAndFocusInReturnsToTheForegroundOnce() {
        var app = app()
        #expect(app.handle(.focus(true), now: .zero) == [], "focus-in while in the foreground is no return")
        #expect(app.handle(.focus(false), now: .zero) == [.wentToBackground])
        #expect(!app.isInForeground)
        #expect(app.handle(.focus(false), now: .zero) == [])
        #expect(app.handle(.focus(true), now: .zero) == [.returnedToForeground])
        #expect(app.isInForeground)
        #expect(app.handle(.focus(true), now: .zero) == [])
    }

    @Test func controlZGoesToTheBackgroundAndTheContinueAfterItReturns() {
        var app = app()
        #expect(app.handle(key(.character("z"), .control), now: .zero) == [.wentToBackground, .suspend])
        #expect(app.resumed() == [.returnedToForeground])
        #expect(app.resumed() == [], "a continue without a suspend before it is no return")
        #expect(app.suspended() == [.wentToBackground])
        #expect(app.handle(.focus(true), now: .zero) == [.returnedToForeground])
        #expect(app.resumed() == [], "focus-in and the continue together return once")
    }

    @Test func movingBetweenTheSidebarsSectionsIsATabSwitch() {
        var app = app()
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.focus == .sidebar)
        #expect(app.sidebar.selection == .newChat)
        #expect(app.handle(key(.down), now: .zero) == [], "within the chats: no tab switch")
        #expect(app.sidebar.selection == .chat("c1"))
        #expect(app.handle(key(.down), now: .zero) == [.switchedTab])
        #expect(app.sidebar.selection == .agent)
        #expect(app.handle(key(.enter), now: .zero) == [.open(.agent)], "opening where the selection is: no switch")
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.handle(key(.home), now: .zero) == [.switchedTab])
        #expect(app.sidebar.selection == .newChat)
    }

    @Test func aSearchHitInAnotherSectionIsATabSwitch() {
        var app = app()
        app.sidebar.selection = .agent
        app.sidebar.current = .agent
        _ = app.handle(key(.character("k"), .control), now: .zero)
        _ = app.showSearchResults([SearchOverlay.Hit(destination: .chat("c1"), title: "First chat")], notice: nil)
        #expect(app.handle(key(.enter), now: .zero) == [.switchedTab, .open(.chat("c1"))])
    }

    @Test func theControllerWarmsUpMarksWorkspacesActiveAndTellsTheChatsOfATabSwitch() async {
        let store = InMemoryChatHistory()
        let warmUp = RecordingWarmUp()
        let chats = ChatListModel(
            streaming: NoStreaming(), store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: warmUp)
        var active: [Bool] = []
        let workspaces = TerminalAppServices.Workspaces(
            list: { .success([]) }, open: { _, _ in fatalError("no session is opened") },
            setAppActive: { active.append($0) })
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: workspaces)
        let controller = TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
        await controller.start()
        warmUp.triggers = []
        controller.handle(TerminalInput.focus(false), now: .zero)
        #expect(active == [false])
        #expect(warmUp.triggers == [])
        controller.handle(TerminalInput.focus(true), now: .zero)
        #expect(active == [false, true])
        #expect(warmUp.triggers == [.returnedToForeground])
        controller.handle(.key(KeyEvent(.escape)), now: .zero)
        controller.handle(.key(KeyEvent(.end)), now: .zero)
        #expect(warmUp.triggers == [.returnedToForeground, .switchedTab])
        controller.handle(.key(KeyEvent(.character("z"), modifiers: .control)), now: .zero)
        #expect(controller.takeSuspendRequest())
        #expect(active == [false, true, false])
        controller.resumed()
        #expect(active == [false, true, false, true])
        #expect(warmUp.triggers == [.returnedToForeground, .switchedTab, .returnedToForeground])
        await controller.close()
    }

    /// A chat stream that never answers (nothing is sent here).
    final class NoStreaming: ChatStreaming {
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { $0.finish() }
        }
    }
}
