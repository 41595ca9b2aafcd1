import Foundation
import SybilCore
import SybilHTTP
import SybilStore
import SybilWire

/// Attachment originals for cards (SPEC §6.1): downloaded through `AgentRoomAPI.original(of:)`
/// (the authenticated session and API base; redirects refused; exact size and SHA-256
/// verified, and checked again here), at most ``maxConcurrentDownloads`` at once (the rest
/// wait in order), kept in a ``cacheLimitBytes`` in-memory LRU cache.
///
/// ``reconfigure(api:)`` (a new base URL or account) starts a new generation: queued downloads
/// end, running ones are cancelled, the cache is dropped and every export removed; a download,
/// preview or export that finishes afterwards for the old generation is discarded
/// (``AgentDownloadError/configurationChanged``), never cached or shown. Cancelling the task
/// that asked cancels a queued or running download.
public actor AgentDownloads {
    /// Downloads running at once.
    public static let maxConcurrentDownloads = 2
    /// The in-memory cache's size.
    public static let cacheLimitBytes = 16 << 20

    /// What is going on, readable from any thread (tests wait on it).
    public struct Statistics: Sendable, Hashable {
        /// The configuration's generation (0 at first, +1 per ``AgentDownloads/reconfigure(api:)``).
        public var generation = 0
        /// Downloads running.
        public var active = 0
        /// Downloads waiting for a slot.
        public var queued = 0
        /// Bytes in the cache.
        public var cachedBytes = 0
        /// Originals in the cache.
        public var cachedCount = 0
        /// Exports not yet released.
        public var exports = 0
    }

    private struct Waiter {
        var ticket: Int
        var continuation: CheckedContinuation<Result<Void, AgentDownloadError>, Never>
    }

    /// The downloads waiting for a slot, in order, behind a lock so that a cancelled one
    /// leaves the queue from its cancellation handler at once (no task is started for it);
    /// `cancelledBeforeQueued` holds the tickets cancelled before they were queued.
    private struct WaitQueue {
        var waiting: [Waiter] = []
        var cancelledBeforeQueued: Set<Int> = []
    }

    private var api: any AgentRoomAPI
    private var generation = 0
    private var cache: AgentDownloadCache
    private let maxConcurrent: Int
    private var active = 0
    private let queue = Locked(WaitQueue())
    private var nextTicket = 0
    private var running: [Int: Task<[UInt8], any Error>] = [:]
    private var exports: [String: AgentDownloadExport] = [:]
    private let exportDirectory: String
    private let ids: any IDGenerator
    private let io = AgentAttachmentIOQueue(label: "sybil.agent-downloads")
    private let published = Locked(Statistics())

    /// Downloads through `api`; exports go to folders under `exportDirectory` (a temporary
    /// directory), named by `ids`.
    public init(
        api: any AgentRoomAPI, exportDirectory: String, ids: any IDGenerator,
        cacheLimitBytes: Int = AgentDownloads.cacheLimitBytes,
        maxConcurrentDownloads: Int = AgentDownloads.maxConcurrentDownloads
    ) {
        precondition(maxConcurrentDownloads > 0, "at least one download runs")
        self.api = api
        self.exportDirectory = exportDirectory
        self.ids = ids
        cache = AgentDownloadCache(limit: cacheLimitBytes)
        maxConcurrent = maxConcurrentDownloads
    }

    /// The current statistics.
    public nonisolated var statistics: Statistics { published.withLock { $0 } }

    /// The exports not yet released.
    public var liveExports: [AgentDownloadExport] { Array(exports.values) }

    /// A new configuration: a new generation, queued downloads ended, running ones cancelled,
    /// the cache dropped, every export removed.
    public func reconfigure(api: any AgentRoomAPI) async {
        generation += 1
        self.api = api
        cache.removeAll()
        let queued = queue.withLock { queue -> [Waiter] in
            defer { queue.waiting = [] }
            return queue.waiting
        }
        for waiter in queued { waiter.continuation.resume(returning: .failure(.configurationChanged)) }
        for task in running.values { task.cancel() }
        let removed = Array(exports.values)
        exports = [:]
        publish()
        for export in removed { await removeFiles(of: export) }
    }

    /// The verified original of `attachment`, from the cache or downloaded.
    public func original(of attachment: AgentAttachment) async throws(AgentDownloadError) -> [UInt8] {
        let generation = self.generation
        let key = attachment.uploadId + ":" + attachment.sha256
        if let cached = cache.value(for: key) { return cached }
        try await acquireSlot()
        defer { releaseSlot() }
        guard generation == self.generation else { throw .configurationChanged }
        if let cached = cache.value(for: key) { return cached }
        let api = self.api
        let ticket = takeTicket()
        let task = Task<[UInt8], any Error> { try await api.original(of: attachment) }
        running[ticket] = task
        defer { running[ticket] = nil }
        let bytes: [UInt8]
        do {
            bytes = try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            guard generation == self.generation else { throw .configurationChanged }
            if Task.isCancelled { throw .cancelled }
            if let error = error as? AgentRoomError { throw .failed(error) }
            throw .failed(.transport(String(describing: error)))
        }
        guard generation == self.generation else { throw .configurationChanged }
        guard Int64(bytes.count) == attachment.size else {
            throw .failed(.integrity("\(bytes.count) bytes arrived; the descriptor says \(attachment.size)"))
        }
        let digest = SHA256Digest.hex(bytes)
        guard digest == attachment.sha256 else {
            throw .failed(.integrity("SHA-256 \(digest) does not match the descriptor's \(attachment.sha256)"))
        }
        cache.insert(bytes, for: key)
        publish()
        return bytes
    }

    /// The card's preview of `attachment` (see ``AgentDownloadPreview``), built off this actor.
    public func preview(of attachment: AgentAttachment) async throws(AgentDownloadError) -> AgentDownloadPreview {
        let generation = self.generation
        let bytes = try await original(of: attachment)
        let (mimeType, fileName) = (attachment.mimeType, attachment.fileName)
        let preview = await AgentAttachmentIOQueue.detached {
            AgentDownloadPreview.make(bytes: bytes, mimeType: mimeType, fileName: fileName)
        }
        guard generation == self.generation else { throw .configurationChanged }
        if Task.isCancelled { throw .cancelled }
        return preview
    }

    /// Writes the exact original to a temporary file named like the attachment, for Save/Share.
    /// Release it with ``release(_:)`` when its card goes away.
    public func export(_ attachment: AgentAttachment) async throws(AgentDownloadError) -> AgentDownloadExport {
        let generation = self.generation
        let bytes = try await original(of: attachment)
        let id = ids.makeID()
        let folder = AgentAttachmentManifest.isValidUploadId(id) ? id : Hex.padded(FNV1a64.hash(utf8: id))
        let directory = exportDirectory + "/" + folder
        let export = AgentDownloadExport(
            id: id, path: directory + "/" + AgentAttachmentPreparer.displayName(attachment.fileName),
            attachment: attachment)
        do {
            try await io.run {
                try AtomicFile.createDirectory(directory)
                try AtomicFile.write(bytes, to: export.path)
            }
        } catch {
            await removeFiles(of: export)
            throw .storage(String(describing: error))
        }
        guard generation == self.generation else {
            await removeFiles(of: export)
            throw .configurationChanged
        }
        exports[id] = export
        publish()
        return export
    }

    /// Removes an export's file (its card went away). Releasing twice is harmless.
    public func release(_ export: AgentDownloadExport) async {
        guard exports.removeValue(forKey: export.id) != nil else { return }
        publish()
        await removeFiles(of: export)
    }

    // MARK: - Slots

    private func takeTicket() -> Int {
        defer { nextTicket += 1 }
        return nextTicket
    }

    /// Takes one of the download slots, waiting in order for one when all are taken.
    private func acquireSlot() async throws(AgentDownloadError) {
        if active < maxConcurrent && queue.withLock({ $0.waiting.isEmpty }) {
            active += 1
            publish()
            return
        }
        let ticket = takeTicket()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = queue.withLock { queue -> Bool in
                    if queue.cancelledBeforeQueued.remove(ticket) != nil { return true }
                    queue.waiting.append(Waiter(ticket: ticket, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(returning: .failure(.cancelled)) }
                publish()
            }
        } onCancel: {
            self.cancelWaiter(ticket)
        }
        // A cancellation that came after the slot was handed over leaves no trace behind.
        queue.withLock { _ = $0.cancelledBeforeQueued.remove(ticket) }
        if case .failure = result { publish() }
        try result.get()
    }

    /// Takes the waiter `ticket` out of `queue` and ends its wait as cancelled; one not queued
    /// yet is remembered, so it ends as soon as it would queue.
    private nonisolated func cancelWaiter(_ ticket: Int) {
        let waiter = queue.withLock { queue -> Waiter? in
            guard let index = queue.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                queue.cancelledBeforeQueued.insert(ticket)
                return nil
            }
            return queue.waiting.remove(at: index)
        }
        waiter?.continuation.resume(returning: .failure(.cancelled))
    }

    /// Hands the slot to the first waiter, or frees it.
    private func releaseSlot() {
        let next = queue.withLock { queue in queue.waiting.isEmpty ? nil : queue.waiting.removeFirst() }
        if let next {
            next.continuation.resume(returning: .success(()))
        } else {
            active -= 1
        }
        publish()
    }

    private func removeFiles(of export: AgentDownloadExport) async {
        let directory = String(export.path[..<(export.path.lastIndex(of: "/") ?? export.path.endIndex)])
        _ = try? await io.run { try FileManager.default.removeItem(atPath: directory) }
    }

    private func publish() {
        let statistics = Statistics(
            generation: generation, active: active, queued: queue.withLock { $0.waiting.count },
            cachedBytes: cache.totalBytes,
            cachedCount: cache.keys.count, exports: exports.count)
        published.withLock { $0 = statistics }
    }
}
