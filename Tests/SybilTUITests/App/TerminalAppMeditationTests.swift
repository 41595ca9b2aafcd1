import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilTUI

/// Meditation in the app (seed 004: a double tap on the tab enters meditation; sessions are
/// saved as local-first records): F5 or the Chats key pressed twice within 400 ms opens a
/// timer over the breathing scene; Esc ends it early and the record holds the whole seconds
/// spent; the planned time ending saves it too. Time is passed in (a manual time line).
@Suite("Terminal app meditation")
@MainActor
struct TerminalAppMeditationTests {
    private func app() -> TerminalApp { .withOneChat() }

    private func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TerminalInput { .press(key, modifiers) }

    @Test func f5OpensTheTimerAndEscEndsItEarlySavingTheWholeSecondsSpent() {
        var app = app()
        #expect(app.handle(key(.function(5)), now: .seconds(10)) == [])
        #expect(app.overlay == .meditation)
        #expect(app.render(size: app.size).0.text.contains("10:00 left"))
        let redrawn = app.tick(now: .seconds(10) + .milliseconds(70_400))
        #expect(redrawn)
        #expect(app.render(size: app.size).0.text.contains("8:50 left"))
        #expect(app.handle(key(.character("x")), now: .seconds(80)) == [], "other keys do nothing")
        #expect(app.handle(key(.escape), now: .seconds(10) + .milliseconds(73_900)) == [.saveMeditation(seconds: 73)])
        #expect(app.overlay == nil)
        #expect(app.meditation == nil)
        #expect(app.notice == "Saving the meditation of 1 min 13 s…")
        #expect(app.update(.meditationSaved(seconds: 73)) == [])
        #expect(app.notice == "Saved a meditation of 1 min 13 s on this device (F4 lists the records).")
    }

    @Test func endedUnderASecondSavesNothing() {
        var app = app()
        _ = app.handle(key(.function(5)), now: .zero)
        #expect(app.handle(key(.escape), now: .milliseconds(900)) == [])
        #expect(app.notice == "The meditation ended before a second had passed; nothing was saved.")
    }

    @Test func thePlannedTimeEndingSavesTheWholeSession() {
        var app = app()
        _ = app.handle(key(.function(5)), now: .seconds(5))
        #expect(app.finishMeditationIfDue(now: .seconds(604)) == [])
        #expect(app.overlay == .meditation)
        #expect(app.finishMeditationIfDue(now: .seconds(605)) == [.saveMeditation(seconds: 600)])
        #expect(app.overlay == nil)
        #expect(app.finishMeditationIfDue(now: .seconds(606)) == [], "ends once")
    }

    @Test func aDoublePressOfTheChatsKeyEntersMeditationAndASinglePressSwitchesToTheChats() {
        var app = app()
        app.sidebar.current = .agent
        app.sidebar.selection = .agent
        #expect(app.handle(key(.character("1"), .alt), now: .seconds(1)) == [.switchedTab, .refreshSidebar])
        #expect(app.focus == .sidebar)
        #expect(app.sidebar.selection == .newChat)
        #expect(app.overlay == nil)
        // A second press after the window is another single press.
        #expect(app.handle(key(.character("1"), .alt), now: .seconds(1) + .milliseconds(401)) == [.refreshSidebar])
        #expect(app.overlay == nil)
        #expect(app.handle(key(.character("1"), .alt), now: .seconds(1) + .milliseconds(700)) == [])
        #expect(app.overlay == .meditation)
        #expect(app.handle(key(.escape), now: .seconds(4)) == [.saveMeditation(seconds: 2)])
        #expect(app.handle(key(.character("1"), .alt), now: .seconds(4) + .milliseconds(100)) == [.refreshSidebar])
        #expect(app.overlay == nil, "the double press that opened it is spent")
    }

    @Test func aDoubleClickOnTheSidebarsChatsTitleEntersMeditation() {
        var app = app()
        _ = app.render(size: app.size)
        let click = TerminalInput.mouse(MouseEvent(.press(.left), column: 2, row: 0))
        #expect(app.handle(click, now: .seconds(1)) == [.refreshSidebar])
        #expect(app.overlay == nil)
        #expect(app.handle(click, now: .seconds(1) + .milliseconds(300)) == [])
        #expect(app.overlay == .meditation)
    }

    @Test func theControllerSavesTheRecordThroughTheRecordsModelAndSaysSo() async throws {
        let store = InMemoryChatHistory()
        let chats = ChatListModel(
            streaming: TerminalAppForegroundTests.NoStreaming(), store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil)
        let records = RecordsModel(
            store: try await RecordStore.inMemory(), sync: nil,
            ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 4)),
            now: { 1_700_000_000_000 })
        let services = TerminalAppServices(
            chats: chats, search: ChatSearchModel(store: store, clock: AnyClock(ContinuousClock())), agent: nil,
            workspaces: nil,
            records: records)
        let controller = TerminalAppController(
            services: services, theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
        await controller.start()
        controller.handle(.key(KeyEvent(.function(5))), now: .seconds(2))
        #expect(controller.needsFrames)
        #expect(controller.frame(now: .seconds(3)))
        controller.handle(.key(KeyEvent(.escape)), now: .seconds(2) + .milliseconds(42_500))
        #expect(await ConditionWait.until { controller.app.notice?.hasPrefix("Saving") == false })
        #expect(records.records.map(\.record.payload) == [.meditation(durationSeconds: 42)])
        #expect(controller.app.notice == "Saved a meditation of 42 s on this device (F4 lists the records).")
        await controller.close()
    }
}
