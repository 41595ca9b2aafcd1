import Foundation
import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes `bytes` to `path` (truncating it, or appending with `append`) and flushes it: the
/// baselines of the outbox case.
private func rawWriteAndSync(_ bytes: [UInt8], to path: String, append: Bool) {
    let descriptor = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o600)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    fsync(descriptor)
    close(descriptor)
}

/// `outbox`: 50 entries queued one by one in a `WorkspaceOutbox` on a `FileKeyValueStore`.
/// Each enqueue is followed by its baselines on the same disk, so that a disk that slows down
/// during the run slows all three alike: a write + fsync of a file of the final document's size
/// (what each enqueue wrote before the journal), and, stricter, an append + fsync of as many
/// bytes as that enqueue appended to the journal.
func benchmarkOutboxEnqueue() async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-outbox").path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
        let chat = WorkspaceChatKey(desktopId: "bench", projectId: "bench", sessionId: "bench")
        let count = scaled(50)
        let entries = (0..<count).map { index in
            WorkspaceOutboxEntry(
                chat: chat, operationId: "op-\(index)",
                mutation: .init(mutationId: "m-\(index)", text: "Nachricht \(index)"),
                mode: .send, createdAt: Int64(index))
        }
        // The final document, from a dry run in memory (the same bytes the file store compacts to).
        let dryRun = InMemoryKeyValueStore()
        let dryOutbox = try WorkspaceOutbox(store: dryRun)
        for entry in entries { try await dryOutbox.enqueue(entry) }
        let bytes = try dryRun.data(forKey: WorkspaceOutbox.storageKey) ?? []

        let store = try FileKeyValueStore(directory: directory + "/kv")
        let outbox = try WorkspaceOutbox(store: store)
        let journalPath = store.path(forKey: WorkspaceOutbox.storageKey) + ".journal"
        func journalSize() -> Int {
            (try? FileManager.default.attributesOfItem(atPath: journalPath)[.size] as? Int) ?? 0
        }
        var (enqueueTotal, rawTotal, appendTotal) = (0.0, 0.0, 0.0)
        var appendedTotal = 0
        for entry in entries {
            let before = journalSize()
            let start = clock.now
            try await outbox.enqueue(entry)
            enqueueTotal += seconds(start.duration(to: clock.now))
            // The first append creates the journal: its header is not the entry's.
            let appended = journalSize() - max(before, AppendJournal.headerSize)
            appendedTotal += appended
            let rawStart = clock.now
            rawWriteAndSync(bytes, to: directory + "/raw", append: false)
            rawTotal += seconds(rawStart.duration(to: clock.now))
            let appendStart = clock.now
            rawWriteAndSync([UInt8](repeating: 0x61, count: appended), to: directory + "/raw-append", append: true)
            appendTotal += seconds(appendStart.duration(to: clock.now))
        }
        // Folding the journal into a snapshot makes the stored document whole.
        let compactStart = clock.now
        try await outbox.compact()
        let compactTime = seconds(compactStart.duration(to: clock.now))
        guard try store.data(forKey: WorkspaceOutbox.storageKey) == bytes else {
            caseFailed("outbox: the compacted document differs from the one written in memory")
            return
        }
        // The same store write alone, outside the actor, to separate I/O from the rest.
        var setTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            try store.set(bytes, forKey: "bench-copy")
            setTotal += seconds(start.duration(to: clock.now))
        }
        let parsed = try JSONReader().parse(bytes)
        var encodeTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            blackHole(Array(JSONWriter().string(from: parsed).utf8))
            encodeTotal += seconds(start.duration(to: clock.now))
        }
        print(
            "  (key-value store set alone: \(format(setTotal / Double(count) * 1e6, 0)) µs mean; "
                + "encoding the last document: \(format(encodeTotal / Double(count) * 1e6, 0)) µs; "
                + "compacting the journal into it: \(format(compactTime * 1e6, 0)) µs)")
        let enqueue = enqueueTotal / Double(count) * 1e6
        let raw = rawTotal / Double(count) * 1e6
        let rawAppend = appendTotal / Double(count) * 1e6
        let appended = appendedTotal / count
        print(
            "outbox enqueue (\(count) entries, last document \(bytes.count) B, \(appended) B appended each): "
                + "\(format(enqueue, 0)) µs mean, raw write+fsync \(format(raw, 0)) µs mean, "
                + "ratio \(format(enqueue / raw)) x (goal <= 1.3); raw append+fsync of \(appended) B "
                + "\(format(rawAppend, 0)) µs mean, ratio \(format(enqueue / rawAppend)) x")
    } catch {
        caseFailed("outbox: failed: \(error)")
    }
}
