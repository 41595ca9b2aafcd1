/// What an effect the runner performed for an ``AppCommand`` reports back: the result goes
/// through ``TerminalApp/update(_:)``, the one place that changes the app's state for it (a
/// task never writes the state itself).
public enum AppMessage: Sendable, Hashable {
    /// The meditation record of this many seconds was saved on this device.
    case meditationSaved(seconds: Int)
    /// The saved web search `id` was read (`nil`: it is no longer saved).
    case webSearchOpened(id: String, WebSearchScreen?)
    /// The new web search was answered and saved with this id.
    case webSearchSaved(id: String)
    /// The new web search failed (or was answered but not saved), with a sentence saying why.
    case webSearchFailed(String)
    /// The meditation record was not saved, with why.
    case meditationNotSaved(seconds: Int, reason: String)
    /// The preview text of the attachment `uploadId` is ready.
    case attachmentPreviewed(uploadId: String, text: String)
    /// The attachment `uploadId` could not be previewed, with why.
    case attachmentPreviewFailed(uploadId: String, reason: String)
    /// The attachment `fileName` was saved at `path`.
    case attachmentExported(fileName: String, path: String)
    /// The attachment `fileName` was not saved, with why.
    case attachmentExportFailed(fileName: String, reason: String)
}
