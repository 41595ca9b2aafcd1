import SybilWire

/// What the app asks its runner to do after a key, a click or a paste: the effects the pure
/// ``TerminalApp`` cannot perform itself (sending, stopping, opening, searching, quitting).
public enum AppCommand: Sendable, Hashable {
    /// Draw the screen again: a frame tick moved the breathing scene or the meditation timer.
    case redraw
    /// Send the composer's text on the open screen (the composer was cleared; give the text
    /// back with ``TerminalApp/restoreDraft(_:)`` when it was not sent).
    case send(String)
    /// Stop the reply or turn running on the open screen.
    case stopReply
    /// Open a destination in the main area.
    case open(AppDestination)
    /// The search field changed: search for this query.
    case search(String)
    /// Return in the search field before its results arrived: search at once.
    case submitSearch
    /// Retry the failed message on the open screen.
    case retry
    /// Send every failed message of the open screen again.
    case resendAll
    /// Discard the message the open screen's outbox refused for good (its text goes back to
    /// the composer).
    case discard
    /// Remove the draft's last failed or interrupted attachment (its local work cancelled).
    case removeFailedAttachment
    /// Download this attachment's verified original and show its preview (the overlay opened);
    /// the text comes back as an ``AppMessage``.
    case previewAttachment(AgentAttachment)
    /// Download this attachment's verified original and save it to a new file in the export
    /// folder (never over an existing file); where it went comes back as an ``AppMessage``.
    case exportAttachment(AgentAttachment)
    /// The reader is near the top of the timeline: load an older page if there is one.
    case loadOlder
    /// Show the Quick Question panel (the overlay opened; copy in the model's draft and answer).
    case showQuickQuestion
    /// Ask this Quick Question.
    case askQuickQuestion(String)
    /// The Quick Question panel was hidden with this draft (kept, with the answer).
    case hideQuickQuestion(String)
    /// Save the Quick Question and its answer as a chat and open it.
    case openQuickQuestionInChat
    /// Open the newest subagent thread of the open workspace session in its own view.
    case openThread
    /// Close the subagent thread's view, back to the session.
    case closeThread
    /// Log a mood with this score (1–5) in the records.
    case logMood(Int)
    /// Save a meditation record of this many whole seconds (the session ended, on time or
    /// early); the outcome comes back as an ``AppMessage``.
    case saveMeditation(seconds: Int)
    /// Send this question to the server's web-search route and save the answer; the outcome
    /// comes back as an ``AppMessage``.
    case askWeb(String)
    /// Pick the next model of the server's list for the open chat (F6).
    case nextModel
    /// Sync the records now.
    case syncRecords
    /// The sidebar got focus: list the chats and the workspaces again.
    case refreshSidebar
    /// Ctrl+R: the open workspace session reloads its newest window (an explicit refresh) and
    /// the sidebar lists again.
    case refresh
    /// The app came back to the foreground (the terminal reported focus-in, or the process
    /// continued after Ctrl+Z): warm the backend up, mark the workspace chats stale, replay the
    /// Agent room from its last merged cursor.
    case returnedToForeground
    /// The app went to the background (the terminal reported focus-out, or it was suspended).
    case wentToBackground
    /// The person moved to another of the sidebar's sections (a tab switch): warm up.
    case switchedTab
    /// Put the terminal back and stop the process until it is continued (Ctrl+Z: raw mode
    /// delivers it as a key).
    case suspend
    /// Leave the app.
    case quit
}
