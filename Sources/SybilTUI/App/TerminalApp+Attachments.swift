import SybilCore
import SybilWire

/// The Agent room's attachment cards in the timeline (SPEC §6.1): `a` / `A` select an older
/// or newer card (the selected one is marked), `v` shows its preview in an overlay, `e`
/// exports its verified original to a file. With no card selected, `v` and `e` take the newest.
extension TerminalApp {
    /// The timeline's attachment keys in the Agent room; `nil` when `event` is not one of them.
    mutating func handleAttachmentKey(_ event: KeyEvent) -> [AppCommand]? {
        guard sidebar.current == .agent, event.modifiers.subtracting(.shift).isEmpty else { return nil }
        switch event.key {
        case .character("a"): return selectAttachment(olderBy: 1)
        case .character("A"): return selectAttachment(olderBy: -1)
        case .character("v"):
            guard let attachment = selectedOrNewestAttachment() else { return [] }
            overlay = .attachmentPreview(AttachmentPreviewOverlay(attachment: attachment))
            return [.previewAttachment(attachment)]
        case .character("e"):
            guard let attachment = selectedOrNewestAttachment() else { return [] }
            notice = "Exporting \(TerminalText.oneLine(attachment.fileName))…"
            return [.exportAttachment(attachment)]
        default: return nil
        }
    }

    /// Moves the selection `delta` cards towards older ones (negative: newer), wrapping; the
    /// first press selects the newest.
    private mutating func selectAttachment(olderBy delta: Int) -> [AppCommand] {
        guard !attachmentCards.isEmpty else {
            notice = "No attachment in the room yet."
            return []
        }
        let count = attachmentCards.count
        if let current = selectedAttachment, let index = attachmentCards.lastIndex(where: { $0.uploadId == current }) {
            selectedAttachment = attachmentCards[((index - delta) % count + count) % count].uploadId
        } else {
            selectedAttachment = attachmentCards[count - 1].uploadId
        }
        if let selected = attachmentCards.last(where: { $0.uploadId == selectedAttachment }) {
            notice = "Selected \(TerminalText.oneLine(selected.fileName)): v previews, e exports."
        }
        return []
    }

    /// The selected card's attachment, or the newest one (then selected); says so when there is none.
    private mutating func selectedOrNewestAttachment() -> AgentAttachment? {
        if let selectedAttachment, let card = attachmentCards.last(where: { $0.uploadId == selectedAttachment }) {
            return card
        }
        guard let newest = attachmentCards.last else {
            notice = "No attachment in the room yet."
            return nil
        }
        selectedAttachment = newest.uploadId
        return newest
    }

    /// The preview overlay's keys: scrolling, `e` exports, Esc, q, v or Return closes.
    mutating func handlePreviewKey(_ event: KeyEvent, _ current: AttachmentPreviewOverlay) -> [AppCommand] {
        var preview = current
        let rect = AttachmentPreviewOverlay.frame(size: size)
        let page = max(1, AttachmentPreviewOverlay.textRows(in: rect) - 1)
        switch event.key {
        case .escape, .enter, .character("q"), .character("v"):
            overlay = nil
            return []
        case .character("e"):
            notice = "Exporting \(TerminalText.oneLine(preview.attachment.fileName))…"
            return [.exportAttachment(preview.attachment)]
        case .up: preview.scroll(by: -1, in: rect)
        case .down: preview.scroll(by: 1, in: rect)
        case .pageUp: preview.scroll(by: -page, in: rect)
        case .pageDown, .character(" "): preview.scroll(by: page, in: rect)
        case .home: preview.scroll(by: Int.min / 2, in: rect)
        case .end: preview.scroll(by: Int.max / 2, in: rect)
        default: return []
        }
        overlay = .attachmentPreview(preview)
        return []
    }

    /// Applies an attachment effect's result (other messages are left alone).
    mutating func updateAttachment(_ message: AppMessage) {
        switch message {
        case .attachmentPreviewed(let uploadId, let text):
            if case .attachmentPreview(var preview) = overlay, preview.attachment.uploadId == uploadId {
                preview.show(text)
                overlay = .attachmentPreview(preview)
            }
        case .attachmentPreviewFailed(let uploadId, let reason):
            if case .attachmentPreview(var preview) = overlay, preview.attachment.uploadId == uploadId {
                preview.failure = reason
                overlay = .attachmentPreview(preview)
            } else {
                notice = "No preview: " + TerminalText.oneLine(reason)
            }
        case .attachmentExported(let fileName, let path):
            notice = "Saved \(TerminalText.oneLine(fileName)) (verified) to \(TerminalText.oneLine(path))"
        case .attachmentExportFailed(let fileName, let reason):
            notice = "Could not export \(TerminalText.oneLine(fileName)): \(TerminalText.oneLine(reason))"
        default:
            break
        }
    }
}
