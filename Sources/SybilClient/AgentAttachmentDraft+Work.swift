import SybilHTTP
import SybilWire

/// The one-at-a-time work of the draft: the next item in selection order that needs preparing
/// (its selection saved) or uploading (uploads allowed), one step at a time.
extension AgentAttachmentDraft {
    /// Whether an upload may start: a capability, attachments available, the room running.
    var uploadsAllowed: Bool { capability != nil && attachmentsAvailable && !isSuspended }

    /// Starts the next step when none runs.
    func pump() {
        guard step == nil, !isHandingOff, !isClosed, let (itemId, kind) = nextWork() else { return }
        activeItemId = itemId
        let task = Task { [weak self] in
            guard let self else { return }
            switch kind {
            case .prepare: await self.prepare(itemId)
            case .upload: await self.upload(itemId)
            }
            self.step = nil
            self.activeItemId = nil
            self.pump()
        }
        step = Step(itemId: itemId, kind: kind, task: task)
    }

    private func nextWork() -> (String, Step.Kind)? {
        for item in items {
            switch item.state {
            case .preparing where sources[item.id] != nil && savedStages[item.id] != nil && lastLimits != nil:
                return (item.id, .prepare)
            case .staged where uploadsAllowed:
                return (item.id, .upload)
            default:
                continue
            }
        }
        return nil
    }

    /// Bytes the other items take of the per-message total (those whose prepared size is known).
    private func bytesOfOtherItems(than id: String) -> Int64 {
        items.filter { $0.id != id && ($0.isReady || stagedIds.contains($0.id)) }.reduce(0) { $0 + ($1.size ?? 0) }
    }

    private func index(of id: String) -> Int? { items.firstIndex { $0.id == id } }

    /// Reads, validates, converts and stages one item, then saves it as staged.
    private func prepare(_ id: String) async {
        guard let source = sources[id], let limits = lastLimits else { return }
        let otherBytes = bytesOfOtherItems(than: id)
        let result: Result<AgentAttachmentPreparer.Prepared, AgentAttachmentRejection> =
            await AgentAttachmentIOQueue.detached {
                do throws(AgentAttachmentRejection) {
                    return .success(
                        try await AgentAttachmentPreparer.prepare(source, limits: limits, otherBytes: otherBytes))
                } catch {
                    return .failure(error)
                }
            }
        guard !Task.isCancelled, let index = index(of: id) else { return }
        let prepared: AgentAttachmentPreparer.Prepared
        switch result {
        case .failure(let rejection):
            items[index].state = .failed(.rejected(rejection))
            await persist()  // kept failed, with why, across a relaunch
            return
        case .success(let value):
            prepared = value
        }
        do {
            try await storage.stage(prepared.bytes, uploadId: id)
        } catch {
            if let index = self.index(of: id) {
                items[index].state = .failed(.storage(String(describing: error)))
                await persist()
            }
            return
        }
        guard !Task.isCancelled, let index = self.index(of: id) else {
            try? await storage.removeStaged(uploadId: id)
            return
        }
        stagedIds.insert(id)
        items[index].fileName = prepared.fileName
        items[index].mimeType = prepared.mimeType
        items[index].size = prepared.size
        items[index].state = .staged
        sources[id] = nil
        if !(await persist()), let index = self.index(of: id) {
            items[index].state = .failed(.storage(storageProblem ?? "the draft could not be saved"))
        }
    }

    /// Uploads one staged item (saved as staged first) and saves it as ready; its staged bytes
    /// are deleted once the manifest holds the descriptor.
    private func upload(_ id: String) async {
        guard var item = items.first(where: { $0.id == id }) else { return }
        if savedStages[id] != .staged {
            guard await persist() else {
                if let index = index(of: id) {
                    items[index].state = .failed(.storage(storageProblem ?? "the draft could not be saved"))
                }
                return
            }
            guard let current = items.first(where: { $0.id == id }) else { return }
            item = current
        }
        guard let index = index(of: id), !Task.isCancelled else { return }
        items[index].state = .uploading(progress: nil)
        let (api, storage, sent) = (api, storage, item)
        let outcome: Result<AgentAttachment, AgentAttachmentFailure> = await AgentAttachmentIOQueue.detached {
            await Self.send(sent, api: api, storage: storage)
        }
        guard let index = self.index(of: id) else { return }  // removed: the reference is dropped
        switch outcome {
        case .success(let attachment):
            items[index].state = .ready(attachment)
            items[index].size = attachment.size
            if await persist(), stagedIds.remove(id) != nil {
                try? await storage.removeStaged(uploadId: id)
            }
        case .failure where Task.isCancelled:
            items[index].state = .staged  // suspended: it waits for resume()
        case .failure(let failure):
            items[index].state = .failed(failure)
            if case .upload(let error) = failure, error.isAttachmentsUnavailable { attachmentsAvailable = false }
        }
    }

    /// Reads the staged bytes, uploads them and checks the answer describes exactly them.
    private nonisolated static func send(
        _ item: AgentAttachmentItem, api: any AgentRoomAPI, storage: any AgentAttachmentStorage
    ) async -> Result<AgentAttachment, AgentAttachmentFailure> {
        let staged: [UInt8]?
        do {
            staged = try await storage.readStaged(uploadId: item.id)
        } catch {
            return .failure(.storage(String(describing: error)))
        }
        guard let bytes = staged else {
            return .failure(.storage("the prepared copy of \(item.fileName) is gone; remove it and select it again"))
        }
        let attachment: AgentAttachment
        do {
            attachment = try await api.upload(
                AgentUploadFile(uploadId: item.id, fileName: item.fileName, mimeType: item.mimeType, bytes: bytes))
        } catch {
            return .failure(.upload(error))
        }
        let digest = SHA256Digest.hex(bytes)
        guard attachment.uploadId == item.id, attachment.size == Int64(bytes.count), attachment.sha256 == digest
        else {
            return .failure(
                .upload(
                    .malformedAnswer(
                        "upload.uploadId/size/sha256 must be \(item.id), \(bytes.count), \(digest); got \(attachment.uploadId), \(attachment.size), \(attachment.sha256)"
                    )))
        }
        return .success(attachment)
    }
}
