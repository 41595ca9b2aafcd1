import SybilClient
import SybilCore
import SybilWire

/// The terminal app's screen state and its key bindings, as a value: focus (sidebar, timeline,
/// composer), the overlay on top (search, key list), the composer's text, the timeline's items
/// and scroll position, the sidebar. ``handle(_:now:)`` turns a decoded input into state changes
/// and the ``AppCommand``s its runner performs; ``render(size:)`` (in `TerminalApp+Render.swift`)
/// draws it. Nothing here waits or reads a clock: the time of an input is passed in.
public struct TerminalApp: Sendable {
    /// Where keys go when no overlay is open.
    public enum Focus: Sendable, Hashable, CaseIterable {
        /// The sidebar's rows.
        case sidebar
        /// The timeline (scrolling, retry).
        case timeline
        /// The composer.
        case composer
    }

    /// What is drawn over the screen, taking every key.
    public enum Overlay: Sendable, Hashable {
        /// The key list.
        case help
        /// The search over the saved chats.
        case search(SearchOverlay)
        /// The Quick Question panel.
        case quickQuestion(QuickQuestionOverlay)
        /// The breathing screen (its scene is ``TerminalApp/breathing``).
        case breathing
        /// The records: what was logged on this device and what is unsynced.
        case records(RecordsOverlay)
        /// The meditation timer (its session and scene are ``TerminalApp/meditation``).
        case meditation
        /// The "new web search" prompt.
        case webSearch(WebSearchPrompt)
        /// The preview of an Agent room attachment card (`v`).
        case attachmentPreview(AttachmentPreviewOverlay)
    }

    /// How long after one Ctrl+C a second one quits.
    public static let quitWindow: Duration = .seconds(2)
    /// How soon a second press of the Chats key counts as a double press (meditation).
    public static let doublePressWindow: Duration = .milliseconds(400)
    /// How many lines a wheel step scrolls.
    public static let wheelLines = 3

    /// The colours.
    public var theme: Theme
    /// The sidebar.
    public var sidebar = Sidebar()
    /// Where keys go.
    public var focus = Focus.composer
    /// The overlay on top, if any.
    public var overlay: Overlay?
    /// The composer's text and cursor.
    public var composer = ComposerBuffer()
    /// The open screen's title.
    public var title = "New chat"
    /// Which server and model the app talks to, drawn at the right of the title row: the
    /// profile (or "demo") and the model.
    public var header: String?
    /// The open screen's timeline.
    public var items: [TimelineItem] = []
    /// The timeline's scroll position.
    public var scroll = TimelineScroll()
    /// The Agent room's attachment cards, oldest first (the keys `a`, `v`, `e` act on them).
    public var attachmentCards: [AgentAttachment] = []
    /// The upload id of the selected attachment card, if one is selected.
    public var selectedAttachment: String?
    /// The files staged with `/attach` for the next message of an ordinary chat, in order
    /// (listed under the composer, numbered as `/detach` takes them); they stay staged across
    /// chats, as the composer's text does, until a message carries them.
    public internal(set) var chatAttachments: [StagedChatAttachment] = []
    /// The id the next staged file gets.
    var nextStagedAttachment = 0
    /// The laid-out lines, cached by item id, revision and width.
    public var timelineLayout = TimelineLayout()
    /// Lines to measure above and below the viewport at each draw (0: none), for a screen
    /// model that decides scrolling from ``timelineViewport``.
    public var timelineMeasuredLines = 0
    /// What the last draw of the timeline showed.
    public internal(set) var timelineViewport: TimelineDrawReport?
    /// A sentence drawn over the timeline while a screen model covers it (the list is still
    /// laid out and measured beneath).
    public var timelineCover: String?
    /// Whether the person scrolled the timeline since ``takeTimelineScrolled()`` was last
    /// called (a drag, to a screen model).
    var timelineWasScrolled = false
    /// Whether a reply or a turn is running on the open screen (Ctrl+C stops it).
    public var isReplyRunning = false
    /// Whether a subagent thread's view is open over the workspace session (Esc closes it).
    public var isThreadOpen = false
    /// Whether motion is reduced (a still breathing scene).
    public var reduceMotion = false
    /// The breathing screen's scene while it is open.
    public internal(set) var breathing: BreathingScreen?
    /// When the breathing screen opened, on the inputs' time line.
    private var breathingStartedAt = Duration.zero
    /// The first line of the key list shown (F1), while it is open.
    public internal(set) var helpScroll = 0
    /// The meditation timer while it is open.
    public internal(set) var meditation: MeditationOverlay?
    /// When the Chats key was last pressed, if a second press may still make it a double press.
    private var lastChatsKey: Duration?
    /// A line about the open screen shown in the status line (connection, "Sybil is typing…").
    public var screenStatus: String?
    /// A passing message in the status line ("Press Ctrl+C again to quit").
    public var notice: String?
    /// Whether the app is in the foreground: the terminal has focus (`CSI ? 1004` reports) and
    /// the process was not suspended. Starts in the foreground.
    public private(set) var isInForeground = true
    /// The size of the last frame, for mouse hit testing.
    public internal(set) var size: TerminalSize
    /// When the last Ctrl+C came, if one came within ``quitWindow``.
    private var lastInterrupt: Duration?
    /// The destination of each sidebar row drawn in the last frame, by screen row.
    var sidebarHits: [Int: AppDestination] = [:]
    /// The screen row of the sidebar's "Chats" title in the last frame (a click is the Chats
    /// key), when it was drawn.
    var sidebarChatsRow: Int?

    /// An app with `theme` on a screen of `size`; the composer of a new chat has focus.
    public init(theme: Theme, size: TerminalSize = .fallback) {
        self.theme = theme
        self.size = size
    }

    /// The screen changed size.
    public mutating func resize(_ newSize: TerminalSize) {
        size = newSize
    }

    /// Shows `destination` as open: the sidebar marks it, the selection moves to it, the
    /// timeline starts at the bottom. The runner sets ``items`` and ``title``.
    public mutating func show(_ destination: AppDestination, title: String) {
        if sidebar.current != destination { scroll = TimelineScroll() }
        sidebar.current = destination
        sidebar.selection = destination
        self.title = title
    }

    /// Gives `text` back to the composer (a send that did not go out) when it holds nothing
    /// but blanks; a draft is never replaced. A text that can come back after the person typed
    /// again (an answer from a server, a file read) is first given to its screen's view model
    /// (`UndeliveredMessages.giveBack`), which keeps it when the composer cannot take it, so
    /// only a text the composer takes reaches this; the others are sent back at once, while the
    /// composer is still empty from the send.
    public mutating func restoreDraft(_ text: String) {
        guard composer.text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) else { return }
        composer = ComposerBuffer(text: text)
        composer.cursor = text.count
    }

    /// Applies one input; returns what the runner should do.
    public mutating func handle(_ input: TerminalInput, now: Duration) -> [AppCommand] {
        switch input {
        case .key(let key): return handle(key, now: now)
        case .paste(let text): return paste(text)
        case .mouse(let event): return handle(event, now: now)
        case .focus(let focused): return focused ? returnToForeground() : goToBackground()
        case .backgroundColor, .keyboardEnhancementFlags, .deviceAttributes: return []
        }
    }

    // MARK: Foreground

    /// The process continued after a suspend (SIGCONT): it is back in the foreground.
    public mutating func resumed() -> [AppCommand] {
        returnToForeground()
    }

    /// The process is being suspended (SIGTSTP from outside): it goes to the background.
    public mutating func suspended() -> [AppCommand] {
        goToBackground()
    }

    /// Focus-in or a continue after a suspend, only when the app was in the background
    /// (terminals may report focus-in when reporting is turned on; both may come together).
    private mutating func returnToForeground() -> [AppCommand] {
        guard !isInForeground else { return [] }
        isInForeground = true
        return [.returnedToForeground]
    }

    private mutating func goToBackground() -> [AppCommand] {
        guard isInForeground else { return [] }
        isInForeground = false
        return [.wentToBackground]
    }

    /// `commands`, preceded by a tab switch when the sidebar's selection moved from `before`
    /// into another section.
    func switchingTab(from before: AppDestination, _ commands: [AppCommand] = []) -> [AppCommand] {
        before.section == sidebar.selection.section ? commands : [.switchedTab] + commands
    }

    // MARK: Keys

    private mutating func handle(_ event: KeyEvent, now: Duration) -> [AppCommand] {
        let control = event.modifiers.contains(.control)
        if case .character(let character) = event.key, control, character == "c" || character == "C" {
            return interrupt(now: now)
        }
        notice = nil
        if let overlay {
            return handle(event, overlay: overlay, now: now)
        }
        switch (event.key, event.modifiers) {
        case (.character("z"), .control), (.character("Z"), .control):
            return goToBackground() + [.suspend]
        case (.character("d"), .control), (.character("D"), .control):
            return composer.isEmpty ? [.quit] : (focus == .composer ? edit(event) : [])
        case (.character("k"), .control), (.character("K"), .control):
            overlay = .search(SearchOverlay())
            return [.search("")]
        case (.character("r"), .control), (.character("R"), .control):
            return [.refresh]
        case (.function(1), _):
            overlay = .help
            helpScroll = 0
            return []
        case (.function(4), _):
            overlay = .records(RecordsOverlay())
            return []
        case (.function(5), _):
            return startMeditation(now: now)
        case (.function(6), _):
            return [.nextModel]
        case (.character("n"), [.control, .alt]), (.character("N"), [.control, .alt]):
            // The seed's Command+Option+N.
            guard !sidebar.notOffered.contains(.webSearch) else {
                notice = "Web search is not offered by this server."
                return []
            }
            overlay = .webSearch(WebSearchPrompt())
            return []
        case (.character("1"), .alt):
            return chatsKey(now: now)
        case (.character("b"), .control), (.character("B"), .control), (.function(3), _):
            overlay = .breathing
            breathing = BreathingScreen(size: size, appearance: theme.appearance, reduceMotion: reduceMotion)
            breathingStartedAt = now
            return []
        case (.character("q"), .control), (.character("Q"), .control), (.function(2), _):
            overlay = .quickQuestion(QuickQuestionOverlay())
            return [.showQuickQuestion]
        case (.tab, let modifiers):
            moveFocus(backwards: modifiers.contains(.shift))
            return focus == .sidebar ? [.refreshSidebar] : []
        case (.pageUp, _):
            return scrollTimeline(.pageUp)
        case (.pageDown, _):
            return scrollTimeline(.pageDown)
        case (.escape, _) where isThreadOpen:
            return [.closeThread]
        case (.escape, _):
            focus = focus == .composer ? .sidebar : .composer
            return focus == .sidebar ? [.refreshSidebar] : []
        default:
            break
        }
        switch focus {
        case .sidebar: return handleSidebar(event)
        case .timeline: return handleTimeline(event)
        case .composer: return edit(event)
        }
    }

    /// Ctrl+C: stops a running reply; a second one within ``quitWindow`` quits.
    private mutating func interrupt(now: Duration) -> [AppCommand] {
        if let last = lastInterrupt, now - last <= Self.quitWindow {
            lastInterrupt = nil
            return [.quit]
        }
        lastInterrupt = now
        if case .quickQuestion(let quick) = overlay, quick.isAnswering {
            notice = "Stopped. Press Ctrl+C again to quit."
            return [.stopReply]
        }
        if isReplyRunning {
            notice = "Stopped. Press Ctrl+C again to quit."
            return [.stopReply]
        }
        notice = "Press Ctrl+C again to quit."
        return []
    }

    private mutating func moveFocus(backwards: Bool) {
        let order = Focus.allCases
        let index = order.firstIndex(of: focus) ?? 0
        focus = order[(index + (backwards ? order.count - 1 : 1)) % order.count]
    }

    private mutating func handleSidebar(_ event: KeyEvent) -> [AppCommand] {
        let before = sidebar.selection
        let commands = moveInSidebar(event)
        return switchingTab(from: before, commands)
    }

    private mutating func moveInSidebar(_ event: KeyEvent) -> [AppCommand] {
        switch event.key {
        case .up: sidebar.moveSelection(by: -1)
        case .down: sidebar.moveSelection(by: 1)
        case .pageUp: sidebar.moveSelection(by: -10)
        case .pageDown: sidebar.moveSelection(by: 10)
        case .home: sidebar.selectEnd(top: true)
        case .end: sidebar.selectEnd(top: false)
        case .enter, .right:
            focus = .composer
            return [.open(sidebar.selection)]
        case .character(let character) where event.modifiers.isEmpty || event.modifiers == .shift:
            // Typing in the sidebar goes to the composer, as the person meant it to.
            focus = .composer
            composer.insert(String(character))
        default: break
        }
        return []
    }

    private mutating func handleTimeline(_ event: KeyEvent) -> [AppCommand] {
        if let commands = handleAttachmentKey(event) { return commands }
        switch event.key {
        case .up: return scrollTimeline(.lines(-1))
        case .down: return scrollTimeline(.lines(1))
        case .home: return scrollTimeline(.top)
        case .end: return scrollTimeline(.bottom)
        case .character("r") where event.modifiers.isEmpty: return [.retry]
        case .character("R"): return [.resendAll]
        case .character("d") where event.modifiers.isEmpty: return [.discard]
        case .character("x") where event.modifiers.isEmpty: return [.removeFailedAttachment]
        case .character("t") where event.modifiers.isEmpty: return [.openThread]
        case .enter:
            focus = .composer
            return []
        default: return []
        }
    }

    /// The composer's editing keys; Return sends.
    private mutating func edit(_ event: KeyEvent) -> [AppCommand] {
        let modifiers = event.modifiers
        switch event.key {
        case .enter where modifiers.isEmpty:
            return submit()
        case .enter:
            // Alt+Enter, Shift+Enter (kitty or modifyOtherKeys), Ctrl+Enter: a new line.
            composer.insertNewline()
        case .character("j") where modifiers == .control, .character("J") where modifiers == .control:
            composer.insertNewline()
        case .character("a") where modifiers == .control: composer.moveLineStart()
        case .character("e") where modifiers == .control: composer.moveLineEnd()
        case .character("w") where modifiers == .control: composer.deleteWordBackward()
        case .character("u") where modifiers == .control: composer.deleteToLineStart()
        case .character("d") where modifiers == .control: composer.deleteForward()
        case .character("b") where modifiers == .alt: composer.moveWordLeft()
        case .character("f") where modifiers == .alt: composer.moveWordRight()
        case .character(let character):
            guard modifiers.subtracting(.shift).isEmpty else { return [] }
            composer.insert(String(character))
        case .backspace:
            if modifiers.contains(.alt) || modifiers.contains(.control) {
                composer.deleteWordBackward()
            } else {
                composer.deleteBackward()
            }
        case .delete: composer.deleteForward()
        case .left:
            if modifiers.contains(.alt) || modifiers.contains(.control) {
                composer.moveWordLeft()
            } else {
                composer.moveLeft()
            }
        case .right:
            if modifiers.contains(.alt) || modifiers.contains(.control) {
                composer.moveWordRight()
            } else {
                composer.moveRight()
            }
        case .home: composer.moveLineStart()
        case .end: composer.moveLineEnd()
        case .up:
            if !composer.moveUp(width: AppLayout.composerWidth(size: size)) { return scrollTimeline(.lines(-1)) }
        case .down:
            if !composer.moveDown(width: AppLayout.composerWidth(size: size)) { return scrollTimeline(.lines(1)) }
        default: break
        }
        return []
    }

    private mutating func submit() -> [AppCommand] {
        let text = composer.text
        // In an ordinary chat, Return with staged files sends them without text.
        guard !text.allSatisfy(\.isWhitespace) || !shownChatAttachments.isEmpty else { return [] }
        composer.clear()
        scrollTimelineToBottom()
        return [.send(text)]
    }

    private mutating func paste(_ text: String) -> [AppCommand] {
        switch overlay {
        case .search(var search):
            search.query += text.replacingOccurrences(of: "\n", with: " ")
            search.selected = 0
            overlay = .search(search)
            return [.search(search.query)]
        case .help, .breathing, .records, .meditation, .attachmentPreview:
            return []
        case .webSearch(var prompt):
            guard !prompt.isSearching else { return [] }
            prompt.prompt.insert(text.replacingOccurrences(of: "\n", with: " "))
            overlay = .webSearch(prompt)
            return []
        case .quickQuestion(var quick):
            quick.type(text)
            overlay = .quickQuestion(quick)
            return []
        case nil:
            focus = .composer
            composer.insert(text)
            return []
        }
    }

    // MARK: Overlays

    private mutating func handle(_ event: KeyEvent, overlay current: Overlay, now: Duration) -> [AppCommand] {
        switch current {
        case .attachmentPreview(let preview):
            return handlePreviewKey(event, preview)
        case .webSearch(var prompt):
            switch event.key {
            case .escape:
                overlay = nil
            case .enter:
                let query = prompt.prompt.text
                guard !prompt.isSearching, !query.allSatisfy(\.isWhitespace) else { return [] }
                prompt.isSearching = true
                prompt.status = nil
                overlay = .webSearch(prompt)
                return [.askWeb(query)]
            case .character(let character) where event.modifiers.subtracting(.shift).isEmpty && !prompt.isSearching:
                prompt.prompt.insert(String(character))
                prompt.status = nil
                overlay = .webSearch(prompt)
            case .backspace where !prompt.isSearching:
                prompt.prompt.deleteBackward()
                overlay = .webSearch(prompt)
            case .left:
                prompt.prompt.moveLeft()
                overlay = .webSearch(prompt)
            case .right:
                prompt.prompt.moveRight()
                overlay = .webSearch(prompt)
            default: break
            }
            return []
        case .meditation:
            switch event.key {
            case .escape, .enter, .function(5), .character("q"): return endMeditation(now: now)
            default: return []
            }
        case .quickQuestion(let quick):
            return handleQuickQuestion(event, quick)
        case .breathing:
            switch event.key {
            case .escape, .enter, .function(3), .character("q"):
                overlay = nil
                breathing = nil
            default: break
            }
            return []
        case .records:
            switch event.key {
            case .escape, .enter, .function(4), .character("q"):
                overlay = nil
                return []
            case .character("s"):
                return [.syncRecords]
            case .character(let character):
                guard let score = character.wholeNumberValue, (1...5).contains(score) else { return [] }
                return [.logMood(score)]
            default:
                return []
            }
        case .help:
            let page = max(1, HelpOverlay.frame(size: size).rows - 3)
            switch event.key {
            case .escape, .enter, .function(1), .character("q"): overlay = nil
            case .up: helpScroll -= 1
            case .down: helpScroll += 1
            case .pageUp: helpScroll -= page
            case .pageDown, .character(" "): helpScroll += page
            case .home: helpScroll = 0
            case .end: helpScroll = Int.max / 2
            default: break
            }
            helpScroll = min(max(0, helpScroll), HelpOverlay.maximumScroll(in: HelpOverlay.frame(size: size)))
            return []
        case .search(var search):
            switch event.key {
            case .escape:
                overlay = nil
                return []
            case .enter:
                guard let hit = search.selectedHit, !search.isPending else {
                    // Return before the results arrived: search now, open the best hit then.
                    guard !search.query.allSatisfy(\.isWhitespace) else { return [] }
                    search.opensFirstHit = true
                    overlay = .search(search)
                    return [.submitSearch]
                }
                overlay = nil
                focus = .composer
                let before = sidebar.selection
                sidebar.selection = hit.destination
                return switchingTab(from: before, [.open(hit.destination)])
            case .up:
                search.move(by: -1)
            case .down, .tab:
                search.move(by: 1)
            case .backspace:
                guard !search.query.isEmpty else { return [] }
                search.query.removeLast()
                search.selected = 0
                search.opensFirstHit = false
                overlay = .search(search)
                return [.search(search.query)]
            case .character("u") where event.modifiers == .control:
                search.query = ""
                search.selected = 0
                overlay = .search(search)
                return [.search("")]
            case .character(let character) where event.modifiers.subtracting(.shift).isEmpty:
                search.query.append(character)
                search.selected = 0
                search.opensFirstHit = false
                overlay = .search(search)
                return [.search(search.query)]
            default:
                return []
            }
            overlay = .search(search)
            return []
        }
    }

    private mutating func handleQuickQuestion(_ event: KeyEvent, _ current: QuickQuestionOverlay) -> [AppCommand] {
        var quick = current
        let modifiers = event.modifiers
        switch event.key {
        case .escape, .function(2):
            overlay = nil
            return [.hideQuickQuestion(quick.prompt.text)]
        case .character("q") where modifiers == .control:
            overlay = nil
            return [.hideQuickQuestion(quick.prompt.text)]
        case .character("o") where modifiers == .control:
            overlay = nil
            focus = .composer
            return [.hideQuickQuestion(quick.prompt.text), .openQuickQuestionInChat]
        case .enter where modifiers.isEmpty:
            let text = quick.prompt.text
            guard !text.allSatisfy(\.isWhitespace), !quick.isAnswering else { return [] }
            quick.isPromptSelected = true
            overlay = .quickQuestion(quick)
            return [.askQuickQuestion(text)]
        case .enter:
            quick.type("\n")
        case .character("j") where modifiers == .control:
            quick.type("\n")
        case .character(let character) where modifiers.subtracting(.shift).isEmpty:
            quick.type(String(character))
        case .backspace:
            if quick.isPromptSelected { quick.prompt.clear() } else { quick.prompt.deleteBackward() }
            quick.isPromptSelected = false
        case .left:
            quick.isPromptSelected = false
            quick.prompt.moveLeft()
        case .right:
            quick.isPromptSelected = false
            quick.prompt.moveRight()
        case .home: quick.prompt.moveLineStart()
        case .end: quick.prompt.moveLineEnd()
        default: return []
        }
        overlay = .quickQuestion(quick)
        return []
    }

    // MARK: Meditation

    /// The Chats key (Alt+1, or a click on the sidebar's "Chats"): the sidebar's Chats section
    /// gets the focus (a tab switch from another section); a second press within
    /// ``doublePressWindow`` opens the meditation timer instead (the seed's double tap).
    mutating func chatsKey(now: Duration) -> [AppCommand] {
        if let last = lastChatsKey, now - last <= Self.doublePressWindow, now >= last {
            lastChatsKey = nil
            return startMeditation(now: now)
        }
        lastChatsKey = now
        let before = sidebar.selection
        focus = .sidebar
        if sidebar.selection.section != .chats {
            sidebar.selection = sidebar.current.section == .chats ? sidebar.current : .newChat
        }
        return switchingTab(from: before, [.refreshSidebar])
    }

    /// Opens the meditation timer at `now` for the default planned time.
    private mutating func startMeditation(now: Duration) -> [AppCommand] {
        guard let session = MeditationSession(minutes: MeditationSession.defaultMinutes) else { return [] }
        overlay = .meditation
        meditation = MeditationOverlay(
            session: session, now: now, size: size, appearance: theme.appearance, reduceMotion: reduceMotion)
        return []
    }

    /// Ends the meditation at `now` (on time or early): the record of the whole seconds spent
    /// is saved, or nothing under a second.
    private mutating func endMeditation(now: Duration) -> [AppCommand] {
        guard overlay == .meditation, let current = meditation else { return [] }
        overlay = nil
        meditation = nil
        guard let seconds = current.recordedSeconds(at: now) else {
            notice = "The meditation ended before a second had passed; nothing was saved."
            return []
        }
        notice = "Saving the meditation of \(Self.spoken(seconds))…"
        return [.saveMeditation(seconds: seconds)]
    }

    /// Ends the meditation when its planned time is up at `now` (the runner's frame ticks).
    public mutating func finishMeditationIfDue(now: Duration) -> [AppCommand] {
        guard overlay == .meditation, let current = meditation, current.isFinished(at: now) else { return [] }
        return endMeditation(now: now)
    }

    /// `1 min 5 s`, `42 s`.
    static func spoken(_ seconds: Int) -> String {
        seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min\(seconds % 60 == 0 ? "" : " \(seconds % 60) s")"
    }

    /// A frame tick at `now` (the inputs' time line): advances the breathing scene or the
    /// meditation timer; returns whether the screen changed.
    public mutating func tick(now: Duration) -> Bool {
        if overlay == .meditation, var current = meditation {
            let changed = current.advance(to: now)
            meditation = current
            return changed
        }
        guard overlay == .breathing, var scene = breathing else { return false }
        let elapsed = now - breathingStartedAt
        scene.advance(to: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        breathing = scene
        return !scene.reduceMotion
    }

    /// Shows the records model's state in the records overlay (ignored when it is closed).
    public mutating func showRecords(_ records: RecordsOverlay) {
        guard case .records = overlay else { return }
        overlay = .records(records)
    }

    /// Copies the Quick Question model's state into its overlay (ignored when it is closed);
    /// `draft` replaces the prompt only when asked (on opening).
    public mutating func showQuickQuestion(
        draft: String?, model: String, question: String?, answer: String, isAnswering: Bool, status: String?
    ) {
        guard case .quickQuestion(var quick) = overlay else { return }
        if let draft { quick = QuickQuestionOverlay(draft: draft) }
        quick.model = model
        quick.question = question
        quick.answer = answer
        quick.isAnswering = isAnswering
        quick.status = status
        overlay = .quickQuestion(quick)
    }

    /// Feeds the search overlay the runner's hits (ignored when the overlay is closed);
    /// `pending` while the hits are not yet the current query's. When Return was pressed
    /// before they arrived, the best hit opens now: the command to perform is returned.
    public mutating func showSearchResults(_ hits: [SearchOverlay.Hit], notice: String?, pending: Bool = false)
        -> AppCommand?
    {
        guard case .search(var search) = overlay else { return nil }
        search.show(hits, notice: notice)
        search.isPending = pending
        if search.opensFirstHit, !pending, let first = hits.first {
            overlay = nil
            focus = .composer
            return .open(first.destination)
        }
        overlay = .search(search)
        return nil
    }

    // MARK: Mouse

    private mutating func handle(_ event: MouseEvent, now: Duration) -> [AppCommand] {
        let layout = AppLayout(
            size: size, composerLines: 1,
            attachmentLines: stagedAttachmentRows(width: AppLayout.composerWidth(size: size)).count)
        switch event.kind {
        case .scrollUp: return overlay == nil ? scrollTimeline(.lines(-Self.wheelLines)) : []
        case .scrollDown: return overlay == nil ? scrollTimeline(.lines(Self.wheelLines)) : []
        case .press(.left):
            guard overlay == nil else { return [] }
            if event.column < layout.sidebar.endColumn, event.row == sidebarChatsRow, sidebarHits[event.row] == nil {
                return chatsKey(now: now)
            }
            if event.column < layout.sidebar.endColumn, let destination = sidebarHits[event.row] {
                let before = sidebar.selection
                sidebar.selection = destination
                focus = .composer
                return switchingTab(from: before, [.open(destination)])
            }
            if event.column >= layout.timeline.column {
                focus = event.row >= layout.separator.row && event.row < layout.status.row ? .composer : .timeline
            }
            return []
        default:
            return []
        }
    }
}
