import Observation
import SybilClient
import SybilCore
import SybilTimeline
import SybilWire

/// Joins the pure ``TerminalApp`` to the view models: performs the app's commands (send,
/// stop, open, search, retry) on the open screen's model, and sends a snapshot of what the
/// models publish in ``sync()`` — the one place the runner observes, so a change of any model
/// it reads asks for a redraw. The controller never writes ``app``: the snapshot, what its
/// tasks come to and the terminal's changes each reach it as an ``AppMessage`` applied through
/// ``TerminalApp/update(_:)`` (keys through ``TerminalApp/handle(_:now:)``). File work runs in
/// the task that owns it, so closing the app stops it. It is observable itself for what its tasks change (the open chat or
/// session, finished work), never for ``app``, which drawing updates. Owns every task it
/// starts; ``close()`` ends them.
@MainActor
@Observable
public final class TerminalAppController {
    /// The screen state.
    @ObservationIgnored public private(set) var app: TerminalApp
    /// What the app is wired to.
    @ObservationIgnored public let services: TerminalAppServices
    /// The open chat, when a chat is open.
    public private(set) var chat: ChatConversationModel?
    /// The open workspace session, when one is open.
    public private(set) var workspace: WorkspaceSessionScreen?
    /// Whether a quit was asked for.
    @ObservationIgnored public private(set) var wantsToQuit = false
    /// Whether a suspend (Ctrl+Z) was asked for and not yet taken by the runner.
    @ObservationIgnored public private(set) var wantsToSuspend = false
    /// How many commands finished their work: ``sync()`` reads it, so a finished task asks the
    /// runner for a redraw.
    private var finishedWork = 0

    /// The workspace screen model the viewport reports go to, the last report and the last
    /// scroll command applied (by its sequence number).
    @ObservationIgnored private var reported:
        (screen: ObjectIdentifier, viewport: WorkspaceChatViewport?, sequence: UInt64)?
    /// The Agent room's newest message drawn at the bottom, as last reported to the room.
    @ObservationIgnored private var agentRoomShown: String?
    /// The save problems of the chats' and the sessions' kept texts last named on the status
    /// line, so each is named once when it appears.
    @ObservationIgnored private var namedSaveProblems: (chats: String?, sessions: String?)
    /// The open chat's entries, rebuilt from the first changed message only.
    @ObservationIgnored private var chatItems = ChatTimelineCache()
    @ObservationIgnored private var tasks: [Int: Task<Void, Never>] = [:]
    @ObservationIgnored private var nextTask = 0
    @ObservationIgnored private var searchStarted = false
    /// The frame time last passed to ``frame(now:)``.
    @ObservationIgnored private var now = Duration.zero
    /// The Agent room's reconnect wait, counted down on the status line.
    @ObservationIgnored private var reconnectCountdown = ReconnectCountdown()
    /// Whether the app asked for a redraw (``AppCommand/redraw``) since ``frame(now:)`` began.
    @ObservationIgnored private var redrawAsked = false

    /// A controller over `services`, drawing with `theme`.
    public init(services: TerminalAppServices, theme: Theme, size: TerminalSize = .fallback) {
        self.services = services
        self.app = TerminalApp(theme: theme, size: size)
    }

    /// Opens a new chat with the composer focused, starts the Agent room and lists the
    /// workspaces in the background.
    public func start() async {
        await services.chats.refresh()
        await services.records?.reload()
        chat = await services.chats.newChat()
        apply(.opened(.newChat, title: "New chat"))
        if let store = services.chatAttachmentDrafts {
            let restored = await store.restore()
            deliver(.chatAttachmentsRestored(restored.attachments, notes: restored.notes))
        }
        if let agent = services.agent, !services.notOffered.contains(.agentRoom) {
            run { await agent.start() }
        }
        // Lists of kept texts that cannot outlast the app (their store could not be opened) say
        // so; texts that could not be read back were kept aside: say where.
        let unread = [
            services.chats.undeliveredMessages.storeProblem.map(UndeliveredNotice.chat.notKept),
            services.agent?.undeliveredMessages.storeProblem.map(UndeliveredNotice.agentRoom.notKept),
            services.workspaces?.undelivered?.storeProblem.map(UndeliveredNotice.workspace.notKept),
            services.chats.undeliveredMessages.loadProblem, services.agent?.undeliveredMessages.loadProblem,
            services.workspaces?.undelivered?.loadProblem,
        ]
        .compactMap { $0 }
        if !unread.isEmpty { deliver(.noticed(unread.joined(separator: " "))) }
        if services.notOffered.contains(.workspaces) {
            deliver(.workspacesListed([]))
        } else if services.workspaces != nil {
            run { [weak self] in await self?.loadWorkspaces() }
        } else {
            deliver(.workspacesListed([]))
        }
        sync()
    }

    /// Lists the workspaces again.
    public func loadWorkspaces() async {
        guard let workspaces = services.workspaces else { return }
        switch await workspaces.list() {
        case .success(let desktops): deliver(.workspacesListed(desktops))
        case .failure(let problem): deliver(.workspacesNotListed(problem.message))
        }
    }

    /// Draws with `theme` from now on (the terminal reported its background).
    public func setTheme(_ theme: Theme) {
        apply(.themeChanged(theme))
    }

    /// The screen changed size.
    public func resize(_ size: TerminalSize) {
        apply(.resized(size))
    }

    /// Applies an input; returns whether the app should quit.
    @discardableResult
    public func handle(_ input: TerminalInput, now: Duration) -> Bool {
        let commands = app.handle(input, now: now)
        for command in commands { perform(command) }
        sync()
        return wantsToQuit
    }

    /// Applies what an effect came to, through the app's update function (the one way an
    /// effect's result reaches the app's state), and performs what it asks for next.
    func deliver(_ message: AppMessage) {
        apply(message)
        sync()
    }

    /// Applies `message` through the app's update function and performs what it asks for
    /// next, without copying the models' state again (the caller does, or the change is the
    /// terminal's own).
    private func apply(_ message: AppMessage) {
        for command in app.update(message) { perform(command) }
    }

    /// The process continued after a suspend (SIGCONT): back in the foreground.
    public func resumed() {
        deliver(.continuedAfterSuspend)
    }

    /// The process is being suspended from outside (SIGTSTP): in the background.
    public func suspended() {
        apply(.suspendedFromOutside)
    }

    /// Takes a pending suspend request: `true` once per Ctrl+Z.
    public func takeSuspendRequest() -> Bool {
        defer { wantsToSuspend = false }
        return wantsToSuspend
    }

    /// Draws the screen, then tells an open workspace session's screen model what the
    /// timeline now shows (so it never decides from a layout older than the screen). A scroll
    /// the model decides from that draw (a restored prepend anchor) is applied against the same
    /// draw and drawn at once: applied at a later tick it would be measured against a later
    /// draw, and undo whatever the person scrolled in between.
    public func render(size: TerminalSize) -> (CellGrid, CursorPlacement?) {
        var frame = app.render(size: size)
        if let screen = workspace?.screen {
            var redraws = 0
            while redraws < 3, reportAndApply(to: screen) {
                frame = app.render(size: size)
                redraws += 1
            }
        }
        reportAgentRoomShown()
        return frame
    }

    /// Tells the open Agent room what its shared read waits for: the transcript drawn at its
    /// bottom with its newest message on screen (the terminal has no entrance animation, so
    /// a drawn message has finished entering), or scrolled away from it.
    private func reportAgentRoomShown() {
        guard app.sidebar.current == .agent, app.overlay == nil, let room = services.agent?.room else {
            agentRoomShown = nil
            return
        }
        let newest = room.rows.last(where: { $0.message != nil })?.message?.messageId
        guard app.scroll.isFollowingBottom, let newest else {
            if agentRoomShown != nil { room.viewportLeftBottom() }
            agentRoomShown = nil
            return
        }
        guard agentRoomShown != newest else { return }
        agentRoomShown = newest
        room.viewportReachedBottom()
        room.entranceAnimationFinished()
    }

    /// Called on each frame tick while ``needsFrames``: a workspace session's screen model
    /// takes frames to publish rows; the breathing scene advances. Returns whether the screen
    /// must be drawn again (the models' own changes are observed).
    public func frame(now: Duration) -> Bool {
        self.now = now
        let scrolled = workspace.map(driveScreenModel) ?? false
        var countedDown = false
        if isCountingDown {
            let before = app.screenStatus
            sync()
            countedDown = app.screenStatus != before
        }
        redrawAsked = false
        apply(.frameTicked(now: now))
        return redrawAsked || scrolled || countedDown
    }

    /// Whether the status line counts a reconnect wait down (so frames tick each second).
    private var isCountingDown: Bool {
        guard app.sidebar.current == .agent, case .reconnecting? = services.agent?.room.connection else { return false }
        return true
    }

    /// One display tick of the open workspace session's screen model: the last draw is
    /// reported as its viewport (a scroll by the person as a drag that ended where the view
    /// is now), the model takes its frame, and a scroll command it published is applied.
    /// Returns whether the scroll moved. The composer counts as open while it holds a draft
    /// (overlay updates slow down while the person types).
    private func driveScreenModel(_ session: WorkspaceSessionScreen) -> Bool {
        let screen = session.screen
        reportViewport(to: screen)
        screen.frame()
        return applyScrollCommand(of: screen)
    }

    /// Reports the last draw to `screen`, then applies a scroll command the report made it
    /// publish. Returns whether the scroll moved.
    private func reportAndApply(to screen: WorkspaceChatScreenModel<AnyClock>) -> Bool {
        reportViewport(to: screen)
        return applyScrollCommand(of: screen)
    }

    /// Applies the scroll command `screen` published since the last one applied, measured
    /// against the last draw (the one the model last saw). Returns whether the scroll moved.
    private func applyScrollCommand(of screen: WorkspaceChatScreenModel<AnyClock>) -> Bool {
        guard screen.scrollCommandSequence != reported?.sequence, app.timelineViewport != nil else {
            return false
        }
        reported?.sequence = screen.scrollCommandSequence
        let before = app.scroll
        apply(.sessionScrollCommanded(screen.scrollCommand))
        return app.scroll != before
    }

    /// Reports the last draw of the timeline to `screen` when it changed, or when the person
    /// scrolled (as a drag that ended where the view is now). Nothing is reported before the
    /// session's rows arrived, nor while a subagent thread is shown instead.
    private func reportViewport(to screen: WorkspaceChatScreenModel<AnyClock>) {
        let identity = ObjectIdentifier(screen)
        if reported?.screen != identity {
            reported = (identity, nil, screen.scrollCommandSequence)
            apply(.timelineScrollReported)
        }
        guard screen.threadViewer == nil, screen.host.appliedLoads > 0, let measured = app.timelineViewport else {
            return
        }
        func viewport(dragging: Bool) -> WorkspaceChatViewport {
            WorkspaceViewportReport.viewport(
                measured, isComposerOpen: app.focus == .composer && !app.composer.isEmpty, isDragging: dragging,
                reduceMotion: app.reduceMotion)
        }
        if app.timelineWasScrolled {
            apply(.timelineScrollReported)
            screen.updateViewport(viewport(dragging: true))
            reported?.viewport = nil
        }
        let now = viewport(dragging: false)
        if reported?.viewport != now {
            screen.updateViewport(now)
            reported?.viewport = now
        }
    }

    /// Whether the open screen needs frames (a workspace session, the breathing screen).
    public var needsFrames: Bool {
        workspace != nil || app.overlay == .breathing || app.overlay == .meditation || isCountingDown
    }

    /// How often frames come while ``needsFrames``: 30 a second for the breathing scene, else
    /// ten (the screen model's frames).
    public var frameTickInterval: Duration {
        app.overlay == .breathing || app.overlay == .meditation ? .seconds(1) / 30 : .milliseconds(100)
    }

    /// Whether motion is reduced (from `SYBIL_REDUCE_MOTION`).
    public func setReduceMotion(_ reduce: Bool) {
        apply(.reduceMotionChanged(reduce))
    }

    /// Waits for the work started so far (sends, opens) to finish.
    public func settle() async {
        while let task = tasks.values.first {
            await task.value
        }
    }

    /// Stops the running reply and all work, closes the open screens and the room.
    public func close() async {
        chat?.stop()
        for task in tasks.values { task.cancel() }
        // The room's loads are its own work, which cancelling the task that started it does not
        // end: stopping it does, so a server that does not answer does not hold the quit.
        await services.agent?.stop()
        await settle()
        await workspace?.close()
        workspace = nil
        await services.search.close()
        await services.agent?.close()
    }

    // MARK: Commands

    private func perform(_ command: AppCommand) {
        switch command {
        case .redraw:
            redrawAsked = true
        case .quit:
            wantsToQuit = true
        case .suspend:
            wantsToSuspend = true
        case .returnedToForeground:
            // Seed 004 warms up; seed 000 marks the workspace chats stale (the scheduler
            // reloads the selected one); seed 003 replays the room from its last merged cursor.
            services.chats.returnedToForeground()
            services.workspaces?.setAppActive(true)
            if !services.notOffered.contains(.agentRoom) { services.agent?.room.foreground() }
        case .wentToBackground:
            services.workspaces?.setAppActive(false)
        case .switchedTab:
            services.chats.switchedTab()
        case .logMood(let score):
            guard let records = services.records else {
                deliver(.noticed("The records could not be opened on this device."))
                return
            }
            run { [weak self] in
                do {
                    _ = try await records.logMood(score: score, note: nil)
                } catch {
                    self?.deliver(.moodNotSaved("\(error)"))
                }
            }
        case .saveMeditation(let seconds):
            guard let records = services.records else {
                deliver(.meditationNotSaved(seconds: seconds, reason: "the records could not be opened on this device"))
                return
            }
            run { [weak self] in
                do {
                    _ = try await records.logMeditation(seconds: seconds)
                    self?.deliver(.meditationSaved(seconds: seconds))
                } catch {
                    self?.deliver(.meditationNotSaved(seconds: seconds, reason: "\(error)"))
                }
            }
        case .askWeb(let query):
            guard let ask = services.askWeb else {
                deliver(.webSearchFailed("Web search is not available here."))
                return
            }
            run { [weak self] in
                let outcome = await ask(query)
                switch outcome {
                case .saved(let search):
                    self?.deliver(.webSearchSaved(id: search.id))
                case .notSaved(_, let reason):
                    self?.deliver(.webSearchFailed("Answered, but it could not be saved: \(reason)"))
                case .failed(.notOffered):
                    self?.deliver(.webSearchFailed("Web search is not offered by this server."))
                case .failed(let error):
                    self?.deliver(.webSearchFailed("The web search failed: \(error.description)"))
                }
            }
        case .nextModel:
            chooseModel(nil)
        case .syncRecords:
            guard let records = services.records else { return }
            run { _ = await records.syncNow() }
        case .openThread:
            guard let screen = workspace?.screen,
                let row = screen.displayRows.rows.last(where: { $0.subagentThreadId != nil })
            else {
                deliver(.noticed("No subagent thread here to open."))
                return
            }
            screen.openThread(fromRow: row.id)
        case .closeThread:
            workspace?.screen.closeThread()
        case .refresh:
            // Seed 000's explicit refresh: the open session's newest window reloads.
            if app.sidebar.current.isSession { services.workspaces?.hosts?.handleForSelected(.explicitRefresh) }
            perform(.refreshSidebar)
        case .refreshSidebar:
            let chats = services.chats
            run { [weak self] in
                await chats.refresh()
                await self?.loadWorkspaces()
            }
        case .send(let text):
            send(text)
        case .stopReply:
            if case .quickQuestion = app.overlay {
                services.quickQuestion?.stop()
            } else {
                chat?.stop()
            }
        case .showQuickQuestion:
            guard let quick = services.quickQuestion else {
                deliver(.quickQuestionUnavailable)
                return
            }
            quick.open()
            apply(.quickQuestionOpened(draft: quick.draft, Self.published(quick)))
        case .askQuickQuestion(let text):
            guard let quick = services.quickQuestion else { return }
            quick.open()
            quick.type(text)
            quick.submit()
        case .hideQuickQuestion(let draft):
            guard let quick = services.quickQuestion else { return }
            quick.open()
            quick.type(draft)
            quick.hide()
        case .openQuickQuestionInChat:
            guard let quick = services.quickQuestion else { return }
            run { [weak self] in
                guard let self else { return }
                guard let id = await quick.openInChat() else {
                    self.deliver(
                        .quickQuestionNotOpened(
                            quick.lastError ?? "Ask a question first; then it can be opened in a chat."))
                    return
                }
                await self.services.chats.refresh()
                self.open(.chat(id))
            }
        case .open(let destination):
            open(destination)
        case .search(let query):
            let search = services.search
            if !searchStarted {
                searchStarted = true
                search.start()
            }
            search.query = query
        case .submitSearch:
            services.search.submit()
        case .retry:
            retry()
        case .discard:
            if app.sidebar.current.isSession {
                takeBackUndelivered()
            } else if let place = chatPlaceOnScreen {
                takeBackUnsent(in: place)
            } else {
                discardRefused()
            }
        case .removeFailedAttachment:
            guard app.sidebar.current == .agent, let draft = services.agent?.draft else { return }
            guard let item = draft.items.last(where: \.needsAttention) else {
                deliver(.noticed("No attachment in the draft failed."))
                return
            }
            run { [weak self] in
                await draft.remove(item.id)
                self?.deliver(.failedAttachmentRemoved(fileName: item.fileName))
            }
        case .previewAttachment(let attachment):
            previewAttachment(attachment)
        case .exportAttachment(let attachment):
            exportAttachment(attachment)
        case .resendAll:
            guard app.sidebar.current == .agent, let agent = services.agent else { return }
            run { [weak self] in
                do { _ = try await agent.resendAll() } catch { self?.deliver(.resendFailed("\(error)")) }
            }
        case .loadOlder:
            switch app.sidebar.current {
            case .agent:
                if let room = services.agent?.room, room.hasMoreBefore, !room.isLoadingOlder {
                    run { await room.loadOlder() }
                }
            case .session:
                _ = workspace?.screen.loadOlder()
            default:
                break
            }
        }
    }

    private func send(_ text: String) {
        switch app.sidebar.current {
        case .webSearch:
            deliver(.notSent(draft: text, reason: "A saved web search takes no messages; open a chat to send it."))
        case .agent:
            guard let agent = services.agent else { return }
            if let command = ComposerAttachments.draftCommand(text) {
                draftCommand(command, draft: agent.draft, text: text)
                return
            }
            run { [weak self] in
                let (caption, paths) = ComposerAttachments.split(text)
                if !paths.isEmpty,
                    let (problem, filesInDraft) = await Self.attach(paths, to: agent.draft, in: agent.room)
                {
                    // When files went into the draft (a failed one too, shown with its state),
                    // only the caption goes back: sending it again does not attach them twice.
                    self?.giveBackUnsent(filesInDraft ? caption : text, reason: problem, of: agent)
                    return
                }
                await agent.updateCaption(caption)
                if await agent.send() == nil {
                    self?.giveBackUnsent(text, reason: agent.notice ?? "The message was not queued.", of: agent)
                } else {
                    self?.deliver(.agentMessageQueued(notice: agent.notice))
                }
            }
        case .session:
            guard let workspace else { return }
            run { [weak self] in
                let (caption, paths) = ComposerAttachments.split(text)
                if !paths.isEmpty, let problem = await workspace.attach(paths) {
                    self?.giveBackUnsent(text, reason: problem, of: workspace)
                    return
                }
                if await !workspace.send(caption) {
                    _ = workspace.takeReturnedText()
                    self?.giveBackUnsent(
                        text, reason: workspace.composer.notice ?? "The message was not sent.", of: workspace)
                } else {
                    self?.giveBackReturnedText(of: workspace)
                }
            }
        case .newChat, .chat:
            if let name = Self.modelCommand(text) {
                chooseModel(name)
                return
            }
            if let command = ComposerAttachments.draftCommand(text) {
                apply(.chatDraftCommandEntered(command, text: text))
                saveChatAttachments()
                return
            }
            sendInChat(text)
        }
    }

    /// A message in an ordinary chat: its `/attach PATH` lines stage files inline (seed 003,
    /// read off the main actor; a file that cannot be attached is refused with a sentence and
    /// the text is given back, to be sent without it), and the rest is sent with every staged
    /// file, which the message then unstages. Only `/attach` lines: the files wait for the
    /// next message.
    private func sendInChat(_ text: String) {
        let (caption, paths) = ComposerAttachments.split(text)
        // The chat it was written in: a text not sent is kept there, wherever the person went.
        let writtenIn = chat
        let destination = app.sidebar.current
        run { [weak self] in
            guard let self else { return }
            var place: ChatPlace? {
                writtenIn.map { ChatPlace(conversationId: $0.conversationId) } ?? Self.chatPlace(destination)
            }
            if !paths.isEmpty {
                let staged = self.app.chatAttachments.map(\.attachment)
                let (read, refusals) = await Self.readForStaging(
                    paths, with: staged, textLimit: ChatAttachmentFile.defaultTextLimit)
                // Cancelled (the app is closing): the files read so far are dropped.
                guard !Task.isCancelled else { return }
                self.deliver(.chatAttachmentsRead(read, refusals: refusals))
                if !read.isEmpty { self.saveChatAttachments() }
                if !refusals.isEmpty || caption.isEmpty {
                    // The notice names each file refused.
                    self.giveBackUnsent(caption, reason: refusals.joined(separator: " "), in: place, saysWhy: false)
                    return
                }
            }
            let message = paths.isEmpty ? text : caption
            guard let chat = self.chat else {
                self.giveBackUnsent(message, reason: "The chat is still opening; send again.", in: place)
                return
            }
            // Left for another chat while the files were read: the message is not sent there.
            guard writtenIn.map({ $0 === chat }) ?? (self.app.sidebar.current == destination) else {
                self.giveBackUnsent(message, reason: "The chat was left before it was sent; send it again.", in: place)
                return
            }
            let sending = self.app.chatAttachments
            if await chat.send(message, attachments: sending.map(\.attachment)) {
                self.deliver(.chatAttachmentsSent(Set(sending.map(\.id))))
                if !sending.isEmpty { self.saveChatAttachments() }
            } else {
                self.giveBackUnsent(
                    message, reason: chat.lastError ?? "Wait for the reply to finish, then send again.", in: place)
            }
        }
    }

    /// Where an ordinary chat's messages are kept for `destination` (`nil`: it is no chat).
    static func chatPlace(_ destination: AppDestination) -> ChatPlace? {
        switch destination {
        case .newChat: .newChat
        case .chat(let id): .conversation(id)
        case .agent, .session, .webSearch: nil
        }
    }

    /// Where the ordinary chat on screen keeps its messages: its conversation once saved (the
    /// sidebar may still say "New chat" for a moment), else what the sidebar shows; `nil` when
    /// no chat is on screen.
    private var chatPlaceOnScreen: ChatPlace? {
        guard let shown = Self.chatPlace(app.sidebar.current) else { return nil }
        return chat.map { ChatPlace(conversationId: $0.conversationId) } ?? shown
    }

    /// A chat's message that was not sent goes back into the composer when that is blank
    /// (`saysWhy: false`: the notice already says why); when the person typed a draft
    /// meanwhile or left the chat, the chat list keeps it with that chat, where d takes it
    /// back.
    private func giveBackUnsent(_ text: String, reason: String, in place: ChatPlace?, saysWhy: Bool = true) {
        let chats = services.chats
        guard let place else {
            deliver(.notSent(draft: text, reason: saysWhy ? reason : nil))
            return
        }
        let onScreen = chatPlaceOnScreen == place
        let handOver = chats.giveBackUnsent(
            text, reason: reason, in: place, toComposerHolding: onScreen ? app.composer.text : nil)
        if handOver.restored != nil {
            deliver(.notSent(draft: text, reason: saysWhy ? reason : nil))
            return
        }
        let stillKept = chats.undelivered(in: place).count
        let title =
            switch place {
            case .newChat: "the new chat"
            case .conversation(let id): chats.conversations.first { $0.id == id }?.title ?? "another chat"
            }
        let sentence =
            onScreen
            ? UndeliveredNotice.chat.handedOver(handOver, stillKept: stillKept)
            : UndeliveredNotice.chat.handedOver(handOver, inLeft: title, stillKept: stillKept)
        if let sentence { deliver(.noticed(sentence)) }
    }

    /// d in an ordinary chat's timeline: the oldest message kept there goes back into the
    /// composer when the composer can take it (never over a draft).
    private func takeBackUnsent(in place: ChatPlace) {
        let chats = services.chats
        let outcome = chats.takeBackOldest(in: place, toComposerHolding: app.composer.text)
        let sentence = UndeliveredNotice.chat.takenBack(outcome, stillKept: chats.undelivered(in: place).count)
        if case .restored(let message) = outcome {
            deliver(.notSent(draft: message.text, reason: sentence))
        } else {
            deliver(.noticed(sentence))
        }
    }

    /// Saves the ordinary chat's staged files as they are now, so a relaunch finds them (seed
    /// 003); a failed save is said in the notice, and the files stay staged.
    private func saveChatAttachments() {
        guard let store = services.chatAttachmentDrafts else { return }
        let staged = app.chatAttachments.map(\.attachment)
        run { [weak self] in
            if let problem = await store.save(staged) { self?.deliver(.chatAttachmentsNotSaved(problem)) }
        }
    }

    /// Reads the files at `paths` to join `staged`, in order, off the main actor in the
    /// caller's task: those that can go with one message, and a sentence for each that cannot.
    /// Cancelling the caller stops it before the next file (the files not read are left out).
    @concurrent
    nonisolated static func readForStaging(_ paths: [String], with staged: [ChatAttachment], textLimit: Int) async
        -> ([ChatAttachment], [String])
    {
        var read: [ChatAttachment] = []
        var refusals: [String] = []
        for path in paths {
            guard !Task.isCancelled else { break }
            switch ChatAttachmentFile.stage(path, with: staged + read, textLimit: textLimit) {
            case .success(let attachment): read.append(attachment)
            case .failure(let refusal): refusals.append(refusal.message)
            }
        }
        return (read, refusals)
    }

    /// The argument of `/model` or `/model NAME` typed in a chat's composer ("" for the bare
    /// command), or `nil` when `text` is no such command.
    static func modelCommand(_ text: String) -> String? {
        let line = text.drop(while: \.isWhitespace)
        guard line.hasPrefix("/model"), line.dropFirst(6).first?.isWhitespace ?? true else { return nil }
        let argument = line.dropFirst(6).drop(while: \.isWhitespace)
        return String(argument.reversed().drop(while: \.isWhitespace).reversed())
    }

    /// `/model` (`""`: the server's list, the chat's model marked), `/model NAME` (picks it for
    /// the open chat) or F6 (`nil`: the next listed model); the answer is the notice.
    private func chooseModel(_ name: String?) {
        switch app.sidebar.current {
        case .newChat, .chat: break
        case .agent, .session, .webSearch:
            deliver(
                .noticed("A model is chosen for an ordinary chat; open one (the Agent room and sessions keep theirs)."))
            return
        }
        guard let picker = services.models, let chat else {
            deliver(.noticed("The server's models cannot be listed here."))
            return
        }
        deliver(.noticed(name == "" ? "Listing the server's models…" : "Choosing the model…"))
        run { [weak self] in
            switch name {
            case ""?:
                await picker.loadModels()
                self?.deliver(.modelsListed(picker.listing(current: chat.model)))
            case let name?: self?.deliver(.modelChosen(await picker.choose(name, for: chat)))
            case nil: self?.deliver(.modelChosen(await picker.chooseNext(for: chat)))
            }
        }
    }

    /// `/attachments`, `/detach N`, `/detach all` in the Agent room: the draft changes (or is
    /// listed) and nothing is sent; the answer is the notice. Resolved as an ordinary chat's
    /// are, by ``ComposerAttachments/resolve(_:count:empty:)``.
    private func draftCommand(_ command: ComposerAttachments.DraftCommand, draft: AgentAttachmentDraft, text: String) {
        let items = draft.items
        switch ComposerAttachments.resolve(command, count: items.count, empty: "The draft has no attachments.") {
        case .list:
            deliver(.noticed(ComposerAttachments.listing(items)))
        case .refuse(let sentence):
            if case .invalid = command {
                deliver(.notSent(draft: text, reason: sentence))
            } else {
                deliver(.noticed(sentence))
            }
        case .removeAll:
            run { [weak self] in
                await draft.removeAllItems()
                self?.deliver(.draftAttachmentsRemoved(count: items.count))
            }
        case .remove(let index):
            let item = items[index]
            run { [weak self] in
                await draft.remove(item.id)
                self?.deliver(.draftAttachmentRemoved(fileName: item.fileName))
            }
        }
    }

    /// Downloads `attachment`'s verified original and sends its preview text back.
    private func previewAttachment(_ attachment: AgentAttachment) {
        let uploadId = attachment.uploadId
        guard let downloads = services.attachmentDownloads else {
            deliver(.attachmentPreviewFailed(uploadId: uploadId, reason: "attachments cannot be downloaded here"))
            return
        }
        run { [weak self] in
            do {
                let preview = try await downloads.preview(of: attachment)
                let text = AgentAttachmentPreviewText.render(preview, of: attachment, saveHint: "e exports it")
                self?.deliver(.attachmentPreviewed(uploadId: uploadId, text: text))
            } catch {
                self?.deliver(.attachmentPreviewFailed(uploadId: uploadId, reason: "\(error)"))
            }
        }
    }

    /// Downloads `attachment`'s verified original and saves it to a new file in the export
    /// folder (`name (2).ext` when the name is taken, never over a file).
    private func exportAttachment(_ attachment: AgentAttachment) {
        let fileName = attachment.fileName
        guard let downloads = services.attachmentDownloads, let directory = services.exportDirectory else {
            deliver(.attachmentExportFailed(fileName: fileName, reason: "attachments cannot be exported here"))
            return
        }
        run { [weak self] in
            let bytes: [UInt8]
            do {
                bytes = try await downloads.original(of: attachment)
            } catch {
                self?.deliver(.attachmentExportFailed(fileName: fileName, reason: "\(error)"))
                return
            }
            // The file is written off the main actor; nothing is written once the app is closing.
            guard let saved = await Self.saveOriginal(bytes, named: fileName, in: directory) else { return }
            switch saved {
            case .success(let path): self?.deliver(.attachmentExported(fileName: fileName, path: path))
            case .failure(let failure):
                self?.deliver(.attachmentExportFailed(fileName: fileName, reason: failure.description))
            }
        }
    }

    /// Saves an attachment's original to a new file in `directory`, off the main actor in the
    /// caller's task; `nil` when the caller was cancelled first (nothing is written).
    @concurrent
    nonisolated static func saveOriginal(_ bytes: [UInt8], named fileName: String, in directory: String) async
        -> Result<String, AgentOriginalFile.Failure>?
    {
        guard !Task.isCancelled else { return nil }
        return Result { () throws(AgentOriginalFile.Failure) -> String in
            try AgentOriginalFile.save(bytes, named: fileName, in: directory)
        }
    }

    /// d in the Agent room: discards the message refused for good (the newest one when several
    /// are), whose text goes back into the composer when that is empty once the discard is
    /// saved, and is kept at the end of the room otherwise; with none refused, the oldest
    /// message kept goes back into an empty composer.
    private func discardRefused() {
        guard app.sidebar.current == .agent, let agent = services.agent else { return }
        let failed = agent.pending.filter { $0.state == .failed }
        guard let entry = failed.last(where: { $0.failure?.kind == .refused }) else {
            if !agent.undelivered.isEmpty {
                let outcome = agent.takeBackOldest(toComposerHolding: app.composer.text)
                let sentence = UndeliveredNotice.agentRoom.takenBack(outcome, stillKept: agent.undelivered.count)
                if case .restored(let message) = outcome {
                    deliver(.notSent(draft: message.text, reason: sentence))
                } else {
                    deliver(.noticed(sentence))
                }
                return
            }
            deliver(
                .noticed(
                    failed.isEmpty
                        ? "No message failed." : "Retry can still help the failed message: r retries it, R resends all."
                ))
            return
        }
        run { [weak self] in
            do {
                let handOver = try await agent.discard(entry.requestId) { [weak self] in
                    guard let self, self.app.sidebar.current == .agent else { return nil }
                    return self.app.composer.text
                }
                let sentence = UndeliveredNotice.agentRoom.discarded(
                    entry.label, handOver, stillKept: agent.undelivered.count)
                if let restored = handOver.restored {
                    self?.deliver(.notSent(draft: restored.text, reason: sentence))
                } else {
                    self?.deliver(.noticed(sentence))
                }
            } catch {
                self?.deliver(.discardFailed("\(error)"))
            }
        }
    }

    /// An Agent room message that was never queued goes back into the composer when that is
    /// blank; when the person typed a draft meanwhile (an upload can take long) or left the
    /// room, the room's composer keeps it with the messages not delivered, where d takes it
    /// back.
    private func giveBackUnsent(_ text: String, reason: String, of agent: AgentRoomComposer) {
        let onScreen = app.sidebar.current == .agent
        let handOver = agent.giveBackUnsent(text, reason: reason, toComposerHolding: onScreen ? app.composer.text : nil)
        if handOver.restored != nil {
            deliver(.notSent(draft: text, reason: reason))
            return
        }
        let stillKept = agent.undelivered.count
        let sentence =
            onScreen
            ? UndeliveredNotice.agentRoom.handedOver(handOver, stillKept: stillKept)
            : UndeliveredNotice.agentRoom.handedOver(handOver, inLeft: "the Agent room", stillKept: stillKept)
        if let sentence { deliver(.noticed(sentence)) }
    }

    /// Selects the files at `paths` in the Agent room's draft and waits until each is
    /// uploaded; returns why not when the draft takes no file now (the room still loading, the
    /// draft full, …) or one failed, and whether any of them is in the draft.
    private static func attach(_ paths: [String], to draft: AgentAttachmentDraft, in room: AgentRoomModel) async
        -> (problem: String, filesInDraft: Bool)?
    {
        if let refusal = AgentDraftAvailability(room: room, draft: draft).refusal { return (refusal, false) }
        let before = Set(draft.items.map(\.id))
        await draft.select(
            paths.map { path in
                AgentAttachmentSource.file(
                    atPath: path, kind: .file, fileName: String(path.split(separator: "/").last ?? Substring(path)))
            })
        let added = draft.items.map(\.id).filter { !before.contains($0) }
        if added.count < paths.count {
            return (draft.notes.last ?? "A file could not be attached; nothing was sent.", !added.isEmpty)
        }
        func settled() -> Bool {
            added.allSatisfy { id in
                guard let item = draft.item(id) else { return true }
                return item.isReady || item.failure != nil || item.state == .interrupted
            }
        }
        while !settled() {
            guard !Task.isCancelled else { return ("Attaching was cancelled.", true) }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                withObservationTracking {
                    _ = settled()
                } onChange: {
                    continuation.resume()
                }
            }
        }
        for id in added {
            if let item = draft.item(id), !item.isReady, let number = draft.items.firstIndex(of: item) {
                return (
                    "\(ComposerAttachments.describe(item)); nothing was sent. /detach \(number + 1) removes it (or x); then send.",
                    true
                )
            }
        }
        return nil
    }

    /// Seed 000: of the messages that left the outbox undelivered, the first goes back into
    /// the composer when the composer can take it (the session's composer decides); every other
    /// one stays kept at the end of the session's timeline, where d takes it back. When the
    /// person has left the session since, the composer belongs to another one and is left
    /// alone: the notice names the session.
    private func giveBackReturnedText(of workspace: WorkspaceSessionScreen) {
        let onScreen = workspace === self.workspace
        let handOver = workspace.composer.handOverReturned(toComposerHolding: onScreen ? app.composer.text : nil)
        let stillKept = workspace.composer.undelivered.count
        if onScreen, let restored = handOver.restored {
            deliver(
                .notSent(
                    draft: restored.text, reason: WorkspaceUndeliveredNotice.handedOver(handOver, stillKept: stillKept))
            )
        } else if onScreen, let sentence = WorkspaceUndeliveredNotice.handedOver(handOver, stillKept: stillKept) {
            deliver(.noticed(sentence))
        } else if !onScreen,
            let sentence = WorkspaceUndeliveredNotice.handedOver(
                handOver, inLeftSession: workspace.title, stillKept: stillKept)
        {
            deliver(.noticed(sentence))
        }
    }

    /// A session's message that was not sent at all goes back into the composer when that is
    /// blank; when the person typed a draft meanwhile (an upload can take long) or left the
    /// session, the session's composer keeps it with the messages not delivered.
    private func giveBackUnsent(_ text: String, reason: String, of workspace: WorkspaceSessionScreen) {
        let onScreen = workspace === self.workspace
        let handOver = workspace.composer.giveBackUnsent(
            text, reason: reason, toComposerHolding: onScreen ? app.composer.text : nil)
        if handOver.restored != nil {
            deliver(.notSent(draft: text, reason: reason))
            return
        }
        let stillKept = workspace.composer.undelivered.count
        let sentence =
            onScreen
            ? WorkspaceUndeliveredNotice.handedOver(handOver, stillKept: stillKept)
            : WorkspaceUndeliveredNotice.handedOver(handOver, inLeftSession: workspace.title, stillKept: stillKept)
        if let sentence { deliver(.noticed(sentence)) }
    }

    /// d in a session's timeline: the oldest message kept undelivered goes back into the
    /// composer when the composer can take it (never over a draft).
    private func takeBackUndelivered() {
        guard let workspace else { return }
        let outcome = workspace.composer.takeBackOldest(toComposerHolding: app.composer.text)
        let sentence = WorkspaceUndeliveredNotice.takenBack(outcome, stillKept: workspace.composer.undelivered.count)
        if case .restored(let message) = outcome {
            deliver(.notSent(draft: message.text, reason: sentence))
        } else {
            deliver(.noticed(sentence))
        }
    }

    private func retry() {
        switch app.sidebar.current {
        case .webSearch:
            return
        case .agent:
            guard let agent = services.agent else { return }
            guard let failed = agent.pending.first(where: { $0.state == .failed }) else {
                // No message failed: r retries the draft's failed or interrupted attachment.
                if let item = agent.draft.items.first(where: \.needsAttention) { agent.draft.retry(item.id) }
                return
            }
            run { [weak self] in
                do { try await agent.retry(failed.requestId) } catch { self?.deliver(.retryFailed("\(error)")) }
            }
        case .session:
            guard let workspace else { return }
            run { [weak self] in
                await workspace.composer.retryUnaccepted()
                self?.giveBackReturnedText(of: workspace)
            }
        case .newChat, .chat:
            guard let chat, chat.canRetry else { return }
            run { await chat.retry() }
        }
    }

    private func open(_ destination: AppDestination) {
        let previous = app.sidebar.current
        if destination == previous, destination != .newChat {
            // Seed 000: choosing the open session again reloads it (a new target generation).
            if case .session(let key) = destination, let hosts = services.workspaces?.hosts {
                hosts.selectDuringRender(key)
                run { hosts.commitPendingSelection() }
            }
            return
        }
        services.agent?.room.isSelected = destination == .agent
        if case .session = previous, let closing = workspace {
            workspace = nil
            run { await closing.close() }
        }
        switch destination {
        case .newChat:
            chat = nil
            apply(.opened(.newChat, title: "New chat"))
            run { [weak self] in
                guard let self else { return }
                self.chat = await self.services.chats.newChat()
            }
        case .chat(let id):
            let title = services.chats.conversations.first { $0.id == id }?.title ?? "Chat"
            chat = nil
            apply(.opened(destination, title: title))
            run { [weak self] in
                guard let self else { return }
                self.chat = await self.services.chats.open(id)
            }
        case .agent:
            chat = nil
            apply(.opened(.agent, title: "Sybil Agent"))
        case .webSearch(let id):
            chat = nil
            apply(.opened(destination, title: "Web search"))
            guard let read = services.webSearch else {
                deliver(.webSearchOpened(id: id, nil))
                return
            }
            run { [weak self] in
                let screen = await read(id)
                self?.deliver(.webSearchOpened(id: id, screen))
            }
        case .session(let key):
            chat = nil
            let title = sessionTitle(key)
            apply(.opened(destination, title: title))
            guard let workspaces = services.workspaces else { return }
            // Seed 000's deferred selection: the choice is only recorded while the key is
            // handled (nothing is published mid-update); the opening task commits it.
            workspaces.hosts?.selectDuringRender(key)
            run { [weak self] in
                workspaces.hosts?.commitPendingSelection()
                let screen = await workspaces.open(key, title)
                guard let self, self.app.sidebar.current == destination else {
                    await screen.close()
                    return
                }
                // Choices handled before their openings ran (keys that came together) may have
                // opened this session already: that screen is replaced, and closed.
                if let replaced = self.workspace, replaced !== screen {
                    self.run { await replaced.close() }
                }
                self.workspace = screen
                // A message an earlier run left in the outbox may be rejected as it is resent.
                await screen.restored()
                self.giveBackReturnedText(of: screen)
            }
        }
    }

    private func sessionTitle(_ key: WorkspaceChatKey) -> String {
        for desktop in app.sidebar.workspaces ?? [] where desktop.id == key.desktopId {
            for project in desktop.projects where project.id == key.projectId {
                if let session = project.sessions.first(where: { $0.id == key.sessionId }) {
                    return "\(desktop.name) › \(project.name) › \(session.title)"
                }
            }
        }
        return key.description
    }

    /// Starts `work` as a task this controller owns.
    private func run(_ work: @escaping @MainActor () async -> Void) {
        let id = nextTask
        nextTask += 1
        tasks[id] = Task { @MainActor [weak self] in
            await work()
            self?.tasks[id] = nil
            self?.finishedWork += 1
        }
    }

    // MARK: State

    /// Sends what the models publish to the app's update function (``AppMessage/published(_:)``).
    /// Everything this reads is what a redraw depends on: the runner calls it inside
    /// `withObservationTracking`.
    public func sync() {
        // What the controller's own tasks changed (a chat opened, a send given back).
        _ = finishedWork
        nameNewSaveProblems()
        for command in app.update(.published(published())) { perform(command) }
    }

    /// A list of kept texts that could not be saved (a change the sender or a hand-over made
    /// in the background) is named on the status line once, when its problem appears.
    private func nameNewSaveProblems() {
        let chats = services.chats.undeliveredMessages.saveProblem
        let sessions = services.workspaces?.undelivered?.saveProblem
        defer { namedSaveProblems = (chats, sessions) }
        if let chats, chats != namedSaveProblems.chats {
            apply(.noticed(UndeliveredNotice.chat.notSaved(chats)))
        }
        if let sessions, sessions != namedSaveProblems.sessions {
            apply(.noticed(UndeliveredNotice.workspace.notSaved(sessions)))
        }
    }

    /// What the models publish now, for the screen and overlay that are open.
    private func published() -> PublishedState {
        var state = PublishedState()
        state.isThreadOpen = app.sidebar.current.isSession && workspace?.screen.threadViewer != nil
        state.chats = services.chats.conversations.map { Sidebar.Chat(id: $0.id, title: $0.title) }
        state.agentUnread = services.agent?.room.badgeCount ?? 0
        state.notOffered = services.notOffered
        state.savedChat = chat?.conversation.map { Sidebar.Chat(id: $0.id, title: $0.title) }
        // The header names the open chat's own model.
        let chatModel: String? =
            switch app.sidebar.current {
            case .newChat, .chat: chat?.model
            case .agent, .session, .webSearch: nil
            }
        state.header = chatModel.flatMap { model in services.chatHeader.map { $0(model) } } ?? services.header
        switch app.sidebar.current {
        case .webSearch:
            // Its items came with ``AppMessage/webSearchOpened``; nothing runs here.
            state.screenStatus = "A saved web search: the query, the answer and its sources"
        case .newChat, .chat:
            let kept = chatPlaceOnScreen.map { services.chats.undelivered(in: $0) } ?? []
            if let chat {
                state.items =
                    chatItems.items(chat.messages, lastError: chat.lastError)
                    + ChatTimelineAdapter.toolCallItems(chat.replyToolCalls)
                    + UndeliveredRows.items(kept, wording: .chat)
                state.isReplyRunning = chat.isTyping
                state.screenStatus =
                    chat.isTyping ? "Sybil is typing… Ctrl+C stops" : chat.isLoading ? "Loading the chat…" : nil
            } else {
                state.items = UndeliveredRows.items(kept, wording: .chat)
            }
        case .agent:
            if let agent = services.agent {
                let cards = agent.room.rows.flatMap { $0.message?.attachments ?? [] }
                state.attachmentCards = cards
                state.items = AgentTimelineAdapter.items(
                    rows: agent.room.rows, pending: agent.pending, activity: agent.room.activity,
                    roomError: agent.room.roomError, unreadMarker: agent.room.unreadMarkerMessageId,
                    selectedAttachment: TerminalApp.keptSelection(app.selectedAttachment, among: cards),
                    undelivered: agent.undelivered)
                // Every draft item with its state, numbered as /detach takes them, while any
                // is not uploaded yet.
                let items = agent.draft.items
                state.screenStatus =
                    items.allSatisfy(\.isReady)
                    ? agentStatus(agent) : "Draft: " + ComposerAttachments.listing(items) + " · /detach N removes"
            } else {
                state.items = [
                    TimelineItem(id: "no-agent", role: .system, body: "This server has no Agent room.")
                ]
            }
        case .session:
            if let workspace, let thread = workspace.screen.threadViewer {
                state.items = WorkspaceTimelineAdapter.items(
                    DisplayRows(timeline: thread.timeline.rows, activeRunId: nil))
                state.screenStatus =
                    thread.lastLoadError.map { "The thread could not be loaded: \($0)" }
                    ?? (thread.isLoading ? "Loading the thread…" : "Subagent thread \(thread.threadId) · Esc goes back")
            } else if let workspace {
                state.items = workspace.items
                state.screenStatus = workspace.status
                state.timelineMeasuredLines = WorkspaceViewportReport.measuredLines
                if workspace.screen.isCovered { state.timelineCover = "Loading the session…" }
            } else {
                state.items = []
                state.screenStatus = "Opening the session…"
            }
        }
        state.search = publishedSearch()
        if case .records = app.overlay {
            if let records = services.records {
                state.records = RecordsOverlay.showing(records)
            } else {
                var empty = RecordsOverlay()
                empty.status = "The records could not be opened on this device."
                state.records = empty
            }
        }
        if case .quickQuestion = app.overlay, let quick = services.quickQuestion {
            state.quickQuestion = Self.published(quick)
        }
        return state
    }

    /// The Quick Question model's state as its overlay shows it.
    private static func published(_ quick: QuickQuestionModel) -> PublishedState.QuickQuestion {
        let status: String? =
            switch quick.answerState {
            case .stopped?: "Stopped"
            case .failed(let reason)?: "Failed: \(reason)"
            default: quick.lastError
            }
        return PublishedState.QuickQuestion(
            model: quick.choice.model, question: quick.question, answer: quick.answer,
            isAnswering: quick.isAnswering, status: quick.lastError ?? status)
    }

    private func agentStatus(_ agent: AgentRoomComposer) -> String? {
        if let notice = agent.notice { return notice }
        if let hold = agent.holdReason { return hold }
        switch agent.room.connection {
        case .idle: return "Not connected"
        case .connecting: return "Connecting to the room…"
        case .connected: return nil
        case .reconnecting(let reason, let retryIn):
            let left = reconnectCountdown.secondsLeft(reason: reason, retryIn: retryIn, now: now)
            return "Reconnecting in \(left) s (\(TerminalText.oneLine(reason)))"
        }
    }

    /// The search's hits while its overlay is open, one per destination.
    private func publishedSearch() -> PublishedState.Search? {
        guard case .search = app.overlay else { return nil }
        let search = services.search
        let hits: [SearchOverlay.Hit]
        if search.isShowingRecent {
            hits = search.recent.map { SearchOverlay.Hit(destination: .chat($0.id), title: $0.title) }
        } else {
            hits = search.results.compactMap { hit in
                let id: String
                switch hit.source {
                case .title(let conversationId): id = conversationId
                case .message(let conversationId, _): id = conversationId
                case .webSearch(let searchId):
                    // A saved web search: marked as one, opened with its query, answer and sources.
                    let excerpt = search.excerpt(hit, width: 60)
                    return SearchOverlay.Hit(
                        destination: .webSearch(searchId), title: "Web search: " + hit.title, excerpt: excerpt.runs)
                }
                let excerpt = search.excerpt(hit, width: 60)
                return SearchOverlay.Hit(destination: .chat(id), title: hit.title, excerpt: excerpt.runs)
            }
        }
        var seen: Set<AppDestination> = []
        let unique = hits.filter { seen.insert($0.destination).inserted }
        let notice =
            search.errorMessage ?? (search.isSearching ? "Searching…" : search.notice)
        let pending = search.isSearching || (!search.isShowingRecent && search.settledQuery != search.query)
        return PublishedState.Search(hits: unique, notice: notice, pending: pending)
    }
}
