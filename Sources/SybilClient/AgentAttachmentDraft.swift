import Observation
import SybilCore
import SybilWire

/// The Agent room composer's attachments and caption (SPEC §6.1, seed 003 "ROOT attachments").
///
/// - Items keep their selection order; each has its upload id from the injected generator,
///   the same on every retry.
/// - **One** preparation or upload runs at a time, in selection order. Preparation reads,
///   validates and converts (``AgentAttachmentPreparer``) and stages the bytes; the upload
///   sends the staged bytes with `AgentRoomAPI.upload` and checks the answer names the same
///   id, size and SHA-256.
/// - Failed work waits for ``retry(_:)``; nothing retries by itself. ``remove(_:)`` cancels the
///   item's local work and drops the reference; it never asks the server to delete anything.
/// - Only work under way holds a send (``AgentAttachmentItem/isInProgress``): a failed or
///   interrupted item is left out of the message and stays in the next draft, so it never
///   blocks text.
/// - Selection needs a v1 capability and attachments available (a 503
///   `open_proxy_unavailable` / close 4503 turns them off through
///   ``setAttachmentsAvailable(_:)``); existing items and descriptors are kept meanwhile.
///   Uploads also wait while the room is stopped (``suspend()`` / ``resume()``).
/// - Every change is saved in the manifest (``AgentAttachmentStorage``) before the work it
///   allows starts: a selection before it is prepared, a staged item before it is uploaded.
///   A storage failure blocks that step and sending, never discards the draft.
/// - Sending is a handoff: ``prepareHandoff()``, the outbox saves the message with the draft's
///   id, then ``completeHandoff(_:)``. After a crash in between, ``recoverHandoff(isInOutbox:)``
///   is the one call that finishes it.
@MainActor
@Observable
public final class AgentAttachmentDraft {
    /// The items in selection order.
    public internal(set) var items: [AgentAttachmentItem] = []
    /// The caption as typed.
    public internal(set) var caption = ""
    /// This draft's identity (a new one after each completed handoff).
    public internal(set) var draftId: String
    /// The attachment capability of the authenticated descriptor; `nil` keeps the room text-only.
    public private(set) var capability: AgentRoomDescriptor.Attachments?
    /// Whether the server can take attachments now (false after a 503 `open_proxy_unavailable`
    /// or a close 4503, until a reconnect finds them supported).
    public internal(set) var attachmentsAvailable = true
    /// Whether the room is stopped, so no upload starts.
    public private(set) var isSuspended = false
    /// Why the draft could not be saved, until a save succeeds; blocks sending.
    public internal(set) var storageProblem: String?
    /// Things a person should know: files not added, items dropped at relaunch.
    public internal(set) var notes: [String] = []
    /// Whether a handoff to the outbox is under way (the draft does not change meanwhile).
    public internal(set) var isHandingOff = false
    /// The item being prepared or uploaded, if any.
    public internal(set) var activeItemId: String?

    @ObservationIgnored let api: any AgentRoomAPI
    @ObservationIgnored let storage: any AgentAttachmentStorage
    @ObservationIgnored let ids: any IDGenerator
    /// What each item was picked from, while it may still need preparing.
    @ObservationIgnored var sources: [String: AgentAttachmentSource] = [:]
    /// Items whose prepared bytes are staged.
    @ObservationIgnored var stagedIds: Set<String> = []
    /// The stage of each item in the last manifest that reached the disk.
    @ObservationIgnored var savedStages: [String: AgentAttachmentManifest.Stage] = [:]
    /// The limits last advertised, used by preparation while the capability is away.
    @ObservationIgnored var lastLimits: AgentAttachmentLimits?
    /// The one running step.
    @ObservationIgnored var step: Step?
    @ObservationIgnored var restored = false
    @ObservationIgnored var isClosed = false

    /// The one preparation or upload running.
    struct Step {
        enum Kind { case prepare, upload }
        var itemId: String
        var kind: Kind
        var task: Task<Void, Never>
    }

    /// An empty draft; call ``restore()`` once at launch before anything else.
    public init(api: any AgentRoomAPI, storage: any AgentAttachmentStorage, ids: any IDGenerator) {
        self.api = api
        self.storage = storage
        self.ids = ids
        draftId = ids.makeID()
    }

    /// The advertised limits clamped to v1, or `nil` while text-only.
    public var limits: AgentAttachmentLimits? { capability?.limits.clamped() }

    /// Whether Files and Photos can be offered now.
    public var canSelect: Bool {
        guard let limits, attachmentsAvailable, !isHandingOff else { return false }
        return items.count < limits.maxFiles
    }

    /// Whether a message with `caption` can be sent: no item still being prepared or uploaded,
    /// and a caption or an uploaded attachment (an empty caption can send ready attachments),
    /// the draft saved, no handoff under way. Failed and interrupted items never hold a send:
    /// they are left out of the message and stay in the draft.
    public func canSend(caption: String) -> Bool {
        guard storageProblem == nil, !isHandingOff, !items.contains(where: \.isInProgress) else { return false }
        return items.contains(where: \.isReady) || !caption.allSatisfy(\.isWhitespace)
    }

    /// ``canSend(caption:)`` with the draft's own caption.
    public var canSend: Bool { canSend(caption: caption) }

    /// The item with `id`.
    public func item(_ id: String) -> AgentAttachmentItem? { items.first { $0.id == id } }

    // MARK: - Gating

    /// Sets the capability from the latest authenticated descriptor (`nil`: text-only).
    /// Existing items and descriptors are kept either way.
    public func setCapability(_ capability: AgentRoomDescriptor.Attachments?) {
        self.capability = capability
        if let limits { lastLimits = limits }
        pump()
    }

    /// Records whether the server can take attachments now (the room model calls this on a 503
    /// `open_proxy_unavailable`, a close 4503, and when a reconnect finds them supported).
    public func setAttachmentsAvailable(_ available: Bool) {
        attachmentsAvailable = available
        pump()
    }

    /// The room stopped: an upload in flight is cancelled (its item goes back to staged) and
    /// none starts until ``resume()``.
    public func suspend() {
        isSuspended = true
        if let step, step.kind == .upload { step.task.cancel() }
    }

    /// The room runs again: staged items upload in turn.
    public func resume() {
        isSuspended = false
        pump()
    }

    // MARK: - Editing

    /// Adds picked files or photos in order, as many as the file limit allows (the rest are
    /// named in ``notes``). The selection is saved before anything is prepared; if it cannot be
    /// saved nothing is added.
    public func select(_ picked: [AgentAttachmentSource]) async {
        guard !picked.isEmpty else { return }
        guard let limits, attachmentsAvailable, !isHandingOff else {
            notes.append("Attachments are not available right now; nothing was added.")
            return
        }
        let room = max(0, limits.maxFiles - items.count)
        for source in picked.dropFirst(room) {
            let name = AgentAttachmentPreparer.displayName(source.fileName)
            notes.append(AgentAttachmentRejection.tooManyFiles(fileName: name, limit: limits.maxFiles).description)
        }
        var added: [String] = []
        for source in picked.prefix(room) {
            let id = ids.makeID()
            precondition(AgentAttachmentManifest.isValidUploadId(id), "upload ids are 1…64 letters, digits or '-'")
            let name = AgentAttachmentPreparer.displayName(source.fileName)
            items.append(
                AgentAttachmentItem(
                    id: id, kind: source.kind, fileName: name,
                    mimeType: source.mimeType ?? AgentAttachmentPreparer.mimeType(forFileName: name),
                    size: source.byteCount, state: .preparing))
            sources[id] = source
            added.append(id)
        }
        guard !added.isEmpty else { return }
        if await persist() {
            pump()
        } else {
            items.removeAll { added.contains($0.id) }
            for id in added { sources[id] = nil }
            notes.append("The selection could not be saved on this device, so it was not added; try again.")
        }
    }

    /// Removes an item: its preparation or upload is cancelled and its staged bytes deleted.
    /// An uploaded original stays on the server (no call is made).
    public func remove(_ id: String) async {
        guard !isHandingOff, let index = items.firstIndex(where: { $0.id == id }) else { return }
        items.remove(at: index)
        sources[id] = nil
        if let step, step.itemId == id { step.task.cancel() }
        // The staged file goes only once no saved manifest names the item any more.
        if await persist(), stagedIds.remove(id) != nil {
            try? await storage.removeStaged(uploadId: id)
        }
        pump()
    }

    /// Starts a failed or interrupted item again with the same upload id: from its staged bytes
    /// when they exist, else by preparing it again from what was picked.
    public func retry(_ id: String) {
        guard !isHandingOff, let index = items.firstIndex(where: { $0.id == id }) else { return }
        switch items[index].state {
        case .failed, .interrupted: break
        default: return
        }
        if stagedIds.contains(id) {
            items[index].state = .staged
        } else if sources[id] != nil {
            items[index].state = .preparing
        } else {
            return
        }
        pump()
    }

    /// Sets the caption and saves it.
    public func updateCaption(_ text: String) async {
        guard !isHandingOff else { return }
        caption = text
        await persist()
    }

    /// Removes every item (each as ``remove(_:)`` does: local work cancelled, staged bytes
    /// deleted, server originals kept); the caption stays.
    public func removeAllItems() async {
        for item in items { await remove(item.id) }
    }

    /// Starts over: every item removed and the caption cleared, saved.
    public func clear() async {
        guard !isHandingOff else { return }
        await removeAllItems()
        await updateCaption("")
    }

    /// Tries to save the draft again after a storage failure; whether it worked.
    @discardableResult
    public func retrySaving() async -> Bool {
        let saved = await persist()
        if saved { pump() }
        return saved
    }

    /// Removes the notes once shown.
    public func clearNotes() {
        notes.removeAll()
    }

    /// Stops: the running step is cancelled and awaited, and nothing starts afterwards
    /// (shutdown; the draft stays saved).
    public func close() async {
        isClosed = true
        guard let step else { return }
        step.task.cancel()
        await step.task.value
    }
}
