import SybilWire

/// Saving, restoring and handing the draft to the outbox.
extension AgentAttachmentDraft {
    /// The manifest of the draft as it is now.
    var manifest: AgentAttachmentManifest {
        AgentAttachmentManifest(
            draftId: draftId, caption: caption,
            items: items.map { item in
                let stage: AgentAttachmentManifest.Stage =
                    item.isReady
                    ? .ready : stagedIds.contains(item.id) ? .staged : item.failure != nil ? .failed : .selected
                let failure = item.failure.map { failure in
                    let sentence = failure.description
                    return sentence.utf8.count <= AgentAttachmentManifest.maxFailureBytes
                        ? sentence : String(sentence.prefix(AgentAttachmentManifest.maxFailureBytes / 4)) + "…"
                }
                // The file's path lets an item that was not staged be read again after a relaunch.
                let path = sources[item.id]?.path.flatMap { path in
                    path.hasPrefix("/") && path.utf8.count <= AgentAttachmentManifest.maxPathBytes
                        && !path.utf8.contains(0) ? path : nil
                }
                let notStaged = stage == .selected || stage == .failed
                return AgentAttachmentManifest.Item(
                    uploadId: item.id, kind: item.kind, fileName: item.fileName, mimeType: item.mimeType,
                    size: notStaged ? nil : item.size, stage: stage, attachment: item.attachment,
                    failure: stage == .failed ? failure : nil, path: notStaged ? path : nil)
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
    /// ``retry(_:)``; an item that failed before it was staged comes back failed with why (and
    /// can be retried from its file's path, or removed); an item that was never staged comes
    /// back interrupted when its file's path was kept, else (and when its staged copy is gone)
    /// it is dropped with a note to select it again. An unreadable manifest is kept aside.
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
            case .failed:
                var failed = item
                failed.state = .failed(.earlier(entry.failure ?? "It failed"))
                items.append(failed)
                if let path = entry.path { sources[entry.uploadId] = Self.source(entry, path: path) }
            case .selected where entry.path != nil:
                items.append(item)
                if let path = entry.path { sources[entry.uploadId] = Self.source(entry, path: path) }
            case .selected:
                dropped = true
                notes.append(
                    "\(entry.fileName) was not prepared before Sybil closed (still preparing, or it failed); select it again."
                )
            }
        }
        savedStages = Dictionary(uniqueKeysWithValues: saved.items.map { ($0.uploadId, $0.stage) })
        if dropped { await persist() }
        await removeStagedFiles(except: stagedIds)
    }

    /// The source of a saved item that was not staged: its file, read again when retried.
    private static func source(_ entry: AgentAttachmentManifest.Item, path: String) -> AgentAttachmentSource {
        .file(atPath: path, kind: entry.kind, fileName: entry.fileName, mimeType: entry.mimeType)
    }

    /// Deletes staged files no item uses (left by a crash).
    private func removeStagedFiles(except keep: Set<String>) async {
        for id in (try? await storage.stagedUploadIds()) ?? [] where !keep.contains(id) {
            try? await storage.removeStaged(uploadId: id)
        }
    }

    // MARK: - Handoff

    /// Saves the draft and returns what the outbox takes over: the draft's id, the caption and
    /// the ready descriptors in order. Failed and interrupted items are left out (named in
    /// ``AgentAttachmentHandoff/leftOut``) and stay for the next draft. The draft does not
    /// change until ``completeHandoff(_:)`` or ``abandonHandoff()``. Throws, keeping the draft,
    /// when an item is still being prepared or uploaded, there is nothing to send, or the draft
    /// cannot be saved first.
    public func prepareHandoff() async throws(AgentAttachmentDraftError) -> AgentAttachmentHandoff {
        guard !isHandingOff else { throw .handoffInProgress }
        let working = items.filter(\.isInProgress)
        guard working.isEmpty else { throw .notReady(working.map(\.fileName)) }
        let attachments = items.compactMap(\.attachment)
        let leftOut = items.filter(\.needsAttention).map(\.fileName)
        guard !(attachments.isEmpty && caption.allSatisfy(\.isWhitespace)) else {
            throw .nothingToSend(waiting: leftOut)
        }
        isHandingOff = true
        guard await persist() else {
            isHandingOff = false
            throw .storage(storageProblem ?? "the draft could not be saved")
        }
        return AgentAttachmentHandoff(draftId: draftId, caption: caption, attachments: attachments, leftOut: leftOut)
    }

    /// The outbox holds the message of draft `draftId`: a new draft begins with a new identity,
    /// holding only the items the message left out (failed or interrupted, with their staged
    /// bytes, waiting for retry or removal); with none left the manifest and staged files are
    /// cleared. Another id changes nothing.
    public func completeHandoff(_ draftId: String) async {
        guard draftId == self.draftId else { return }
        step?.task.cancel()
        let kept = items.filter(\.needsAttention)
        let keptIds = Set(kept.map(\.id))
        items = kept
        caption = ""
        sources = sources.filter { keptIds.contains($0.key) }
        stagedIds = stagedIds.intersection(keptIds)
        savedStages = [:]
        self.draftId = ids.makeID()
        isHandingOff = false
        if !kept.isEmpty, await persist() { return }
        do {
            // With items kept but no save possible, the old manifest stays: recoverHandoff
            // finishes this handoff again at the next launch.
            if kept.isEmpty { try await storage.removeAll() }
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
