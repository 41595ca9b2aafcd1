import SybilClient
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 003 "per-item error and removal" in the terminal app: the Agent room composer's
/// `/attachments`, `/detach N`, `/detach all`, the timeline's remove (x) and discard (d) keys,
/// and the key list naming them.
@Suite("Agent room draft commands and keys")
struct AgentDraftKeysTests {
    @Test func draftCommandsAreReadFromOneLineAndEverythingElseIsAMessage() {
        #expect(ComposerAttachments.draftCommand("/attachments") == .list)
        #expect(ComposerAttachments.draftCommand("  /detach all\n") == .detachAll)
        #expect(ComposerAttachments.draftCommand("/detach 2") == .detach(2))
        #expect(ComposerAttachments.draftCommand("/detach   1 ") == .detach(1))
        for invalid in ["/detach", "/detach 0", "/detach -1", "/detach two", "/detach 99999999999999999999"] {
            guard case .invalid = ComposerAttachments.draftCommand(invalid) else {
                Issue.record("\(invalid) must be refused with a sentence")
                continue
            }
        }
        #expect(ComposerAttachments.draftCommand("/detached feelings") == nil)
        #expect(ComposerAttachments.draftCommand("hello\n/detach 1") == nil, "a message with more lines is sent")
        #expect(ComposerAttachments.draftCommand("/attach a.png") == nil)
    }

    @Test func everyDraftItemHasAVisibleNumberedState() {
        let failure = AgentAttachmentFailure.storage("disk full")
        let items = [
            AgentAttachmentItem(
                id: "u1", kind: .file, fileName: "bad.png", mimeType: "image/png", size: nil, state: .failed(failure)),
            AgentAttachmentItem(
                id: "u2", kind: .file, fileName: "a.txt", mimeType: "text/plain", size: 5,
                state: .ready(
                    AgentAttachment(uploadId: "u2", fileName: "a.txt", mimeType: "text/plain", size: 5, sha256: ""))),
            AgentAttachmentItem(
                id: "u3", kind: .file, fileName: "b.txt", mimeType: "text/plain", size: 5, state: .interrupted),
        ]
        let listing = ComposerAttachments.listing(items)
        #expect(listing.hasPrefix("1 bad.png failed: "))
        #expect(listing.contains(" · 2 a.txt uploaded · 3 b.txt interrupted (r retries, x removes)"))
        #expect(ComposerAttachments.listing([]) == "The draft has no attachments.")
    }

    @Test func theTimelineKeysRemoveAFailedAttachmentAndDiscardARefusedMessage() {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 60, rows: 16))
        app.focus = .timeline
        #expect(app.handle(.key(KeyEvent(.character("x"))), now: .zero) == [.removeFailedAttachment])
        #expect(app.handle(.key(KeyEvent(.character("d"))), now: .zero) == [.discard])
    }

    @Test func theKeyListNamesTheNewKeysAndCommands() {
        let keys = HelpOverlay.bindings.map(\.keys)
        for expected in ["/attachments", "/detach N, /detach all", "d", "x"] {
            #expect(keys.contains(expected), "F1 lists \(expected)")
        }
    }

    @Test func aFinalRefusalInTheTimelineNamesTheDiscardKey() {
        let entry = AgentOutboxEntry(
            requestId: "r1", text: "too big", createdAt: 0, state: .failed,
            failure: AgentOutboxFailure(kind: .refused, message: "Too large.", status: 413))
        let (status, _) = AgentTimelineAdapter.describe(entry)
        #expect(status.contains("Sending it again cannot succeed; Discard it (press d)"))
        #expect(!status.contains("r retries"), "retry cannot help a final refusal")
    }
}
