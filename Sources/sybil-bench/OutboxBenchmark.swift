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

func benchmarkOutboxEnqueue() async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-bench-outbox").path
    try? FileManager.default.removeItem(atPath: directory)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
        let store = try FileKeyValueStore(directory: directory + "/kv")
        let outbox = try WorkspaceOutbox(store: store)
        let chat = WorkspaceChatKey(desktopId: "bench", projectId: "bench", sessionId: "bench")
        let count = scaled(50)
        var enqueueTotal = 0.0
        for index in 0..<count {
            let entry = WorkspaceOutboxEntry(
                chat: chat, operationId: "op-\(index)",
                mutation: .init(mutationId: "m-\(index)", text: "Nachricht \(index)"),
                mode: .send, createdAt: Int64(index))
            let start = clock.now
            try await outbox.enqueue(entry)
            enqueueTotal += seconds(start.duration(to: clock.now))
        }
        // What the enqueues appended to the journal beside the snapshot, per entry.
        let journalPath = store.path(forKey: WorkspaceOutbox.storageKey) + ".journal"
        let journalBytes = (try? FileManager.default.attributesOfItem(atPath: journalPath)[.size] as? Int) ?? 0
        let appended = max(1, (journalBytes - AppendJournal.headerSize) / count)
        // Folding the journal into a snapshot makes the stored document whole for the baseline.
        let compactStart = clock.now
        try await outbox.compact()
        let compactTime = seconds(compactStart.duration(to: clock.now))
        // Baseline: write + fsync of a file of the same size as the stored outbox, same disk.
        let bytes = try store.data(forKey: WorkspaceOutbox.storageKey) ?? []
        let rawPath = directory + "/raw"
        var rawTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            let descriptor = open(rawPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            rawTotal += seconds(start.duration(to: clock.now))
        }
        // A stricter baseline: appending as many bytes as an enqueue appended, with its fsync.
        let record = [UInt8](repeating: 0x61, count: appended)
        let appendPath = directory + "/raw-append"
        var appendTotal = 0.0
        for _ in 0..<count {
            let start = clock.now
            let descriptor = open(appendPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            _ = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            close(descriptor)
            appendTotal += seconds(start.duration(to: clock.now))
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
        print(
            "outbox enqueue (\(count) entries, last document \(bytes.count) B, \(appended) B appended each): "
                + "\(format(enqueue, 0)) µs mean, raw write+fsync \(format(raw, 0)) µs mean, "
                + "ratio \(format(enqueue / raw)) x (goal <= 1.3); raw append+fsync of \(appended) B "
                + "\(format(rawAppend, 0)) µs mean, ratio \(format(enqueue / rawAppend)) x")
    } catch {
        caseFailed("outbox: failed: \(error)")
    }
}
