import SybilClient
import SybilCore
import SybilWire

/// An open workspace session: its host (mounted through the host cache), its screen model,
/// its composer joined to the outbox, and whatever follows its live events. The command line
/// builds one over the live desktop client; the app draws
/// ``items`` and sends through the composer.
@MainActor
public final class WorkspaceSessionScreen {
    /// The session.
    public let key: WorkspaceChatKey
    /// The title shown above the timeline.
    public let title: String
    /// The screen model (display rows, older pages, frames), on the clock the app was given.
    public let screen: WorkspaceChatScreenModel<AnyClock>
    /// The composer joined to the outbox.
    public let composer: WorkspaceChatComposer
    /// What stops the live feed and parks the host.
    private let onClose: @MainActor () async -> Void
    /// The composer's ``WorkspaceChatComposer/restore()`` started with the screen, if one was.
    private let restoring: Task<Void, Never>?
    private var isClosed = false

    /// A session screen; `onClose` stops what follows it (the live feed) and parks the host.
    /// `restoring` is the composer's restore, when the opener started one (``restored()``
    /// waits for it; closing the screen cancels it).
    public init(
        key: WorkspaceChatKey, title: String, screen: WorkspaceChatScreenModel<AnyClock>,
        composer: WorkspaceChatComposer, restoring: Task<Void, Never>? = nil,
        onClose: @escaping @MainActor () async -> Void
    ) {
        self.key = key
        self.title = title
        self.screen = screen
        self.composer = composer
        self.restoring = restoring
        self.onClose = onClose
    }

    /// Returns once the composer's restore (the resend of what an earlier run left in the
    /// outbox) has ended; at once when none was started. Cancelling the waiting task cancels
    /// the restore (as closing the screen does): the entries stay in the outbox.
    public func restored() async {
        guard let restoring else { return }
        await withTaskCancellationHandler {
            await restoring.value
        } onCancel: {
            restoring.cancel()
        }
    }

    /// The timeline entries: display rows as the screen model decided them, then messages
    /// history does not carry yet, then those kept undelivered.
    public var items: [TimelineItem] {
        WorkspaceTimelineAdapter.items(
            screen.displayRows, deliveries: composer.deliveries, undelivered: composer.undelivered)
    }

    /// A line for the status bar: uploads in progress, a load error, a notice of the
    /// composer, loading, a running turn, or older history read for sent messages.
    public var status: String? {
        let uploading = composer.attachments.filter { $0.uploadId == nil && $0.failure == nil }
        if !uploading.isEmpty {
            return "Attaching " + uploading.map(ComposerAttachments.describe).joined(separator: ", ")
        }
        if let notice = composer.notice { return TerminalText.oneLine(notice) }
        if let error = screen.host.lastLoadError { return "Could not load the session: \(error)" }
        if screen.host.appliedLoads == 0 { return "Loading the session…" }
        if screen.displayRows.pinnedStatus != nil { return "The desktop is running a turn; /steer TEXT joins it" }
        if screen.host.isLookingBack { return "Looking for sent messages in older history…" }
        return nil
    }

    /// The prefix that sends a message into the running turn instead of starting a new one.
    public static let steerPrefix = "/steer "

    /// Sends `text` as a new turn, or, when it starts with ``steerPrefix``, the rest of it into
    /// the running turn; returns whether it was taken (else the draft goes back).
    public func send(_ text: String) async -> Bool {
        let steer = text.hasPrefix(Self.steerPrefix)
        composer.draft = steer ? String(text.dropFirst(Self.steerPrefix.count)) : text
        return await composer.send(steer: steer) != nil
    }

    /// The text the composer gave back into its own draft since the last call (a message that
    /// could not be saved, or one a composer made with `restoresIntoDraft` put back), once;
    /// `nil` when there is none. The terminal app does not show that draft: it puts the text
    /// in its own composer instead. Messages that leave the outbox undelivered come back
    /// through ``WorkspaceChatComposer/handOverReturned(toComposerHolding:)``.
    public func takeReturnedText() -> String? {
        let text = composer.draft
        composer.draft = ""
        return text.isEmpty ? nil : text
    }

    /// Uploads the files at `paths` for the next message and waits until each has ended;
    /// returns why not when one could not be attached (the failed ones are removed, so the
    /// message can be sent again once the path is right).
    public func attach(_ paths: [String]) async -> String? {
        let drafts = paths.compactMap { composer.attach(AttachmentUploader.File(path: $0)) }
        guard drafts.count == paths.count else { return composer.notice ?? "The files could not be attached." }
        await composer.waitForUploads()
        let failed = drafts.filter { $0.uploadId == nil }
        guard !failed.isEmpty else { return nil }
        for draft in failed { composer.removeAttachment(id: draft.id) }
        return failed.map(ComposerAttachments.describe).joined(separator: "; ") + "; nothing was sent."
    }

    /// Closes the screen model, the composer and the feed (once).
    public func close() async {
        guard !isClosed else { return }
        isClosed = true
        restoring?.cancel()
        screen.close()
        await composer.close()
        await onClose()
    }
}
