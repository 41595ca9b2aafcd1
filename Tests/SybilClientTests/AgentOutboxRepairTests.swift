import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// What a launch does with an outbox that grew large, was damaged or was left behind: the size
/// check holds after a relaunch, nothing is read whole before its size is known, and no saved
/// change is dropped or cut off without a copy kept aside.
@Suite("Agent outbox repair", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxRepairTests {
    /// Makes the system call before `step` fail (a `StorageError`, not a crash) once armed.
    final class FailingDisk: Sendable {
        private let armed = Locked(false)
        let step: AgentOutboxFile.Step

        init(at step: AgentOutboxFile.Step) { self.step = step }

        func arm() { armed.withLock { $0 = true } }

        var checkpoint: @Sendable (AgentOutboxFile.Step) throws -> Void {
            { [self] seen in
                if seen == step, armed.withLock({ $0 }) {
                    throw StorageError(operation: "fsync", path: "journal", reason: "Input/output error")
                }
            }
        }
    }

    private func open(
        _ directory: OutboxDirectory, prefix: String = "req", compactAfter: Int = 1 << 30,
        checkpoint: @escaping @Sendable (AgentOutboxFile.Step) throws -> Void = { _ in }
    ) async throws -> AgentOutbox {
        try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: prefix), now: outboxNow,
            compactAfter: compactAfter, journalCheckpoint: checkpoint)
    }

    private func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }

    private nonisolated static let bigText = String(repeating: "x", count: 120_000)

    /// A snapshot of 278 messages of 120,000 bytes each: within 120 kB of the outbox's limit.
    /// Written off the main actor: encoding 32 MiB there would stall every other main-actor test
    /// running alongside.
    private func writeNearlyFullSnapshot(_ directory: OutboxDirectory) async throws -> (path: String, bytes: [UInt8]) {
        let path = directory.path
        return try await Task.detached { try Self.writeNearlyFullSnapshot(in: path) }.value
    }

    private nonisolated static func writeNearlyFullSnapshot(in directory: String) throws -> (
        path: String, bytes: [UInt8]
    ) {
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let entries = (0..<278).map { AgentOutboxEntry(requestId: "old-\($0)", text: Self.bigText, createdAt: 1) }
        let bytes = AgentOutboxDocument(baseURL: scope.baseURL, entries: entries, retiredDraftIds: []).encoded()
        #expect(bytes.count < AgentOutboxDocument.maxBytes - (64 << 10))
        #expect(bytes.count + 120_100 > AgentOutboxDocument.maxBytes - (64 << 10))
        let path = directory + "/" + scope.fileName
        try AtomicFile.createDirectory(directory)
        try AtomicFile.write(bytes, to: path)
        return (path, bytes)
    }

    private func addRecord(_ texts: [(id: String, text: String)]) -> [UInt8] {
        let entries = texts.map {
            #"{"requestId":"\#($0.id)","text":"\#($0.text)","createdAt":1,"attachments":[],"state":"queued","attempts":0}"#
        }
        return Array(#"{"add":[\#(entries.joined(separator: ","))]}"#.utf8)
    }

    @Test func theSizeCheckHoldsAfterARelaunch() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        _ = try await writeNearlyFullSnapshot(directory)
        let outbox = try await open(directory)
        #expect(outbox.entries.count == 278)
        await #expect(throws: AgentOutboxError.self) { try await outbox.enqueue(text: Self.bigText) }
        #expect(outbox.entries.count == 278, "refused, as it would have been before the relaunch")
        try await outbox.enqueue(text: "a short one still fits")
    }

    @Test func aJournalThatOutgrowsTheLimitKeepsItsFirstRecordsThatFit() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let (path, snapshot) = try await writeNearlyFullSnapshot(directory)
        let records = [
            addRecord([("a", "fits")]), addRecord([("b1", Self.bigText), ("b2", Self.bigText)]),
            addRecord([("c", "after")]),
        ]
        _ = try AppendJournal.append(
            records, to: path + ".journal", at: nil, fileLength: 0, base: AppendJournal.fingerprint(snapshot))
        let journal = try #require(try AtomicFile.read(path + ".journal"))

        let outbox = try await open(directory)
        #expect(outbox.entries.count == 279)
        #expect(outbox.entries.last?.text == "fits", "the records before the one that broke the document count")
        #expect(!outbox.loadProblems.isEmpty)
        #expect(try AtomicFile.read(path + ".unreadable-1.journal") == journal, "the whole journal kept aside")
        let again = try await open(directory, prefix: "p2")
        #expect(again.entries.map(\.requestId) == outbox.entries.map(\.requestId))
    }

    @Test func aJournalOverItsBoundIsMovedAsideUnread() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory, compactAfter: 0)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        let journalPath = first.file.journalPath
        let handle = try #require(FileHandle(forWritingAtPath: journalPath))
        try handle.truncate(atOffset: 200 << 20)  // sparse: a 200 MiB file that costs no disk
        try handle.close()

        let second = try await open(directory, prefix: "p2", compactAfter: 0)
        #expect(second.entries.map(\.text) == ["one"], "the journal is left out")
        #expect(second.loadProblems.count == 1)
        #expect(second.loadProblems.first?.description.contains("209715200 bytes, over the limit") == true)
        #expect(size(first.file.path + ".unreadable-1.journal") == 200 << 20, "moved aside, not copied")
        #expect(size(journalPath) < 1 << 20)
    }

    @Test func aSnapshotOverTheLimitIsMovedAsideUnread() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory)
        try await first.enqueue(text: "one")
        let handle = try #require(FileHandle(forWritingAtPath: first.file.path))
        try handle.truncate(atOffset: UInt64(AgentOutboxDocument.maxBytes + 1))
        try handle.close()

        let second = try await open(directory, prefix: "p2")
        #expect(second.entries.isEmpty)
        #expect(
            second.loadProblems == [
                .unreadable(
                    path: first.file.path, keptAt: first.file.path + ".unreadable-1",
                    reason: "it holds 33554433 bytes, over the limit of 33554432")
            ])
        #expect(size(first.file.path + ".unreadable-1") == AgentOutboxDocument.maxBytes + 1)
    }

    @Test func aJournalNamingAnotherSnapshotIsKeptAside() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory)
        let one = try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        let journal = try #require(try AtomicFile.read(first.file.journalPath))
        // Another snapshot (restored from elsewhere, say) that lacks the journal's change.
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        try AtomicFile.write(
            AgentOutboxDocument(baseURL: scope.baseURL, entries: [one], retiredDraftIds: ["elsewhere"]).encoded(),
            to: first.file.path)

        let second = try await open(directory, prefix: "p2")
        #expect(second.entries.map(\.text) == ["one"])
        let aside = first.file.path + ".superseded-1.journal"
        #expect(second.loadProblems.map(\.description).contains { $0.contains(aside) })
        #expect(try AtomicFile.read(aside) == journal, "renamed aside, not truncated")
        try await second.enqueue(text: "three")
        #expect(try AtomicFile.read(aside) == journal)
    }

    @Test func damageInTheMiddleOfTheJournalIsKeptAsideBeforeAnythingCutsIt() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let first = try await open(directory)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        let endOfTwo = size(first.file.journalPath)
        try await first.enqueue(text: "three")
        try await first.enqueue(text: "four")
        var bytes = try #require(try AtomicFile.read(first.file.journalPath))
        bytes[endOfTwo + 12] ^= 0x20  // inside three's payload; four follows it whole
        try AtomicFile.write(bytes, to: first.file.journalPath)

        let second = try await open(directory, prefix: "p2")
        #expect(second.entries.map(\.text) == ["one", "two"])
        #expect(!second.loadProblems.isEmpty, "damage is not a torn append")
        #expect(try AtomicFile.read(first.file.path + ".unreadable-1.journal") == bytes)
        try await second.enqueue(text: "five")
        let third = try await open(directory, prefix: "p3")
        #expect(third.loadProblems.isEmpty)
        #expect(third.entries.map(\.text) == ["one", "two", "five"])
        #expect(try AtomicFile.read(first.file.path + ".unreadable-1.journal") == bytes)
    }

    @Test("a failed flush leaves no record behind", arguments: [AppendJournal.Step.wrote, .synced])
    func aFailedFlushLeavesNoRecordBehind(at step: AppendJournal.Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = FailingDisk(at: .append(step))
        let first = try await open(directory, checkpoint: disk.checkpoint)
        try await first.enqueue(text: "one")
        try await first.enqueue(text: "two")
        disk.arm()
        await #expect(throws: AgentOutboxError.self) { try await first.enqueue(text: "three") }

        // The process stops here: three was reported as not queued, and a launch agrees.
        let second = try await open(directory, prefix: "p2")
        #expect(second.loadProblems.isEmpty)
        #expect(second.entries.map(\.text) == ["one", "two"])
    }
}
