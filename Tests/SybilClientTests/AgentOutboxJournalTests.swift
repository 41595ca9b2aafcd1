import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The outbox's journal: each change is one appended record, a crash in the middle of an
/// append or of a compaction loses nothing that was reported saved, and an outbox saved before
/// the journal existed still opens.
@Suite("Agent outbox journal", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxJournalTests {
    struct Died: Error {}

    /// Throws `Died` at `step` once armed, as a process killed there would stop.
    final class Killer: Sendable {
        private let state = Locked((armed: false, step: AgentOutboxFile.Step?.none, seen: [AgentOutboxFile.Step]()))

        init(at step: AgentOutboxFile.Step? = nil) { state.withLock { $0.step = step } }

        func arm() { state.withLock { $0.armed = true } }
        func disarm() { state.withLock { $0.armed = false } }
        var seen: [AgentOutboxFile.Step] { state.withLock { $0.seen } }

        var checkpoint: @Sendable (AgentOutboxFile.Step) throws -> Void {
            { [self] step in
                let die = state.withLock { state -> Bool in
                    state.seen.append(step)
                    return state.armed && state.step == step
                }
                if die { throw Died() }
            }
        }
    }

    private func open(
        _ directory: OutboxDirectory, prefix: String = "req", compactAfter: Int = 1 << 30, killer: Killer = Killer()
    ) async throws -> AgentOutbox {
        try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: prefix), now: outboxNow,
            compactAfter: compactAfter, journalCheckpoint: killer.checkpoint, boot: "boot-1")
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    @Test func aChangeAppendsOnlyWhatChangedAndTheFirstSaveWritesTheSnapshot() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer()
        let outbox = try await open(directory, killer: killer)
        let one = try await outbox.enqueue(text: "one")
        #expect(killer.seen == AtomicFile.Step.allCases.map(AgentOutboxFile.Step.snapshot) + [.removedJournal])
        #expect(try storedDocument(outbox.file).entries == [one])
        let two = try await outbox.enqueue(text: "two")
        _ = try await outbox.beginSending(one.requestId)
        #expect(
            Array(killer.seen.dropFirst(6))
                == (AppendJournal.Step.allCases + AppendJournal.Step.allCases).map(AgentOutboxFile.Step.append))
        guard case .journal(let journal) = try AppendJournal.read(outbox.file.journalPath) else {
            Issue.record("no journal")
            return
        }
        #expect(journal.base == AppendJournal.fingerprint(try #require(try AtomicFile.read(outbox.file.path))))
        #expect(
            journal.records.map { String(decoding: $0, as: UTF8.self) } == [
                #"{"add":[{"requestId":"req-2","text":"two","createdAt":1764400200000,"attachments":[],"state":"queued","attempts":0}]}"#,
                #"{"send":{"req-1":1},"claim":"boot-1"}"#,
            ])
        #expect(try storedDocument(outbox.file).entries.map(\.requestId) == [one.requestId, two.requestId])
        #expect(try storedDocument(outbox.file).entries.first?.state == .sending)
    }

    @Test("a torn last record is ignored; what was saved before it survives", arguments: [1, 3, 8, 9, 20, -1])
    func aTornLastRecordIsIgnored(cut: Int) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        let before = size(first.file.journalPath)
        try await first.enqueue(text: "three")
        let after = size(first.file.journalPath)
        var bytes = try #require(try AtomicFile.read(first.file.journalPath))
        if cut < 0 {
            bytes[bytes.count - 2] ^= 0x20  // the record's last bytes are not what its check says
        } else {
            bytes.removeLast(min(cut, after - before - 1))  // the append stopped part-way
        }
        try AtomicFile.write(bytes, to: first.file.journalPath)

        let second = try await open(directory, prefix: "later")
        #expect(second.loadProblems.isEmpty, "a torn append is what a crash leaves, not damage")
        #expect(second.entries.map(\.text) == ["one", "two"])
        // The next append replaces the torn record.
        try await second.enqueue(text: "four")
        let third = try await open(directory, prefix: "third")
        #expect(third.loadProblems.isEmpty)
        #expect(third.entries.map(\.text) == ["one", "two", "four"])
    }

    @Test("killed at each step of an append: what was saved survives", arguments: AppendJournal.Step.allCases)
    func killedMidAppend(at step: AppendJournal.Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer(at: .append(step))
        let first = try await open(directory, killer: killer)
        let one = try await first.enqueue(text: "one")
        let two = try await first.enqueue(text: "two")
        killer.arm()
        await #expect(throws: AgentOutboxError.self) { try await first.enqueue(text: "three") }

        // A new process: one and two as saved; three whole once its bytes were written (a
        // process that dies keeps what it wrote; only a failed write or flush cuts them off).
        let second = try await open(directory, prefix: "p2")
        #expect(second.loadProblems.isEmpty)
        #expect(Array(second.entries.prefix(2)) == [one, two])
        #expect(second.entries.dropFirst(2).map(\.text) == (step == .opened ? [] : ["three"]))

        // The first process goes on: the change that failed is not made, now or after a launch.
        killer.disarm()
        try await first.enqueue(text: "four")
        #expect(first.entries.map(\.text) == ["one", "two", "four"])
        let third = try await open(directory, prefix: "p3")
        #expect(third.loadProblems.isEmpty)
        #expect(third.entries == first.entries)
    }

    nonisolated static let compactionSteps =
        AtomicFile.Step.allCases.map(AgentOutboxFile.Step.snapshot) + [.removedJournal]

    @Test("killed at each step of a compaction: nothing is lost", arguments: compactionSteps)
    func killedMidCompaction(at step: AgentOutboxFile.Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer(at: step)
        let first = try await open(directory, killer: killer)
        try await first.enqueue(text: "one")
        let two = try await first.enqueue(text: "two")
        try await first.enqueue(text: "three")
        try await first.discard(two.requestId)
        _ = try await first.beginSending("req-1")
        let saved = first.entries
        killer.arm()
        await #expect(throws: AgentOutboxError.self) { try await first.compact() }

        let second = try await open(directory, prefix: "p2")
        #expect(second.loadProblems.isEmpty)
        #expect(second.entries.map(\.text) == ["one", "three"])
        #expect(second.entries.dropFirst() == saved.dropFirst(), "three as saved; one failed by the relaunch")

        killer.disarm()
        try await first.enqueue(text: "four")
        let third = try await open(directory, prefix: "p3")
        #expect(third.loadProblems.isEmpty)
        #expect(third.entries.map(\.text) == ["one", "three", "four"])
    }

    @Test func aLongJournalIsCompactedInTheBackground() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer()
        let outbox = try await open(directory, compactAfter: 0, killer: killer)
        for index in 0..<20 { try await outbox.enqueue(text: "message \(index)") }
        await waitFor("a compaction") { killer.seen.contains(.removedJournal) && outbox.pendingChanges == 0 }
        let snapshot = try AgentOutboxDocument.decode(try #require(try AtomicFile.read(outbox.file.path))).document
        #expect(snapshot.entries.count > 1, "the snapshot holds what the journal held")
        let again = try await open(directory, prefix: "later")
        #expect(again.entries == outbox.entries)
    }

    @Test func anOutboxSavedBeforeTheJournalOpensAndKeepsItsEntries() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let old = [
            AgentOutboxEntry(requestId: "old-1", text: "from before", createdAt: 1),
            AgentOutboxEntry(requestId: "old-2", text: "waiting", createdAt: 2),
        ]
        try AtomicFile.createDirectory(directory.path)
        try AtomicFile.write(
            AgentOutboxDocument(baseURL: scope.baseURL, entries: old, retiredDraftIds: ["d-1"]).encoded(),
            to: directory.path + "/" + scope.fileName)
        let first = try await open(directory)
        #expect(first.loadProblems.isEmpty)
        #expect(first.entries == old)
        #expect(first.contains(draftId: "d-1"))
        try await first.discard("old-1")
        try await first.enqueue(text: "new")
        let second = try await open(directory, prefix: "p2")
        #expect(second.entries.map(\.text) == ["waiting", "new"])
        #expect(second.contains(draftId: "d-1"))
    }

    @Test func anUnreadableJournalIsKeptAsideAndTheSnapshotKept() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        let garbage = Array("this is not a journal, but it is somebody's bytes".utf8)
        try AtomicFile.write(garbage, to: first.file.journalPath)

        let second = try await open(directory, prefix: "p2")
        #expect(second.loadProblems.count == 1)
        #expect(second.entries.map(\.text) == ["one"])
        #expect(
            try AtomicFile.read(first.file.path + ".unreadable-1.journal") == garbage, "kept aside, not overwritten")
        try await second.enqueue(text: "three")
        let third = try await open(directory, prefix: "p3")
        #expect(third.loadProblems.isEmpty)
        #expect(third.entries.map(\.text) == ["one", "three"])
    }

    @Test func anEchoIsWrittenAtOnceAndFlushedWithTheNextSaveThatMustBe() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let killer = Killer()
        let outbox = try await open(directory, killer: killer)
        let one = try await outbox.enqueue(text: "one")
        let two = try await outbox.enqueue(text: "two")
        _ = try await outbox.beginSending(one.requestId)
        let receipt = AgentOutboxQueueTests.receipt(for: one)
        _ = try await outbox.finishSending(one.requestId, result: .success(receipt), beginningNext: true)
        var synced: Int { killer.seen.filter { $0 == .append(.synced) }.count }
        #expect(synced == 3, "queued, sending and the receipt each flushed before they count")
        #expect(try await outbox.confirm(echo: AgentOutboxQueueTests.echo(one.requestId)))
        #expect(synced == 3, "the echo is written without a flush of its own")
        #expect(killer.seen.suffix(2) == [.append(.wrote), .append(.committed)])
        // A process that dies now leaves it written: a launch would read it.
        #expect(try storedDocument(outbox.file).entries.first?.state == .confirmed)
        _ = try await outbox.finishSending(two.requestId, result: .failure(.transport("reset")))
        #expect(synced == 4, "the next save flushes the journal, the echo with it")
    }

    @Test func anUnreadableJournalWithoutASnapshotIsMovedAside() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let path = directory.path + "/" + scope.fileName
        let garbage = Array("SYBJRNL1 but then something else entirely".utf8)
        try AtomicFile.createDirectory(directory.path)
        try AtomicFile.write(garbage, to: path + ".journal")
        let outbox = try await open(directory)
        #expect(
            outbox.loadProblems == [
                .unreadable(
                    path: path + ".journal", keptAt: path + ".unreadable-1.journal",
                    reason: "its header fails its check")
            ])
        #expect(outbox.entries.isEmpty)
        #expect(try AtomicFile.read(path + ".unreadable-1.journal") == garbage)
        #expect(try AtomicFile.read(path + ".journal") == nil, "moved, not copied")
    }
}
