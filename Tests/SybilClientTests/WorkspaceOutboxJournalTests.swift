import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTimeline
import SybilWire
import Testing

/// The workspace outbox in a file store: each change appends what changed to a journal beside
/// the snapshot (several entries queued together share one `fsync`), a crash in the middle of
/// an append or of a compaction loses nothing that was reported saved, and an outbox written
/// before the journal existed still opens.
@Suite("Workspace outbox journal", .timeLimit(.minutes(2)))
struct WorkspaceOutboxJournalTests {
    typealias Killer = AgentOutboxJournalTests.Killer
    typealias Step = JournaledFile.Step

    private func entry(_ operationId: String, _ text: String = "hi", chat: WorkspaceChatKey = chatA)
        -> WorkspaceOutboxEntry
    {
        WorkspaceOutboxEntry(
            chat: chat, operationId: operationId, mutation: .init(mutationId: "m-\(operationId)", text: text),
            mode: .send, createdAt: 1_000)
    }

    private func launch(
        _ directory: OutboxDirectory, killer: Killer = Killer(), compactAfter: Int = 1 << 20
    ) throws -> WorkspaceOutbox {
        try WorkspaceOutbox(
            store: try FileKeyValueStore(directory: directory.path), compactAfter: compactAfter,
            journalCheckpoint: killer.checkpoint)
    }

    private func snapshotPath(_ directory: OutboxDirectory) -> String {
        directory.path + "/" + WorkspaceOutbox.storageKey
    }

    private func journal(_ directory: OutboxDirectory) throws -> AppendJournal.Contents? {
        guard case .journal(let contents) = try AppendJournal.read(snapshotPath(directory) + ".journal") else {
            return nil
        }
        return contents
    }

    private static let compaction = AtomicFile.Step.allCases.map(Step.snapshot) + [.removedJournal]

    @Test func aChangeAppendsOneRecordAndALaunchFoldsTheJournalIntoTheSnapshot() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer()
        let outbox = try launch(directory, killer: killer)
        #expect(killer.seen == Self.compaction, "the launch writes the new generation's snapshot")
        let snapshot = try #require(try AtomicFile.read(snapshotPath(directory)))
        try await outbox.enqueue(entry("op-1", "eins"))
        try await outbox.complete("op-1", in: chatA)
        #expect(
            Array(killer.seen.dropFirst(6))
                == (AppendJournal.Step.allCases + AppendJournal.Step.allCases).map(Step.append))
        #expect(try AtomicFile.read(snapshotPath(directory)) == snapshot, "the snapshot is not rewritten")
        let contents = try #require(try journal(directory))
        #expect(contents.base == AppendJournal.fingerprint(snapshot))
        #expect(
            contents.records.map { String(decoding: $0, as: UTF8.self) } == [
                #"{"changes":[{"desktopId":"desk-1","projectId":"app","sessionId":"a","operationId":"op-1","operation":{"state":"pending","entry":{"operationId":"op-1","status":"queued","acceptedByDesktop":false,"mutation":{"mutationId":"m-op-1","text":"eins","attachments":[]},"mode":{"kind":"send"},"createdAt":1000}}}]}"#,
                #"{"changes":[{"desktopId":"desk-1","projectId":"app","sessionId":"a","operationId":"op-1","operation":{"state":"completed"}}]}"#,
            ])
        try await outbox.enqueue(entry("op-2", "zwei"))

        let relaunched = try launch(directory)
        #expect(await relaunched.generation == 3)
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-2"])
        #expect(await relaunched.loadProblems.isEmpty)
        #expect(try journal(directory) == nil, "the launch removed the journal it folded")
        let stored = String(decoding: try #require(try AtomicFile.read(snapshotPath(directory))), as: UTF8.self)
        #expect(stored.hasPrefix(#"{"version":2,"generation":3,"scopes":[{"desktopId":"desk-1""#))
        #expect(!stored.contains("op-1"), "completed operations are gone from storage")
    }

    @Test func severalEntriesQueuedTogetherShareOneFsync() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer()
        let outbox = try launch(directory, killer: killer)
        try await outbox.enqueue(contentsOf: [entry("op-1"), entry("op-2"), entry("op-3", chat: chatB)])
        #expect(Array(killer.seen.dropFirst(6)) == AppendJournal.Step.allCases.map(Step.append), "one append")
        #expect(try journal(directory)?.records.count == 1, "one record: the batch is all or nothing")
        await #expect(throws: WorkspaceOutboxError.duplicateOperation("op-4")) {
            try await outbox.enqueue(contentsOf: [entry("op-4"), entry("op-4")])
        }
        await #expect(throws: WorkspaceOutboxError.duplicateOperation("op-1")) {
            try await outbox.enqueue(contentsOf: [entry("op-5"), entry("op-1")])
        }
        #expect(
            await outbox.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-2"], "none of a refused batch")
        let relaunched = try launch(directory)
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-2"])
        #expect(await relaunched.pendingEntries(in: chatB).map(\.operationId) == ["op-3"])
    }

    @Test func anOutboxWrittenBeforeTheJournalExistedOpens() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        // The whole document, exactly as the version before the journal wrote it.
        let previous =
            #"{"version":2,"generation":2,"scopes":[{"desktopId":"desk-1","projectId":"app","sessionId":"a","order":["op-1","op-2"],"operations":{"op-1":{"state":"completed"},"op-2":{"state":"pending","entry":{"operationId":"op-2","status":"accepted","acceptedByDesktop":true,"mutation":{"mutationId":"m-op-2","text":"zwei","attachments":[]},"mode":{"kind":"steer","activeRunId":"run-7"},"createdAt":1000}}}}]}"#
        try FileKeyValueStore(directory: directory.path).set(Array(previous.utf8), forKey: WorkspaceOutbox.storageKey)
        let outbox = try launch(directory)
        #expect(await outbox.loadProblems.isEmpty)
        #expect(await outbox.generation == 3)
        var expected = entry("op-2", "zwei")
        expected.status = .accepted
        expected.acceptedByDesktop = true
        expected.mode = .steer(activeRunId: "run-7")
        #expect(await outbox.pendingEntries(in: chatA) == [expected])
        try await outbox.enqueue(entry("op-3"))
        let relaunched = try launch(directory)
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-2", "op-3"])
    }

    @Test(
        "killed mid-append: what was saved survives, the cut change is all or nothing",
        arguments: AppendJournal.Step.allCases)
    func killedMidAppend(at step: AppendJournal.Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer(at: .append(step))
        let outbox = try launch(directory, killer: killer)
        try await outbox.enqueue(entry("op-1", "eins"))
        try await outbox.enqueue(entry("op-2", "zwei"))
        killer.arm()
        await #expect(throws: WorkspaceOutboxError.self) {
            try await outbox.enqueue(contentsOf: [entry("op-3", "drei"), entry("op-4", "vier")])
        }
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-2"], "not adopted")

        let relaunched = try launch(directory)
        #expect(await relaunched.loadProblems.isEmpty)
        let pending = await relaunched.pendingEntries(in: chatA).map(\.operationId)
        // Killed before its bytes were written the batch is gone; after, the process's write
        // already reached the file (a killed process keeps what it wrote): both entries.
        #expect(pending == (step == .opened ? ["op-1", "op-2"] : ["op-1", "op-2", "op-3", "op-4"]))

        // The first process goes on: the change that failed is not made, now or after a launch.
        killer.disarm()
        try await outbox.enqueue(entry("op-5", "fünf"))
        #expect(await outbox.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-2", "op-5"])
        let third = try launch(directory)
        #expect(await third.loadProblems.isEmpty)
        #expect(await third.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-2", "op-5"])
    }

    @Test("a torn last append is ignored; what was saved before it survives", arguments: [1, 8, 9, 40, -1])
    func aTornAppendIsIgnored(cut: Int) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let outbox = try launch(directory)
        try await outbox.enqueue(entry("op-1", "eins"))
        let saved = try #require(try journal(directory)).validLength
        try await outbox.enqueue(contentsOf: [entry("op-2", "zwei"), entry("op-3", "drei")])
        let full = try #require(try journal(directory)).validLength
        // The power failed while the second append was on its way: only part of it is there.
        let kept = cut < 0 ? full - 1 : saved + cut
        #expect(truncate(snapshotPath(directory) + ".journal", off_t(kept)) == 0)

        let relaunched = try launch(directory)
        #expect(await relaunched.loadProblems.isEmpty, "a torn tail is what a crash leaves, not damage")
        // The batch was one record: a cut anywhere in it leaves neither entry.
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-1"])
        try await relaunched.enqueue(entry("op-4", "vier"))
        let third = try launch(directory)
        #expect(await third.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-4"])
    }

    @Test("killed mid-compaction: nothing is lost and nothing comes back", arguments: Self.compaction)
    func killedMidCompaction(at step: Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer(at: step)
        let outbox = try launch(directory, killer: killer)
        try await outbox.enqueue(entry("op-1", "eins"))
        try await outbox.enqueue(entry("op-2", "zwei"))
        try await outbox.complete("op-1", in: chatA)
        var accepted = entry("op-2", "zwei")
        accepted.status = .accepted
        try await outbox.update(accepted)
        killer.arm()
        await #expect(throws: WorkspaceOutboxError.self) { try await outbox.compact() }
        killer.disarm()
        // The next change writes a whole snapshot: the compaction did not finish.
        try await outbox.enqueue(entry("op-3", "drei"))

        let relaunched = try launch(directory)
        #expect(await relaunched.loadProblems.isEmpty)
        #expect(await relaunched.pendingEntries(in: chatA) == [accepted, entry("op-3", "drei")])
    }

    @Test("a launch killed mid-compaction: the next launch finds every entry", arguments: Self.compaction)
    func aLaunchKilledMidCompaction(at step: Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try launch(directory)
        try await first.enqueue(contentsOf: [entry("op-1", "eins"), entry("op-2", "zwei")])
        try await first.complete("op-1", in: chatA)
        try await first.enqueue(entry("op-3", chat: chatB))

        let killer = Killer(at: step)
        killer.arm()
        #expect(throws: (any Error).self) { _ = try launch(directory, killer: killer) }

        let relaunched = try launch(directory)
        #expect(await relaunched.loadProblems.isEmpty, "a journal a compaction folded is not reported")
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-2"])
        #expect(await relaunched.pendingEntries(in: chatB).map(\.operationId) == ["op-3"])
        #expect(try journal(directory) == nil)
        #expect(directory.files().allSatisfy { !$0.contains("superseded") && !$0.contains("unreadable") })
    }

    @Test func aJournalWhoseSnapshotLacksItsChangesIsKeptAside() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try launch(directory)
        try await first.enqueue(entry("op-1", "eins"))
        let journalPath = snapshotPath(directory) + ".journal"
        let journalBytes = try #require(try AtomicFile.read(journalPath))
        // Another snapshot appears beside the journal (restored from a backup, say).
        try AtomicFile.write(
            Array(#"{"version":2,"generation":7,"scopes":[]}"#.utf8), to: snapshotPath(directory))
        let relaunched = try launch(directory)
        let problems = await relaunched.loadProblems
        #expect(problems.count == 1)
        #expect(problems.first?.contains("another snapshot") == true, "\(problems)")
        #expect(try AtomicFile.read(snapshotPath(directory) + ".superseded-1.journal") == journalBytes)
        #expect(await relaunched.generation == 8)
    }

    @Test func aFailedAppendChangesNothingAndTheNextChangeWritesASnapshot() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let failing = Locked(false)
        let outbox = try WorkspaceOutbox(
            store: try FileKeyValueStore(directory: directory.path),
            journalCheckpoint: { step in
                if step == .append(.wrote), failing.withLock({ $0 }) {
                    throw StorageError(operation: "write", path: "journal", reason: "No space left on device")
                }
            })
        try await outbox.enqueue(entry("op-1"))
        failing.withLock { $0 = true }
        await #expect(throws: WorkspaceOutboxError.self) { try await outbox.enqueue(entry("op-2")) }
        failing.withLock { $0 = false }
        #expect(try journal(directory)?.records.count == 1, "the failed append was cut off again")
        try await outbox.enqueue(entry("op-3"))
        #expect(try journal(directory) == nil, "after a failure the next change writes the snapshot")
        let relaunched = try launch(directory)
        #expect(await relaunched.pendingEntries(in: chatA).map(\.operationId) == ["op-1", "op-3"])
    }

    @Test func aGrownJournalIsCompactedInTheBackground() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let (compacted, signal) = AsyncStream.makeStream(of: Void.self)
        let outbox = try WorkspaceOutbox(
            store: try FileKeyValueStore(directory: directory.path), compactAfter: 0,
            journalCheckpoint: { step in if step == .removedJournal { signal.yield() } })
        var compactions = compacted.makeAsyncIterator()
        _ = await compactions.next()  // the launch's
        try await outbox.enqueue(entry("op-1"))
        _ = await compactions.next()
        #expect(try journal(directory) == nil)
        let snapshot = String(decoding: try #require(try AtomicFile.read(snapshotPath(directory))), as: UTF8.self)
        #expect(snapshot.contains(#""op-1""#))
    }
}
