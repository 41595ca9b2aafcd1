import SybilWire

/// Saving, restoring and handing the draft to the outbox.
extension AgentAttachmentDraft {
    /// The manifest of the draft as it is now.
    var manifest: AgentAttachmentManifest {
        AgentAttachmentManifest(
            draftId: draftId, caption: caption,
            items: items.map { item in
                let stage: AgentAttachmentManifest.Stage =
                    item.isReady ? .ready : stagedIds.contains(item.id) ? .staged : .selected
                return AgentAttachmentManifest.Item(
                    uploadId: item.id, kind: item.kind, fileName: item.fileName, mimeType: item.mimeType,
                    size: stage == .selected ? nil : item.size, stage: stage, attachment: item.attachment)
            })
    }

    /// Saves the manifest; on failure records ``storageProblem`` (which blocks sending) and
    /// returns false.
    @discardableResult
    func persist() async -> Bool {
        let manifest = self.manifest
        do {
            try await storage.writeManifest(manifest.bytes)
        } catch {
            storageProblem = "the draft could not be saved: \(error)"
            return false
        }
        storageProblem = nil
        savedStages = Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.uploadId, $0.stage) })
        return true
    }

    /// Loads the saved draft (once, at launch): ready items come back ready; staged items come
    /// back ``AgentAttachmentItem/State/interrupted`` with their upload id, waiting for
    /// ``retry(_:)``; items that were never staged (or whose staged copy is gone) are dropped
    /// with a note to select them again. An unreadable manifest is kept aside.
    public func restore() async {
        precondition(!restored, "restore() runs once, at launch")
        restored = true
        let bytes: [UInt8]?
        do {
            bytes = try await storage.readManifest()
        } catch {
            storageProblem = "the saved draft could not be read: \(error)"
            return
        }
        guard let bytes else {
            await removeStagedFiles(except: [])
            return
        }
        let saved: AgentAttachmentManifest
        do {
            saved = try AgentAttachmentManifest.decode(bytes)
        } catch {
            try? await storage.keepAside(bytes)
            notes.append("The saved draft could not be read (\(error)); it was kept aside and the draft starts empty.")
            try? await storage.removeAll()
            return
        }
        let staged = Set((try? await storage.stagedUploadIds()) ?? [])
        draftId = saved.draftId
        caption = saved.caption
        var dropped = false
        for entry in saved.items {
            let item = AgentAttachmentItem(
                id: entry.uploadId, kind: entry.kind, fileName: entry.fileName, mimeType: entry.mimeType,
                size: entry.size, state: .interrupted)
            switch entry.stage {
            case .ready:
                guard let attachment = entry.attachment else { continue }
                var ready = item
                ready.state = .ready(attachment)
                items.append(ready)
            case .staged where staged.contains(entry.uploadId):
                items.append(item)
                stagedIds.insert(entry.uploadId)
            case .staged:
                dropped = true
                notes.append("\(entry.fileName) was prepared but its saved copy is gone; select it again.")
            case .selected:
                dropped = true
                notes.append("\(entry.fileName) was still being prepared when Sybil closed; select it again.")
            }
        }
        savedStages = Dictionary(uniqueKeysWithValues: saved.items.map { ($0.uploadId, $0.stage) })
        if dropped { await persist() }
        await removeStagedFiles(except: stagedIds)
    }

    /// Deletes staged files no item uses (left by a crash).
    private func removeStagedFiles(except keep: Set<String>) async {
        for id in (try? await storage.stagedUploadIds()) ?? [] where !keep.contains(id) {
            try? await storage.removeStaged(uploadId: id)
        }
    }

    // MARK: - Handoff

    /// Saves the draft and returns what the outbox takes over: the draft's id, the caption and
    /// the ready descriptors in order. The draft does not change until ``completeHandoff(_:)``
    /// or ``abandonHandoff()``. Throws, keeping the draft, when an item is not ready, there is
    /// nothing to send, or the draft cannot be saved first.
    public func prepareHandoff() async throws(AgentAttachmentDraftError) -> AgentAttachmentHandoff {
        guard !isHandingOff else { throw .handoffInProgress }
        guard items.allSatisfy(\.isReady), !(items.isEmpty && caption.allSatisfy(\.isWhitespace)) else {
            throw .notReady
        }
        isHandingOff = true
        guard await persist() else {
            isHandingOff = false
            throw .storage(storageProblem ?? "the draft could not be saved")
        }
        return AgentAttachmentHandoff(draftId: draftId, caption: caption, attachments: items.compactMap(\.attachment))
    }

    /// The outbox holds the message of draft `draftId`: the manifest and staged files are
    /// cleared and a new, empty draft begins. Another id changes nothing.
    public func completeHandoff(_ draftId: String) async {
        guard draftId == self.draftId else { return }
        step?.task.cancel()
        items = []
        caption = ""
        sources = [:]
        stagedIds = []
        savedStages = [:]
        self.draftId = ids.makeID()
        isHandingOff = false
        do {
            try await storage.removeAll()
        } catch {
            // The outbox owns the message; a manifest left behind is finished again at the next
            // launch by recoverHandoff, or replaced by the next save.
            notes.append("The sent draft's saved copy could not be removed (\(error)).")
        }
    }

    /// The outbox did not take the message: the draft can change again.
    public func abandonHandoff() {
        isHandingOff = false
        pump()
    }

    /// At launch, after ``restore()``: if the outbox already holds this draft's message (a crash
    /// came between the outbox saving it and ``completeHandoff(_:)``), completes the handoff so
    /// the message is not sent twice. Returns whether it did.
    @discardableResult
    public func recoverHandoff(isInOutbox: (String) async -> Bool) async -> Bool {
        let id = draftId
        guard await isInOutbox(id), id == draftId else { return false }
        await completeHandoff(id)
        return true
    }
}
