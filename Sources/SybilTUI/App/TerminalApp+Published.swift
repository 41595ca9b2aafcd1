import SybilClient
import SybilWire

extension TerminalApp {
    /// The attachment card still selected among `cards`: `selected` while a card of that
    /// upload is there, else none (the card went with its message).
    static func keptSelection(_ selected: String?, among cards: [AgentAttachment]) -> String? {
        guard let selected, cards.contains(where: { $0.uploadId == selected }) else { return nil }
        return selected
    }

    /// Applies what the view models published: the sidebar, the header, the open screen's
    /// entries and status, and the open overlay's model state. A new chat that was saved
    /// becomes that chat; opening or closing a subagent thread starts its timeline at the
    /// bottom. Returns the command a search overlay asks for when Return was pressed before
    /// its hits arrived.
    mutating func updatePublished(_ state: PublishedState) -> [AppCommand] {
        if isThreadOpen != state.isThreadOpen {
            isThreadOpen = state.isThreadOpen
            scroll = TimelineScroll()
        }
        sidebar.chats = state.chats
        sidebar.agentUnread = state.agentUnread
        sidebar.notOffered = state.notOffered
        if sidebar.current == .newChat, let saved = state.savedChat {
            // The new chat was saved with its first message: it is now that chat.
            sidebar.current = .chat(saved.id)
            sidebar.selection = .chat(saved.id)
            title = saved.title
        }
        header = state.header
        timelineMeasuredLines = state.timelineMeasuredLines
        timelineCover = state.timelineCover
        if let cards = state.attachmentCards {
            attachmentCards = cards
            selectedAttachment = Self.keptSelection(selectedAttachment, among: cards)
        }
        if let published = state.items { items = published }
        isReplyRunning = state.isReplyRunning
        screenStatus = state.screenStatus
        var commands: [AppCommand] = []
        if let search = state.search,
            let open = showSearchResults(search.hits, notice: search.notice, pending: search.pending)
        {
            commands.append(open)
        }
        if let records = state.records { showRecords(records) }
        if let quick = state.quickQuestion { showQuickQuestion(quick, draft: nil) }
        return commands
    }

    /// Copies the Quick Question model's state into its overlay (ignored when it is closed);
    /// `draft` replaces the prompt only when asked (on opening).
    mutating func showQuickQuestion(_ quick: PublishedState.QuickQuestion, draft: String?) {
        showQuickQuestion(
            draft: draft, model: quick.model, question: quick.question, answer: quick.answer,
            isAnswering: quick.isAnswering, status: quick.status)
    }

    /// Applies a session screen model's scroll command against the last draw (none before the
    /// first draw).
    mutating func applySessionScroll(_ command: ScrollCommand) {
        guard let measured = timelineViewport else { return }
        WorkspaceViewportReport.apply(command, to: &scroll, measured: measured)
    }
}
