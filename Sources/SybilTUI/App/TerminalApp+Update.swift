import SybilClient
import SybilCore

extension TerminalApp {
    /// Applies what happened outside the app's keys (an effect's result, what the view models
    /// published, a change of the terminal): the one way such a change reaches the app's
    /// state. Returns what to do next.
    public mutating func update(_ message: AppMessage) -> [AppCommand] {
        switch message {
        case .published(let state):
            return updatePublished(state)
        case .frameTicked(let now):
            let finished = finishMeditationIfDue(now: now)
            let moved = tick(now: now)
            return moved || !finished.isEmpty ? finished + [.redraw] : finished
        case .continuedAfterSuspend:
            return resumed()
        case .suspendedFromOutside:
            return suspended()
        case .resized(let newSize):
            resize(newSize)
        case .themeChanged(let newTheme):
            theme = newTheme
        case .reduceMotionChanged(let reduce):
            reduceMotion = reduce
        case .opened(let destination, let newTitle):
            show(destination, title: newTitle)
            items = []
        case .chatDraftCommandEntered(let command, let text):
            chatDraftCommand(command, text: text)
        case .quickQuestionOpened(let draft, let quick):
            showQuickQuestion(quick, draft: draft)
        case .sessionScrollCommanded(let command):
            applySessionScroll(command)
        case .timelineScrollReported:
            timelineWasScrolled = false
        case .noticed(let sentence):
            notice = sentence
        case .notSent(let draft, let reason):
            restoreDraft(draft)
            if let reason { notice = reason }
        case .workspacesListed(let desktops):
            sidebar.workspaces = desktops
            sidebar.workspacesProblem = nil
        case .workspacesNotListed(let problem):
            sidebar.workspacesProblem = problem
        case .modelsListed(let listing):
            notice = listing
        case .modelChosen(let outcome):
            notice =
                switch outcome {
                case .chosen(let model): "This chat now asks for \(model)."
                case .unchanged(let model): "This chat already asks for \(model)."
                case .unverified(let model, let reason):
                    "This chat now asks for \(model) (the server's list could not be read: \(reason))."
                case .refused(let sentence): sentence
                }
        case .quickQuestionUnavailable:
            overlay = nil
            notice = "Quick Question is not available here."
        case .quickQuestionNotOpened(let reason):
            notice = reason
        case .moodNotSaved(let reason):
            notice = "The mood was not saved: \(reason)"
        case .meditationSaved(let seconds):
            notice = "Saved a meditation of \(Self.spoken(seconds)) on this device (F4 lists the records)."
        case .meditationNotSaved(let seconds, let reason):
            notice = "The meditation of \(Self.spoken(seconds)) was not saved: \(TerminalText.oneLine(reason))"
        case .webSearchSaved, .webSearchFailed, .webSearchOpened:
            return updateWebSearch(message)
        case .agentMessageQueued(let queued):
            if let queued { notice = queued + " (x removes it, r retries it)" }
        case .retryFailed(let reason):
            notice = "Could not retry: \(reason)"
        case .resendFailed(let reason):
            notice = "Could not resend: \(reason)"
        case .discardFailed(let reason):
            notice = "Could not discard: \(reason)"
        case .failedAttachmentRemoved(let fileName):
            notice = "Removed \(fileName) from the draft; an uploaded original stays on the server."
        case .draftAttachmentRemoved(let fileName):
            notice = "Removed \(fileName); an uploaded original stays on the server."
        case .draftAttachmentsRemoved(let count):
            notice = "Removed \(count) attachment(s); uploaded originals stay on the server."
        case .chatAttachmentsRead(let read, let refusals):
            stageChatAttachments(read, refusals: refusals)
        case .chatAttachmentsSent(let ids):
            unstageChatAttachments(ids)
        case .chatAttachmentsRestored(let restored, let notes):
            restoreChatAttachments(restored, notes: notes)
        case .chatAttachmentsNotSaved(let problem):
            notice = problem
        case .attachmentPreviewed, .attachmentPreviewFailed, .attachmentExported, .attachmentExportFailed:
            updateAttachment(message)
        }
        return []
    }

    /// Applies a web search's outcome: saved (the prompt closes and the search opens), failed
    /// (said in the prompt, or the notice when it was closed) or read for the open screen.
    private mutating func updateWebSearch(_ message: AppMessage) -> [AppCommand] {
        switch message {
        case .webSearchSaved(let id):
            guard case .webSearch = overlay else { return [] }
            overlay = nil
            focus = .composer
            let before = sidebar.selection
            sidebar.selection = .webSearch(id)
            notice = "Saved the web search to history (Ctrl+K finds it)."
            return switchingTab(from: before, [.open(.webSearch(id))])
        case .webSearchFailed(let reason):
            guard case .webSearch(var prompt) = overlay else {
                notice = TerminalText.oneLine(reason)
                return []
            }
            prompt.isSearching = false
            prompt.status = TerminalText.oneLine(reason)
            overlay = .webSearch(prompt)
        case .webSearchOpened(let id, let screen):
            guard sidebar.current == .webSearch(id) else { return [] }
            if let screen {
                title = screen.title
                items = screen.items
            } else {
                items = [TimelineItem(id: "web-gone", role: .system, body: "This web search is no longer saved.")]
            }
        default:
            break
        }
        return []
    }
}
