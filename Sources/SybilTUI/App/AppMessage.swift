import SybilClient
import SybilWire

/// What happened outside the app's own keys: an effect the controller performed for an
/// ``AppCommand`` came to something, the view models published new state, the terminal
/// changed. Each goes through ``TerminalApp/update(_:)``, the one place that changes the app's
/// state for it (the controller and its tasks never write the state themselves;
/// ``TerminalAppController`` sends each message).
public enum AppMessage: Sendable, Hashable {
    /// The view models published this state (the controller's `sync()`).
    case published(PublishedState)
    /// A frame tick at `now` (the inputs' time line): the breathing scene or the meditation
    /// timer moves, and a meditation whose planned time is up ends.
    case frameTicked(now: Duration)
    /// The process continued after a suspend (SIGCONT): back in the foreground.
    case continuedAfterSuspend
    /// The process is being suspended from outside (SIGTSTP): in the background.
    case suspendedFromOutside
    /// The terminal window is now this size.
    case resized(TerminalSize)
    /// The theme to draw with changed (the terminal reported its background).
    case themeChanged(Theme)
    /// Reduced motion was turned on or off (`SYBIL_REDUCE_MOTION`).
    case reduceMotionChanged(Bool)
    /// The main area now shows `destination`, titled `title` (its entries follow when its
    /// model publishes them).
    case opened(AppDestination, title: String)
    /// `/attachments` or `/detach` was typed in an ordinary chat (`text` as typed): it works on
    /// the staged files, and nothing is sent.
    case chatDraftCommandEntered(ComposerAttachments.DraftCommand, text: String)
    /// The Quick Question panel opened on the model's kept draft and state.
    case quickQuestionOpened(draft: String, PublishedState.QuickQuestion)
    /// The open session's screen model asked for this scroll (measured against the last draw).
    case sessionScrollCommanded(ScrollCommand)
    /// The person's scrolling since the last report was told to the session's screen model.
    case timelineScrollReported
    /// A sentence for the status line about what happened (nothing else changes).
    case noticed(String)
    /// The composer's text was not sent: it goes back to an empty composer, with a sentence
    /// saying why (`nil`: the notice already says it).
    case notSent(draft: String, reason: String?)
    /// The workspaces were listed.
    case workspacesListed([SidebarDesktop])
    /// The workspaces could not be listed, with why.
    case workspacesNotListed(String)
    /// The server's models were listed, as this sentence (the chat's model marked).
    case modelsListed(String)
    /// A model was chosen (or not) for the open chat.
    case modelChosen(ChatModelPicker.Outcome)
    /// Quick Question is not available here: its panel closes.
    case quickQuestionUnavailable
    /// The Quick Question could not be opened in a chat, with why.
    case quickQuestionNotOpened(String)
    /// The mood was not saved, with why.
    case moodNotSaved(String)
    /// The meditation record of this many seconds was saved on this device.
    case meditationSaved(seconds: Int)
    /// The meditation record was not saved, with why.
    case meditationNotSaved(seconds: Int, reason: String)
    /// The saved web search `id` was read (`nil`: it is no longer saved).
    case webSearchOpened(id: String, WebSearchScreen?)
    /// The new web search was answered and saved with this id.
    case webSearchSaved(id: String)
    /// The new web search failed (or was answered but not saved), with a sentence saying why.
    case webSearchFailed(String)
    /// The Agent room queued the message; `notice` is what its outbox said about it (a file
    /// that failed, for instance).
    case agentMessageQueued(notice: String?)
    /// The failed message could not be retried, with why.
    case retryFailed(String)
    /// The failed messages could not be sent again, with why.
    case resendFailed(String)
    /// The refused message could not be discarded, with why.
    case discardFailed(String)
    /// The Agent room draft's failed attachment `fileName` was removed (x).
    case failedAttachmentRemoved(fileName: String)
    /// The Agent room draft's attachment `fileName` was removed (`/detach N`).
    case draftAttachmentRemoved(fileName: String)
    /// The Agent room draft's `count` attachments were removed (`/detach all`).
    case draftAttachmentsRemoved(count: Int)
    /// Files were read for an ordinary chat's next message: those that can go (staged now),
    /// and a sentence for each that cannot.
    case chatAttachmentsRead([ChatAttachment], refusals: [String])
    /// The ordinary chat's message went with the staged files of these ids (unstaged now).
    case chatAttachmentsSent(Set<Int>)
    /// The files staged before a relaunch were restored, with notes on those that were not.
    case chatAttachmentsRestored([ChatAttachment], notes: [String])
    /// The staged files could not be saved for a relaunch, with why (they stay staged).
    case chatAttachmentsNotSaved(String)
    /// The preview text of the attachment `uploadId` is ready.
    case attachmentPreviewed(uploadId: String, text: String)
    /// The attachment `uploadId` could not be previewed, with why.
    case attachmentPreviewFailed(uploadId: String, reason: String)
    /// The attachment `fileName` was saved at `path`.
    case attachmentExported(fileName: String, path: String)
    /// The attachment `fileName` was not saved, with why.
    case attachmentExportFailed(fileName: String, reason: String)
}
