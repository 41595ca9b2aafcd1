import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// A message queued while the sender waits with nothing to send (or while a request is out with
/// nothing saved behind it) is saved as `sending` by its enqueue's own write (one `fsync` for
/// the user's text and its state) and handed to the sender; its acknowledgement and
/// confirmation are written without an `fsync`.
@Suite("Agent outbox hand-off to a waiting sender", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxHandOffTests {
    typealias Phone = AgentOutboxSenderTests.Phone

    /// Appends and fsyncs of the outbox's files, and the journal as it was at its last
    /// `fsync` (what a power loss leaves).
    final class Disk: Sendable {
        struct Died: Error {}
        private let state = Locked(
            (appends: 0, fsyncs: 0, durableJournal: [UInt8]?.none, crashAt: JournaledFile.Step?.none, dead: false))
        let journalPath: String

        init(_ directory: OutboxDirectory) throws {
            journalPath = directory.path + "/" + (try AgentOutboxScope(baseURL: outboxBase)).fileName + ".journal"
        }

        var appends: Int { state.withLock { $0.appends } }
        var fsyncs: Int { state.withLock { $0.fsyncs } }
        var isDead: Bool { state.withLock { $0.dead } }

        /// The next write dies right after `step`, and every write after it at its first step.
        func crash(at step: JournaledFile.Step) { state.withLock { $0.crashAt = step } }

        /// The process dies now: every later write stops at its first step.
        func die() { state.withLock { $0.dead = true } }

        /// The power goes: the journal loses what was written since its last `fsync`.
        func losePower() throws {
            let durable = state.withLock { $0.durableJournal }
            if let durable {
                try Data(durable).write(to: URL(fileURLWithPath: journalPath))
            } else {
                try? FileManager.default.removeItem(atPath: journalPath)
            }
        }

        var checkpoint: @Sendable (JournaledFile.Step) throws -> Void {
            { [self] step in
                let path = journalPath
                try state.withLock { state in
                    if state.dead { throw Died() }
                    switch step {
                    case .append(.synced):
                        state.fsyncs += 1
                        state.durableJournal = FileManager.default.contents(atPath: path).map { Array($0) }
                    case .snapshot(.syncedTemporary): state.fsyncs += 1
                    case .removedJournal: state.durableJournal = nil
                    case .append(.committed): state.appends += 1
                    default: break
                    }
                    if step == state.crashAt {
                        state.dead = true
                        throw Died()
                    }
                }
            }
        }
    }

    static func launch(
        _ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: Disk, prefix: String = "req"
    ) async throws -> Phone {
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: prefix), now: outboxNow,
            journalCheckpoint: disk.checkpoint, boot: "boot-a")
        let sender = AgentOutboxSender(outbox: outbox, api: room)
        sender.start()
        return Phone(outbox: outbox, sender: sender)
    }

    /// Queues `text` once the sender waits, and waits until its echo confirmed it.
    static func sendAlone(_ text: String, _ phone: Phone, room: AgentOutboxFakeRoom) async throws -> AgentOutboxEntry {
        await waitFor("the sender to wait") { phone.sender.isWaiting && phone.outbox.pendingChanges == 0 }
        let entry = try await phone.outbox.enqueue(text: text)
        await phone.settle()
        await phone.merge(room.messages)
        return entry
    }

    @Test func aMessageQueuedWhileTheSenderWaitsCostsOneFsyncFromQueuedToConfirmed() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = try Disk(directory)
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let path = directory.path + "/" + scope.fileName
        // What was on disk when each submission left.
        let seen = Locked<[[AgentOutboxEntry.State]]>([])
        let room = AgentOutboxFakeRoom { _ in
            let document = (try? AgentOutboxFile.storedDocument(at: path)).flatMap { $0 }.flatMap {
                try? AgentOutboxDocument.decode($0)
            }
            seen.withLock { $0.append(document?.document.entries.map(\.state) ?? []) }
        }
        let phone = try await Self.launch(directory, room: room, disk: disk)
        // The first message writes the snapshot; the ones after it are the journal's.
        _ = try await Self.sendAlone("eins", phone, room: room)
        let before = (appends: disk.appends, fsyncs: disk.fsyncs)
        let zwei = try await Self.sendAlone("zwei", phone, room: room)
        let drei = try await Self.sendAlone("drei", phone, room: room)
        #expect(zwei.state == .sending && zwei.attempts == 1, "saved as sending by the enqueue")
        #expect(drei.state == .sending)
        #expect(disk.fsyncs - before.fsyncs == 2, "one fsync per message, queued to confirmed")
        #expect(disk.appends - before.appends == 6, "each: queued as sending, acknowledged, confirmed")
        #expect(room.calls.map(\.requestId) == ["req-1", "req-2", "req-3"])
        #expect(seen.withLock { $0 }.map(\.last) == [.sending, .sending, .sending], "saved as sending before it left")
        #expect(phone.states() == [.confirmed, .confirmed, .confirmed])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 1, 1])
        await phone.sender.stop()
    }

    @Test func aMessageQueuedWhileTheSenderIsStoppedIsSavedAsQueued() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let phone = try await Phone.launch(directory, room: room, start: false)
        #expect(try await phone.outbox.enqueue(text: "eins").state == .queued, "no sender runs")
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.queued])
        phone.sender.start()
        await phone.settle()
        #expect(room.calls.map(\.text) == ["eins"])
        await phone.sender.stop()
    }

    @Test func aMessageQueuedWhileARequestIsOutIsSavedAheadByItsOwnWrite() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = try Disk(directory)
        let room = AgentOutboxFakeRoom()
        let phone = try await Self.launch(directory, room: room, disk: disk)
        _ = try await Self.sendAlone("eins", phone, room: room)
        room.script(.hang)
        await waitFor("the sender to wait") { phone.sender.isWaiting && phone.outbox.pendingChanges == 0 }
        try await phone.outbox.enqueue(text: "zwei")
        await waitFor("zwei to be out") { room.hangingCount == 1 && phone.outbox.pendingChanges == 0 }
        let before = disk.fsyncs
        let drei = try await phone.outbox.enqueue(text: "drei")
        #expect(drei.state == .sending && drei.attempts == 1, "saved ahead of its turn by the enqueue")
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.confirmed, .sending, .sending])
        #expect(room.calls.map(\.text) == ["eins", "zwei"], "drei waits for zwei's answer")
        room.release()
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed, .confirmed])
        #expect(room.calls.map(\.text) == ["eins", "zwei", "drei"])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 1, 1])
        #expect(disk.fsyncs - before == 1, "drei's enqueue; zwei's and drei's acknowledgements need none")
        await phone.sender.stop()
    }

    @Test func aMessageHandedOverBehindARequestThatFailsGoesBackUnsent() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.hang)
        let phone = try await Phone.launch(directory, room: room)
        await waitFor("the sender to wait") { phone.sender.isWaiting }
        try await phone.outbox.enqueue(text: "eins")
        await waitFor("eins to be out") { room.hangingCount == 1 && phone.outbox.pendingChanges == 0 }
        #expect(try await phone.outbox.enqueue(text: "zwei").state == .sending)
        // eins is cut off (the sender stops): it fails with Retry and holds the queue, and
        // zwei, handed over behind it, goes back to queued without having left.
        await phone.sender.stop()
        #expect(phone.states() == [.failed, .queued])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 0])
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.failed, .queued])
        #expect(room.calls.map(\.text) == ["eins"])
        // Retry sends both, in order, each once more at most.
        phone.sender.start()
        try await phone.outbox.retry("req-1")
        await phone.settle()
        #expect(room.calls.map(\.text) == ["eins", "eins", "zwei"])
        #expect(room.messages.map(\.text) == ["eins", "zwei"])
        await phone.sender.stop()
    }

    @Test func aCrashAfterAMessageWasHandedOverBehindARequestSendsEachOnce() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = DiskSwitch()
        // eins is stored and its answer never comes: the phone dies while it is out, right
        // after zwei was saved as sending behind it.
        room.script(.storeThenHang)
        let first = try await Phone.launch(directory, room: room, disk: disk)
        await waitFor("the sender to wait") { first.sender.isWaiting }
        try await first.outbox.enqueue(text: "eins")
        await waitFor("eins to be out") { room.hangingCount == 1 && first.outbox.pendingChanges == 0 }
        #expect(try await first.outbox.enqueue(text: "zwei").state == .sending)
        #expect(AgentOutboxAheadCrashTests.diskStates(first) == [.sending, .sending])
        disk.die()
        await first.sender.stop()
        #expect(room.calls.map(\.text) == ["eins"], "zwei never left")

        let phone = try await AgentOutboxAheadCrashTests.relaunchAndDeliver(directory, room: room)
        #expect(room.messages.map(\.text) == ["eins", "zwei"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["req-1", "req-2"], "original ids")
        #expect(room.calls.map(\.text) == ["eins", "zwei"], "eins was confirmed by its echo, not resent")
        await phone.sender.stop()
    }

    @Test func stoppingWhileAHandOffIsBeingSavedPutsItBackUnsent() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        // Writes: eins (the snapshot), eins's acknowledgement, then zwei's enqueue (held).
        let gate = WriteGate(blocking: 3)
        let room = AgentOutboxFakeRoom()
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "req"), now: outboxNow,
            checkpoint: gate.checkpoint)
        let sender = AgentOutboxSender(outbox: outbox, api: room)
        sender.start()
        await waitFor("the sender to wait") { sender.isWaiting }
        try await outbox.enqueue(text: "eins")
        await waitFor("eins acknowledged") {
            outbox.pendingChanges == 0 && outbox.entry("req-1")?.state == .awaitingEcho && sender.isWaiting
        }
        let queuing = Task { try await outbox.enqueue(text: "zwei") }
        await waitFor("zwei's write") { gate.blockedWrites == 1 }
        let stopping = Task { await sender.stop() }
        await waitFor("the stop to begin") { !sender.isRunning }
        gate.open()
        let zwei = try await queuing.value
        await stopping.value
        #expect(zwei.state == .sending, "it was handed to the sender")
        #expect(room.calls.map(\.text) == ["eins"], "zwei never left")
        #expect(outbox.entries.map(\.state) == [.awaitingEcho, .queued])
        #expect(outbox.entries.map(\.attempts) == [1, 0])
        #expect(try storedDocument(outbox.file).entries.map(\.state) == [.awaitingEcho, .queued])
        // Started again, it sends zwei as usual.
        sender.start()
        await waitFor("zwei acknowledged") { outbox.entry("req-2")?.state == .awaitingEcho }
        #expect(room.calls.map(\.text) == ["eins", "zwei"])
        await sender.stop()
    }

    @Test func aPowerLossAfterTheUnflushedAcknowledgementAndConfirmationLosesNothing() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = try Disk(directory)
        let room = AgentOutboxFakeRoom()
        let first = try await Self.launch(directory, room: room, disk: disk, prefix: "p1")
        _ = try await Self.sendAlone("eins", first, room: room)
        _ = try await Self.sendAlone("zwei", first, room: room)
        #expect(first.states() == [.confirmed, .confirmed])
        await first.sender.stop()
        try disk.losePower()
        // The disk shows zwei as its enqueue flushed it: sending.
        #expect(try storedDocument(first.outbox.file).entries.map(\.state) == [.confirmed, .sending])

        // The device started again: another boot.
        let phone = try await AgentOutboxClaimTests.launch(
            directory, room: room, disk: disk, boot: "boot-b", prefix: "p2", start: true)
        #expect(phone.states() == [.confirmed, .failed])
        #expect(phone.outbox.entries.last?.failure == .relaunched)
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed], "its echo confirmed zwei")
        #expect(room.messages.map(\.text) == ["eins", "zwei"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["p1-1", "p1-2"])
        #expect(room.calls.map(\.text) == ["eins", "zwei"], "its echo confirmed zwei; it was not sent again")
        await phone.sender.stop()
    }

    /// Where the phone dies while handing a message to the waiting sender.
    enum CrashPoint: String, CaseIterable, Sendable {
        /// The enqueue's append: the journal is open, nothing written.
        case appendOpened
        /// The record is written, not flushed.
        case appendWrote
        /// The record is flushed; the enqueue has not returned.
        case appendSynced
        /// The append is durable; the enqueue has not returned.
        case appendCommitted
        /// The enqueue returned; the request dies before it reaches the server.
        case beforeArrival
        /// The server stored it; the answer is never saved.
        case afterArrival

        var step: JournaledFile.Step? {
            switch self {
            case .appendOpened: .append(.opened)
            case .appendWrote: .append(.wrote)
            case .appendSynced: .append(.synced)
            case .appendCommitted: .append(.committed)
            case .beforeArrival, .afterArrival: nil
            }
        }
    }

    @Test("a crash while a message is handed to the waiting sender", arguments: CrashPoint.allCases)
    func crashWhileHandingOff(at point: CrashPoint) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = try Disk(directory)
        let room = AgentOutboxFakeRoom()
        let first = try await Self.launch(directory, room: room, disk: disk, prefix: "p1")
        _ = try await Self.sendAlone("eins", first, room: room)
        await waitFor("the sender to wait") { first.sender.isWaiting && first.outbox.pendingChanges == 0 }
        switch point {
        case .beforeArrival: room.script(.dieBeforeArrival { disk.crash(at: .append(.opened)) })
        case .afterArrival: room.script(.storeThen { disk.crash(at: .append(.opened)) })
        default: disk.crash(at: try #require(point.step))
        }
        let queued = try? await first.outbox.enqueue(text: "zwei")
        if point.step != nil {
            #expect(queued == nil, "the process died before the enqueue returned")
        } else {
            #expect(queued?.state == .sending)
            // Its outcome's write is the one that dies.
            await waitFor("zwei's attempt to end") { first.sender.finishedAttempts == 2 && disk.isDead }
        }
        #expect(disk.isDead)
        await first.sender.stop()

        // The next launch: zwei is gone (its record was never written: the composer kept the
        // draft) or fails with Retry; either way it reaches the room at most once, with its id.
        let stored = try storedDocument(first.outbox.file).entries
        let survived = point != .appendOpened
        #expect(stored.map(\.text) == (survived ? ["eins", "zwei"] : ["eins"]))
        if survived { #expect(stored.last?.state == .sending && stored.last?.requestId == "p1-2") }
        let phone = try await AgentOutboxAheadCrashTests.relaunchAndDeliver(directory, room: room)
        #expect(room.messages.map(\.text) == (survived ? ["eins", "zwei"] : ["eins"]), "each once, in order")
        #expect(room.messages.map(\.requestId) == (survived ? ["p1-1", "p1-2"] : ["p1-1"]), "original ids")
        let zweiCalls = room.calls.filter { $0.text == "zwei" }
        #expect(Set(zweiCalls.map(\.requestId)).isSubset(of: ["p1-2"]))
        switch point {
        case .appendOpened: #expect(zweiCalls.isEmpty)
        case .appendWrote, .appendSynced, .appendCommitted: #expect(zweiCalls.count == 1, "sent once, on Retry")
        case .beforeArrival: #expect(zweiCalls.count == 2, "lost on the way, sent again on Retry")
        case .afterArrival: #expect(zweiCalls.count == 1, "its echo confirmed it; not sent again")
        }
        await phone.sender.stop()
    }
}
