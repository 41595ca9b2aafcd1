import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// What an effect came to, through the app's one update function: each ``AppMessage``
/// changes the pure value as the person sees it (the notice, the composer, the sidebar, the
/// staged files), with no task, clock or model involved.
@Suite("Terminal app update")
struct TerminalAppUpdateTests {
    private func file(_ name: String) -> ChatAttachment {
        ChatAttachment(name: name, mimeType: "text/plain; charset=utf-8", kind: .text, bytes: Array("hi".utf8))
    }

    @Test func aNoticeIsShownAndNothingElseChanges() {
        var app = TerminalApp.withOneChat()
        let (composer, sidebar) = (app.composer, app.sidebar)
        #expect(app.update(.noticed("No subagent thread here to open.")) == [])
        #expect(app.notice == "No subagent thread here to open.")
        #expect(app.composer == composer)
        #expect(app.sidebar == sidebar)
        #expect(app.overlay == nil)
    }

    @Test func textNotSentGoesBackToAnEmptyComposerWithWhy() {
        var app = TerminalApp.withOneChat()
        #expect(app.update(.notSent(draft: "hello", reason: "The chat is still opening; send again.")) == [])
        #expect(app.composer.text == "hello")
        #expect(app.composer.cursor == 5)
        #expect(app.notice == "The chat is still opening; send again.")
    }

    @Test func textNotSentNeverReplacesWhatThePersonTypedSince() {
        var app = TerminalApp.withOneChat()
        #expect(app.handle(.paste("typed since"), now: .zero) == [])
        _ = app.update(.notSent(draft: "hello", reason: "The message was not sent."))
        #expect(app.composer.text == "typed since")
        #expect(app.notice == "The message was not sent.")
    }

    @Test func textNotSentWithoutAReasonKeepsTheNoticeThatSaidIt() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.noticed("Not attached: gone.txt. Return still sends the text."))
        _ = app.update(.notSent(draft: "caption", reason: nil))
        #expect(app.composer.text == "caption")
        #expect(app.notice == "Not attached: gone.txt. Return still sends the text.")
    }

    @Test func workspacesListedReplaceTheSidebarsAndClearAProblem() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.workspacesNotListed("The desktop is offline."))
        #expect(app.sidebar.workspacesProblem == "The desktop is offline.")
        #expect(app.sidebar.workspaces == nil)
        let desktop = SidebarDesktop(id: "d1", name: "Studio", online: true)
        _ = app.update(.workspacesListed([desktop]))
        #expect(app.sidebar.workspaces == [desktop])
        #expect(app.sidebar.workspacesProblem == nil)
        _ = app.update(.workspacesNotListed("Timed out."))
        #expect(app.sidebar.workspaces == [desktop], "a failed listing keeps the last one")
        #expect(app.sidebar.workspacesProblem == "Timed out.")
    }

    @Test(arguments: [
        (ChatModelPicker.Outcome.chosen("qwen3"), "This chat now asks for qwen3."),
        (.unchanged("qwen3"), "This chat already asks for qwen3."),
        (
            .unverified("qwen3", reason: "timed out"),
            "This chat now asks for qwen3 (the server's list could not be read: timed out)."
        ),
        (.refused("The server does not list gpt-9."), "The server does not list gpt-9."),
    ])
    func aModelChoiceIsSaidInTheNotice(outcome: ChatModelPicker.Outcome, sentence: String) {
        var app = TerminalApp.withOneChat()
        #expect(app.update(.modelChosen(outcome)) == [])
        #expect(app.notice == sentence)
    }

    @Test func theModelsListedAreTheNotice() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.modelsListed("Models: [llama3.2], qwen3"))
        #expect(app.notice == "Models: [llama3.2], qwen3")
    }

    @Test func quickQuestionUnavailableClosesItsPanel() {
        var app = TerminalApp.withOneChat()
        #expect(app.handle(.press(.function(2)), now: .zero) == [.showQuickQuestion])
        #expect(app.overlay == .quickQuestion(QuickQuestionOverlay()))
        #expect(app.update(.quickQuestionUnavailable) == [])
        #expect(app.overlay == nil)
        #expect(app.notice == "Quick Question is not available here.")
    }

    @Test func aQueuedMessageSaysWhatTheOutboxSaidWithTheKeysThatHelp() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.noticed("earlier"))
        _ = app.update(.agentMessageQueued(notice: nil))
        #expect(app.notice == "earlier", "nothing to say: the notice stays")
        _ = app.update(.agentMessageQueued(notice: "a.txt failed to upload."))
        #expect(app.notice == "a.txt failed to upload. (x removes it, r retries it)")
    }

    @Test(arguments: [
        (AppMessage.moodNotSaved("disk full"), "The mood was not saved: disk full"),
        (.retryFailed("offline"), "Could not retry: offline"),
        (.resendFailed("offline"), "Could not resend: offline"),
        (.discardFailed("gone"), "Could not discard: gone"),
        (.quickQuestionNotOpened("Ask a question first."), "Ask a question first."),
        (
            .failedAttachmentRemoved(fileName: "a.txt"),
            "Removed a.txt from the draft; an uploaded original stays on the server."
        ),
        (.draftAttachmentRemoved(fileName: "a.txt"), "Removed a.txt; an uploaded original stays on the server."),
        (.draftAttachmentsRemoved(count: 3), "Removed 3 attachment(s); uploaded originals stay on the server."),
        (.chatAttachmentsNotSaved("The drafts folder is read-only."), "The drafts folder is read-only."),
    ])
    func anOutcomeIsSaidInTheNotice(message: AppMessage, sentence: String) {
        var app = TerminalApp.withOneChat()
        let composer = app.composer
        #expect(app.update(message) == [])
        #expect(app.notice == sentence)
        #expect(app.composer == composer)
    }

    @Test func filesReadAreStagedAndTheOnesSentAreUnstaged() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.chatAttachmentsRead([file("a.txt"), file("b.txt")], refusals: []))
        #expect(app.chatAttachments.map(\.attachment.name) == ["a.txt", "b.txt"])
        let first = app.chatAttachments[0].id
        _ = app.update(.chatAttachmentsSent([first]))
        #expect(app.chatAttachments.map(\.attachment.name) == ["b.txt"])
        _ = app.update(.chatAttachmentsRead([], refusals: ["gone.txt does not exist."]))
        #expect(app.notice == "Not attached: gone.txt does not exist.. Return still sends the text.")
        #expect(app.chatAttachments.map(\.attachment.name) == ["b.txt"])
    }

    @Test func filesStagedBeforeARelaunchAreStagedAgain() {
        var app = TerminalApp.withOneChat()
        _ = app.update(.chatAttachmentsRestored([file("a.txt")], notes: []))
        #expect(app.chatAttachments.map(\.attachment.name) == ["a.txt"])
        #expect(app.notice == "1 file(s) staged before are still attached · /attachments lists them")
        _ = app.update(.chatAttachmentsRestored([], notes: ["b.txt changed since; it was unstaged."]))
        #expect(app.notice == "b.txt changed since; it was unstaged.")
    }
}
