import Testing

@testable import SybilTUI

/// The key bindings of the pure app state: what each key does to focus, the composer, the
/// sidebar and the overlays, and which commands it hands the runner.
@Suite("Terminal app keys")
struct TerminalAppKeyTests {
    private func app() -> TerminalApp { .withOneChat() }

    private func key(_ key: Key, _ modifiers: KeyModifiers = []) -> TerminalInput { .press(key, modifiers) }

    private func type(_ text: String, into app: inout TerminalApp) {
        for character in text { _ = app.handle(key(.character(character)), now: .zero) }
    }

    @Test func returnSendsTheComposerTextAndClearsIt() {
        var app = app()
        #expect(app.focus == .composer)
        type("Hallo Welt", into: &app)
        #expect(app.handle(key(.enter), now: .zero) == [.send("Hallo Welt")])
        #expect(app.composer.isEmpty)
        #expect(app.handle(key(.enter), now: .zero) == [], "a blank composer sends nothing")
    }

    @Test func altEnterControlJAndShiftEnterStartANewLine() {
        var app = app()
        type("a", into: &app)
        #expect(app.handle(key(.enter, .alt), now: .zero) == [])
        type("b", into: &app)
        #expect(app.handle(key(.character("j"), .control), now: .zero) == [])
        type("c", into: &app)
        #expect(app.handle(key(.enter, .shift), now: .zero) == [])
        type("d", into: &app)
        #expect(app.composer.text == "a\nb\nc\nd")
        #expect(app.handle(key(.enter), now: .zero) == [.send("a\nb\nc\nd")])
    }

    @Test func controlCStopsARunningReplyAndTwiceWithinTwoSecondsQuits() {
        var app = app()
        app.isReplyRunning = true
        let ctrlC = key(.character("c"), .control)
        #expect(app.handle(ctrlC, now: .seconds(10)) == [.stopReply])
        #expect(app.handle(ctrlC, now: .seconds(12)) == [.quit], "2 s after the first is still within the window")
        app.isReplyRunning = false
        #expect(app.handle(ctrlC, now: .seconds(20)) == [])
        #expect(app.notice == "Press Ctrl+C again to quit.")
        #expect(
            app.handle(ctrlC, now: .seconds(22) + .milliseconds(1)) == [], "just over 2 s later starts again")
        #expect(app.handle(ctrlC, now: .seconds(23)) == [.quit])
    }

    @Test func controlZAsksToSuspend() {
        var app = app()
        #expect(app.handle(key(.character("z"), .control), now: .zero) == [.wentToBackground, .suspend])
    }

    @Test func controlDQuitsOnlyOnAnEmptyComposer() {
        var app = app()
        type("ab", into: &app)
        _ = app.handle(key(.left), now: .zero)
        #expect(app.handle(key(.character("d"), .control), now: .zero) == [], "with text it deletes forward")
        #expect(app.composer.text == "a")
        _ = app.handle(key(.backspace), now: .zero)
        #expect(app.handle(key(.character("d"), .control), now: .zero) == [.quit])
    }

    @Test func tabMovesFocusAroundAndShiftTabBack() {
        var app = app()
        #expect(app.handle(key(.tab), now: .zero) == [.refreshSidebar], "the sidebar lists afresh when focused")
        #expect(app.focus == .sidebar)
        _ = app.handle(key(.tab), now: .zero)
        #expect(app.focus == .timeline)
        _ = app.handle(key(.tab, .shift), now: .zero)
        #expect(app.focus == .sidebar)
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.focus == .composer, "Esc goes back to the composer")
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.focus == .sidebar, "Esc in the composer goes to the sidebar")
    }

    @Test func arrowsMoveTheSidebarSelectionAndReturnOpens() {
        var app = app()
        _ = app.handle(key(.tab), now: .zero)
        #expect(app.sidebar.selection == .newChat)
        _ = app.handle(key(.up), now: .zero)
        #expect(app.sidebar.selection == .newChat, "the top stops")
        _ = app.handle(key(.down), now: .zero)
        #expect(app.sidebar.selection == .chat("c1"))
        _ = app.handle(key(.down), now: .zero)
        #expect(app.sidebar.selection == .agent)
        #expect(app.handle(key(.enter), now: .zero) == [.open(.agent)])
        #expect(app.focus == .composer)
    }

    @Test func controlKSearchesAndReturnOpensTheSelectedHit() {
        var app = app()
        #expect(app.handle(key(.character("k"), .control), now: .zero) == [.search("")])
        #expect(app.handle(key(.character("w")), now: .zero) == [.search("w")])
        #expect(app.handle(.paste("arm"), now: .zero) == [.search("warm")])
        #expect(app.handle(key(.backspace), now: .zero) == [.search("war")])
        app.showSearchResults(
            [
                SearchOverlay.Hit(destination: .chat("c1"), title: "First chat"),
                SearchOverlay.Hit(destination: .chat("c2"), title: "Second chat"),
            ], notice: nil)
        _ = app.handle(key(.down), now: .zero)
        #expect(app.handle(key(.enter), now: .zero) == [.open(.chat("c2"))])
        #expect(app.overlay == nil)
        _ = app.handle(key(.character("k"), .control), now: .zero)
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.overlay == nil, "Esc closes the search")
        #expect(app.focus == .composer)
    }

    @Test func returnBeforeTheResultsArriveOpensTheBestHitWhenTheyDo() {
        var app = app()
        _ = app.handle(key(.character("k"), .control), now: .zero)
        #expect(app.handle(key(.enter), now: .zero) == [], "an empty query opens nothing")
        _ = app.handle(key(.character("w")), now: .zero)
        let recent = [SearchOverlay.Hit(destination: .chat("old"), title: "Recent")]
        #expect(app.showSearchResults(recent, notice: "Searching…", pending: true) == nil)
        #expect(app.handle(key(.enter), now: .zero) == [.submitSearch], "the recent list is not the answer")
        #expect(app.overlay != nil)
        let hits = [SearchOverlay.Hit(destination: .chat("c1"), title: "First chat")]
        #expect(app.showSearchResults(hits, notice: nil, pending: false) == .open(.chat("c1")))
        #expect(app.overlay == nil)
        #expect(app.focus == .composer)
    }

    @Test func quickQuestionOpensWithThePromptSelectedAsksHidesAndOpensInAChat() {
        var app = app()
        #expect(app.handle(key(.character("q"), .control), now: .zero) == [.showQuickQuestion])
        app.showQuickQuestion(
            draft: "alte Frage", model: "chat-latest", question: nil, answer: "", isAnswering: false, status: nil)
        guard case .quickQuestion(let opened) = app.overlay else {
            Issue.record("the overlay is not open")
            return
        }
        #expect(opened.isPromptSelected && opened.prompt.text == "alte Frage")
        type("Neu", into: &app)
        #expect(app.handle(key(.enter), now: .zero) == [.askQuickQuestion("Neu")], "typing replaced the selection")
        app.showQuickQuestion(
            draft: nil, model: "chat-latest", question: "Neu", answer: "Teil", isAnswering: true, status: nil)
        #expect(app.handle(key(.enter), now: .zero) == [], "nothing is asked while an answer arrives")
        #expect(app.handle(key(.character("c"), .control), now: .seconds(1)) == [.stopReply])
        #expect(app.handle(key(.escape), now: .seconds(5)) == [.hideQuickQuestion("Neu")])
        #expect(app.overlay == nil)
        _ = app.handle(key(.function(2)), now: .seconds(6))
        #expect(
            app.handle(key(.character("o"), .control), now: .seconds(6)) == [
                .hideQuickQuestion(""), .openQuickQuestionInChat,
            ])
    }

    @Test func theBreathingScreenAdvancesWithFrameTicksAndStaysStillWithReducedMotion() {
        var app = app()
        _ = app.handle(key(.function(3)), now: .seconds(10))
        #expect(app.overlay == .breathing)
        let advanced = app.tick(now: .seconds(12))
        #expect(advanced)
        #expect(app.breathing?.elapsed == 2, "time runs from when it opened")
        let (grid, cursor) = app.render(size: TerminalSize(columns: 60, rows: 16))
        #expect(cursor == nil)
        #expect(grid.text.contains("~"), "the horizon is drawn")
        #expect(grid.text(row: 15).hasSuffix("Esc closes"))
        _ = app.handle(key(.escape), now: .seconds(13))
        #expect(app.overlay == nil && app.breathing == nil)
        let afterClosing = app.tick(now: .seconds(14))
        #expect(!afterClosing, "no frames once closed")

        var still = self.app()
        still.reduceMotion = true
        _ = still.handle(key(.character("b"), .control), now: .zero)
        let moved = still.tick(now: .seconds(5))
        #expect(!moved)
        #expect(still.breathing?.elapsed == 0)
    }

    @Test func theRecordsOverlayLogsMoodsAndSyncs() {
        var app = app()
        _ = app.handle(key(.function(4)), now: .zero)
        #expect(app.handle(key(.character("4")), now: .zero) == [.logMood(4)])
        #expect(app.handle(key(.character("9")), now: .zero) == [], "moods go from 1 to 5")
        #expect(app.handle(key(.character("s")), now: .zero) == [.syncRecords])
        var shown = RecordsOverlay()
        shown.rows = [.init(summary: "mood 4", state: "unsynced", isSynced: false)]
        shown.unsynced = 1
        app.showRecords(shown)
        let (grid, _) = app.render(size: TerminalSize(columns: 60, rows: 16))
        #expect(grid.text.contains("Records · 1 unsynced"))
        #expect(grid.text.contains("mood 4"))
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.overlay == nil)
    }

    @Test func f1ShowsTheKeyListAndEscClosesIt() {
        var app = app()
        _ = app.handle(key(.function(1)), now: .zero)
        #expect(app.overlay == .help)
        #expect(app.handle(key(.character("x")), now: .zero) == [])
        #expect(app.composer.isEmpty, "keys do not reach the composer under an overlay")
        _ = app.handle(key(.escape), now: .zero)
        #expect(app.overlay == nil)
    }

    @Test func aClickOnASidebarRowOpensIt() {
        var app = app()
        _ = app.render(size: TerminalSize(columns: 60, rows: 16))
        // Rows: 0 Chats, 1 + New chat, 2 First chat, 3 Sybil Agent (title), 4 Sybil Agent.
        // From the chats to the Agent room: a tab switch, then the open.
        #expect(
            app.handle(.mouse(MouseEvent(.press(.left), column: 3, row: 4)), now: .zero) == [
                .switchedTab, .open(.agent),
            ])
        // The "Chats" title is the Chats key: back to the chats in the sidebar (a tab switch).
        #expect(
            app.handle(.mouse(MouseEvent(.press(.left), column: 3, row: 0)), now: .zero) == [
                .switchedTab, .refreshSidebar,
            ])
    }

    @Test func aPasteGoesIntoTheComposerWhole() {
        var app = app()
        _ = app.handle(key(.tab), now: .zero)
        #expect(app.handle(.paste("zwei\nZeilen"), now: .zero) == [])
        #expect(app.focus == .composer)
        #expect(app.composer.text == "zwei\nZeilen")
    }

    @Test func aDraftThatWasNotSentComesBack() {
        var app = app()
        type("nochmal", into: &app)
        _ = app.handle(key(.enter), now: .zero)
        app.restoreDraft("nochmal")
        #expect(app.composer.text == "nochmal")
        #expect(app.composer.cursor == 7)
    }

    @Test func timelineKeysRetryAndResend() {
        var app = app()
        app.focus = .timeline
        #expect(app.handle(key(.character("r")), now: .zero) == [.retry])
        #expect(app.handle(key(.character("R")), now: .zero) == [.resendAll])
        #expect(app.handle(key(.character("t")), now: .zero) == [.openThread])
        app.isThreadOpen = true
        #expect(app.handle(key(.escape), now: .zero) == [.closeThread], "Esc leaves the thread first")
        #expect(app.focus == .timeline)
    }
}
