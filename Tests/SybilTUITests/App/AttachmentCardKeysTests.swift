import SybilClient
import SybilTimeline
import SybilWire
import Testing

@testable import SybilTUI

/// Seed 003's attachment cards in the terminal app: in the Agent room's timeline `a` / `A`
/// select a card (marked in the timeline), `v` opens its preview (text never rendered, made safe
/// for the terminal, bounded, scrolling) and `e` exports its verified original; the results come
/// back through the app's update function, and F1 names the keys.
@Suite("Agent room attachment cards: select, preview, export")
struct AttachmentCardKeysTests {
    static let page = AgentAttachment(
        uploadId: "u-page", fileName: "page.html", mimeType: "text/html", size: 40,
        sha256: String(repeating: "a", count: 64))
    static let logo = AgentAttachment(
        uploadId: "u-logo", fileName: "logo.png", mimeType: "image/png", size: 900,
        sha256: String(repeating: "b", count: 64))

    /// The app with the Agent room open, the timeline focused and two cards (the logo newest).
    private func roomApp() -> TerminalApp {
        var app = TerminalApp(theme: .monochrome, size: TerminalSize(columns: 80, rows: 20))
        app.show(.agent, title: "Sybil Agent")
        app.focus = .timeline
        app.attachmentCards = [Self.page, Self.logo]
        return app
    }

    private func press(_ app: inout TerminalApp, _ character: Character) -> [AppCommand] {
        app.handle(.press(.character(character)), now: .zero)
    }

    @Test func aAndShiftASelectOlderAndNewerCardsAndVPreviewsTheSelectedOne() {
        var app = roomApp()
        #expect(press(&app, "a") == [])
        #expect(app.selectedAttachment == "u-logo", "the first press selects the newest card")
        #expect(press(&app, "a") == [])
        #expect(app.selectedAttachment == "u-page")
        #expect(press(&app, "a") == [])
        #expect(app.selectedAttachment == "u-logo", "past the oldest it wraps to the newest")
        #expect(press(&app, "A") == [])
        #expect(app.selectedAttachment == "u-page")
        #expect(app.notice?.contains("page.html") == true)
        #expect(press(&app, "v") == [.previewAttachment(Self.page)])
        guard case .attachmentPreview(let preview) = app.overlay else {
            Issue.record("v opens the preview overlay")
            return
        }
        #expect(preview.attachment == Self.page)
        #expect(preview.lines == nil, "the text comes when the original was downloaded")
        #expect(app.render(size: app.size).0.text.contains("Downloading the original…"))
    }

    @Test func withoutASelectionTheKeysTakeTheNewestCardAndOutsideTheRoomTheyDoNothing() {
        var app = roomApp()
        #expect(press(&app, "e") == [.exportAttachment(Self.logo)])
        #expect(app.selectedAttachment == "u-logo")
        #expect(app.notice == "Exporting logo.png…")
        var empty = roomApp()
        empty.attachmentCards = []
        #expect(press(&empty, "v") == [])
        #expect(empty.overlay == nil)
        #expect(empty.notice == "No attachment in the room yet.")
        var chat = roomApp()
        chat.show(.newChat, title: "New chat")
        #expect(press(&chat, "v") == [])
        #expect(chat.overlay == nil, "only the Agent room has attachment cards")
    }

    @Test func thePreviewShowsHTMLAsSafeTextScrollsAndCloses() {
        var app = roomApp()
        _ = press(&app, "a")
        _ = press(&app, "a")
        _ = press(&app, "v")
        let hostile =
            "<b>bold</b>\u{1B}]52;c;aGk=\u{07}\n<svg onload=\"x\">\t</svg>\n"
            + (1...60).map { "line \($0)" }.joined(separator: "\n")
        let text = AgentAttachmentPreviewText.render(
            .text(hostile, truncated: false), of: Self.page, saveHint: "e exports it")
        #expect(app.update(.attachmentPreviewed(uploadId: "u-other", text: "not this one")) == [])
        #expect(app.update(.attachmentPreviewed(uploadId: "u-page", text: text)) == [])
        let frame = app.render(size: app.size).0.text
        #expect(frame.contains("page.html · text/html · 40 bytes · shown as text, never rendered"))
        #expect(frame.contains("<b>bold</b>"), "HTML is shown as its text")
        #expect(frame.contains("<svg onload=\"x\">    </svg>"), "a tab becomes spaces")
        #expect(!frame.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "no escape reaches the screen")
        #expect(!frame.contains("line 60"), "the rest is below")
        _ = app.handle(.press(.end), now: .zero)
        #expect(app.render(size: app.size).0.text.contains("line 60"))
        _ = app.handle(.press(.home), now: .zero)
        #expect(app.render(size: app.size).0.text.contains("<b>bold</b>"))
        #expect(app.handle(.press(.character("e")), now: .zero) == [.exportAttachment(Self.page)])
        _ = app.handle(.press(.escape), now: .zero)
        #expect(app.overlay == nil)
        #expect(app.focus == .timeline)
    }

    @Test func thePreviewKeepsAtMostItsBoundOfLines() {
        var preview = AttachmentPreviewOverlay(attachment: Self.page)
        preview.show(String(repeating: "x\n", count: AttachmentPreviewOverlay.maxLines * 3))
        let lines = preview.lines ?? []
        #expect(lines.count == AttachmentPreviewOverlay.maxLines + 1)
        #expect(lines.last?.hasPrefix("… (more lines") == true)
    }

    @Test func aFailedPreviewAndExportsSayWhatHappened() {
        var app = roomApp()
        _ = press(&app, "v")
        _ = app.update(.attachmentPreviewFailed(uploadId: "u-logo", reason: "integrity: SHA-256 mismatch"))
        #expect(app.render(size: app.size).0.text.contains("No preview: integrity: SHA-256 mismatch"))
        _ = app.handle(.press(.escape), now: .zero)
        _ = app.update(.attachmentExported(fileName: "logo.png", path: "/home/me/logo (2).png"))
        #expect(app.notice == "Saved logo.png (verified) to /home/me/logo (2).png")
        _ = app.update(.attachmentExportFailed(fileName: "logo.png", reason: "cannot write '/x' (Permission denied)"))
        #expect(app.notice == "Could not export logo.png: cannot write '/x' (Permission denied)")
    }

    @Test func theSelectedCardIsMarkedInTheTimeline() throws {
        let message = AgentRoomMessage(
            messageId: "m1", cursor: try #require(AgentCursor("c1")), role: .user, visibility: .public,
            text: "two files", createdAt: 1_800_000_000_000, attachments: [Self.page, Self.logo])
        let items = AgentTimelineAdapter.items(
            rows: [.message(message)], pending: [], activity: .idle, selectedAttachment: "u-logo")
        let body = items.last?.body ?? ""
        #expect(body.contains("\n📎 page.html (text/html, 40 bytes)"))
        #expect(body.contains("\n▸ 📎 logo.png (image/png, 900 bytes) · v previews, e exports"))
        let plain = AgentTimelineAdapter.items(rows: [.message(message)], pending: [], activity: .idle)
        #expect(plain.last?.revision != items.last?.revision, "a new selection redraws the card")
    }

    @Test func theKeyListNamesTheCardKeys() {
        let keys = HelpOverlay.bindings.map(\.keys)
        for expected in ["a / A", "v", "e"] {
            #expect(keys.contains(expected), "F1 lists \(expected)")
        }
    }
}
