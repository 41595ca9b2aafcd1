import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// The messages the controller sends for what is not an effect's result: what the view models
/// published, the terminal's size, theme and motion, a screen opened, a frame tick, a suspend.
/// Each is applied by the app's one update function, so the controller never writes the value.
extension TerminalAppUpdateTests {
    private func item(_ id: String, _ body: String = "text") -> TimelineItem {
        TimelineItem(id: id, role: .assistant, body: body)
    }

    private func card(_ uploadId: String) -> AgentAttachment {
        AgentAttachment(uploadId: uploadId, fileName: "\(uploadId).txt", mimeType: "text/plain", size: 2, sha256: "")
    }

    @Test func whatTheModelsPublishedIsWhatTheAppShows() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.chats = [Sidebar.Chat(id: "c1", title: "First chat"), Sidebar.Chat(id: "c2", title: "Second")]
        state.agentUnread = 3
        state.header = "demo · llama3.2"
        state.notOffered = [.workspaces]
        state.items = [item("m1", "Hallo")]
        state.isReplyRunning = true
        state.screenStatus = "Sybil is typing… Ctrl+C stops"
        state.timelineMeasuredLines = 90
        state.timelineCover = "Loading the session…"
        #expect(app.update(.published(state)) == [])
        #expect(app.sidebar.chats.map(\.id) == ["c1", "c2"])
        #expect(app.sidebar.agentUnread == 3)
        #expect(app.sidebar.notOffered == [.workspaces])
        #expect(app.header == "demo · llama3.2")
        #expect(app.items.map(\.id) == ["m1"])
        #expect(app.isReplyRunning)
        #expect(app.screenStatus == "Sybil is typing… Ctrl+C stops")
        #expect(app.timelineMeasuredLines == 90)
        #expect(app.timelineCover == "Loading the session…")

        // The next snapshot replaces it all: nothing the models stopped publishing stays.
        var empty = PublishedState()
        empty.items = []
        _ = app.update(.published(empty))
        #expect(app.sidebar.chats.isEmpty)
        #expect(app.sidebar.agentUnread == 0)
        #expect(app.header == nil)
        #expect(app.items.isEmpty)
        #expect(!app.isReplyRunning)
        #expect(app.screenStatus == nil)
        #expect(app.timelineMeasuredLines == 0)
        #expect(app.timelineCover == nil)
    }

    @Test func entriesNotPublishedStayAsTheirOwnMessageLeftThem() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.opened(.webSearch("w1"), title: "Web search"))
        let screen = WebSearchScreen(query: "Wie wird das Wetter?", answer: "Sonnig.", sources: [])
        _ = app.update(.webSearchOpened(id: "w1", screen))
        let opened = app.items
        var state = PublishedState()
        state.screenStatus = "A saved web search: the query, the answer and its sources"
        _ = app.update(.published(state))
        #expect(!opened.isEmpty)
        #expect(app.items == opened, "a saved web search's entries came with webSearchOpened")
        #expect(app.screenStatus == "A saved web search: the query, the answer and its sources")
    }

    @Test func aNewChatSavedWithItsFirstMessageBecomesThatChat() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.savedChat = Sidebar.Chat(id: "c9", title: "Plans")
        _ = app.update(.published(state))
        #expect(app.sidebar.current == .chat("c9"))
        #expect(app.sidebar.selection == .chat("c9"))
        #expect(app.title == "Plans")

        // Another open screen is never replaced by the chat model's chat.
        _ = app.update(.opened(.agent, title: "Sybil Agent"))
        state.savedChat = Sidebar.Chat(id: "c10", title: "Other")
        _ = app.update(.published(state))
        #expect(app.sidebar.current == .agent)
        #expect(app.title == "Sybil Agent")
    }

    @Test func aSubagentThreadOpeningOrClosingStartsAtTheBottom() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.items = (0..<40).map { item("m\($0)") }
        _ = app.update(.published(state))
        _ = app.render(size: app.size)
        _ = app.scrollTimeline(.top)
        _ = app.render(size: app.size)
        #expect(!app.scroll.isFollowingBottom)
        _ = app.update(.published(state))
        #expect(!app.scroll.isFollowingBottom, "the same screen keeps where the reader is")
        state.isThreadOpen = true
        _ = app.update(.published(state))
        #expect(app.isThreadOpen)
        #expect(app.scroll.isFollowingBottom)
        _ = app.scrollTimeline(.top)
        _ = app.render(size: app.size)
        #expect(!app.scroll.isFollowingBottom)
        state.isThreadOpen = false
        _ = app.update(.published(state))
        #expect(!app.isThreadOpen)
        #expect(app.scroll.isFollowingBottom)
    }

    @Test func theSelectedCardStaysWhileItIsPublishedAndGoesWithIt() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.attachmentCards = [card("u1"), card("u2")]
        _ = app.update(.published(state))
        app.selectedAttachment = "u1"
        state.attachmentCards = [card("u1")]
        _ = app.update(.published(state))
        #expect(app.attachmentCards.map(\.uploadId) == ["u1"])
        #expect(app.selectedAttachment == "u1")
        state.attachmentCards = nil
        _ = app.update(.published(state))
        #expect(app.attachmentCards.map(\.uploadId) == ["u1"], "no cards published: another screen is open")
        #expect(app.selectedAttachment == "u1")
        state.attachmentCards = [card("u2")]
        _ = app.update(.published(state))
        #expect(app.selectedAttachment == nil, "the selected card went with its message")
        #expect(TerminalApp.keptSelection("u2", among: [card("u2")]) == "u2")
        #expect(TerminalApp.keptSelection("u1", among: [card("u2")]) == nil)
    }

    @Test func searchHitsArrivingAfterReturnOpenTheBestOne() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.search = PublishedState.Search(
            hits: [SearchOverlay.Hit(destination: .chat("c1"), title: "First chat")], notice: nil, pending: false)
        #expect(app.update(.published(state)) == [], "no search open: the hits are not shown")
        #expect(app.overlay == nil)
        _ = app.handle(.press(.character("k"), .control), now: .zero)
        _ = app.handle(.paste("first"), now: .zero)
        state.search?.pending = true
        state.search?.notice = "Searching…"
        #expect(app.update(.published(state)) == [])
        #expect(app.handle(.press(.enter), now: .zero) == [.submitSearch])
        state.search?.pending = false
        state.search?.notice = nil
        #expect(app.update(.published(state)) == [.open(.chat("c1"))])
        #expect(app.overlay == nil)
    }

    @Test func theRecordsAndTheQuickQuestionShowWhileTheirOverlayIsOpen() {
        var app = TerminalApp.withOneChat()
        var records = RecordsOverlay()
        records.status = "2 records not synced yet"
        let quick = PublishedState.QuickQuestion(
            model: "chat-latest", question: "Warum?", answer: "Darum.", isAnswering: false, status: "Stopped")
        var state = PublishedState()
        state.records = records
        state.quickQuestion = quick
        _ = app.update(.published(state))
        #expect(app.overlay == nil, "neither opens by being published")

        _ = app.handle(.press(.function(4)), now: .zero)
        _ = app.update(.published(state))
        #expect(app.overlay == .records(records))

        _ = app.handle(.press(.escape), now: .zero)
        #expect(app.handle(.press(.function(2)), now: .zero) == [.showQuickQuestion])
        #expect(app.update(.quickQuestionOpened(draft: "alte Frage", quick)) == [])
        guard case .quickQuestion(let opened) = app.overlay else {
            Issue.record("the Quick Question is not open")
            return
        }
        #expect(opened.prompt.text == "alte Frage" && opened.isPromptSelected, "opened on the kept draft")
        #expect(opened.answer == "Darum.")
        #expect(opened.status == "Stopped")
        var answering = quick
        answering.answer = "Darum, weil"
        answering.isAnswering = true
        state.quickQuestion = answering
        _ = app.update(.published(state))
        guard case .quickQuestion(let shown) = app.overlay else {
            Issue.record("the Quick Question closed")
            return
        }
        #expect(shown.prompt.text == "alte Frage", "a publish keeps the prompt")
        #expect(shown.answer == "Darum, weil")
        #expect(shown.isAnswering)
    }

    @Test func theTerminalsSizeThemeAndMotionAreTheAppsOwn() {
        var app = TerminalApp.withOneChat()
        #expect(app.update(.resized(TerminalSize(columns: 100, rows: 30))) == [])
        #expect(app.size == TerminalSize(columns: 100, rows: 30))
        #expect(app.update(.themeChanged(.light)) == [])
        #expect(app.theme == .light)
        #expect(app.update(.reduceMotionChanged(true)) == [])
        #expect(app.reduceMotion)
        _ = app.update(.reduceMotionChanged(false))
        #expect(!app.reduceMotion)
    }

    @Test func anOpenedScreenIsMarkedTitledAndStartsEmptyAtTheBottom() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.items = (0..<40).map { item("m\($0)") }
        _ = app.update(.published(state))
        _ = app.render(size: app.size)
        _ = app.scrollTimeline(.top)
        _ = app.render(size: app.size)
        #expect(!app.scroll.isFollowingBottom)
        app.sidebar.selection = .chat("c1")
        #expect(app.update(.opened(.agent, title: "Sybil Agent")) == [])
        #expect(app.sidebar.current == .agent)
        #expect(app.sidebar.selection == .agent)
        #expect(app.title == "Sybil Agent")
        #expect(app.items.isEmpty, "the room's entries come when it publishes them")
        #expect(app.scroll.isFollowingBottom)
    }

    @Test func aChatsDraftCommandWorksOnTheStagedFiles() {
        var app = TerminalApp.withOneChat()
        let files = ["a.txt", "b.txt"].map {
            ChatAttachment(name: $0, mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("hi".utf8))
        }
        _ = app.update(.chatAttachmentsRead(files, refusals: []))
        #expect(app.update(.chatDraftCommandEntered(.detach(1), text: "/detach 1")) == [])
        #expect(app.chatAttachments.map(\.attachment.name) == ["b.txt"])
        #expect(app.notice == "Removed a.txt; it will not be sent.")
        _ = app.update(.chatDraftCommandEntered(.detach(5), text: "/detach 5"))
        #expect(app.chatAttachments.map(\.attachment.name) == ["b.txt"])
        #expect(app.notice == "There is no attachment 5; /detach 1 or /detach all (/attachments lists them).")
    }

    @Test func aSessionsScrollCommandMovesTheTimelineOnlyAgainstADraw() {
        var app = TerminalApp.withOneChat()
        var state = PublishedState()
        state.items = (0..<40).map { item("m\($0)") }
        _ = app.update(.published(state))
        _ = app.scrollTimeline(.top)
        let undrawn = app.scroll
        _ = app.update(.sessionScrollCommanded(.jumpToBottom))
        #expect(app.scroll == undrawn, "nothing drawn yet: nothing to measure the command against")
        _ = app.render(size: app.size)
        _ = app.scrollTimeline(.top)
        _ = app.render(size: app.size)
        #expect(!app.scroll.isFollowingBottom)
        #expect(app.update(.sessionScrollCommanded(.jumpToBottom)) == [])
        #expect(app.scroll.isFollowingBottom)
    }

    @Test func aReportedScrollIsNotReportedAgain() {
        var app = TerminalApp.withOneChat()
        _ = app.scrollTimeline(.lines(-3))
        #expect(app.timelineWasScrolled)
        #expect(app.update(.timelineScrollReported) == [])
        #expect(!app.timelineWasScrolled)
    }

    @Test func aFrameTickMovesTheTimerAndEndsAMeditationThatIsDue() {
        var app = TerminalApp.withOneChat()
        #expect(app.update(.frameTicked(now: .seconds(1))) == [], "nothing moves: nothing to draw")
        _ = app.handle(.press(.function(5)), now: .seconds(5))
        #expect(app.update(.frameTicked(now: .seconds(6))) == [.redraw])
        #expect(app.update(.frameTicked(now: .seconds(605))) == [.saveMeditation(seconds: 600), .redraw])
        #expect(app.overlay == nil)
        #expect(app.update(.frameTicked(now: .seconds(606))) == [])

        _ = app.handle(.press(.function(3)), now: .seconds(700))
        #expect(app.update(.frameTicked(now: .seconds(701))) == [.redraw], "the breathing scene moves")
        _ = app.update(.reduceMotionChanged(true))
        _ = app.handle(.press(.escape), now: .seconds(702))
        _ = app.handle(.press(.function(3)), now: .seconds(703))
        #expect(app.update(.frameTicked(now: .seconds(704))) == [], "a still scene needs no redraw")
    }

    @Test func aSuspendAndAContinueFromOutsideAreTheBackgroundAndTheForeground() {
        var app = TerminalApp.withOneChat()
        #expect(app.update(.continuedAfterSuspend) == [], "a continue without a suspend is no return")
        #expect(app.update(.suspendedFromOutside) == [.wentToBackground])
        #expect(app.update(.suspendedFromOutside) == [])
        #expect(app.update(.continuedAfterSuspend) == [.returnedToForeground])
    }
}
