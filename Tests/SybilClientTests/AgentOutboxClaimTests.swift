import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilClient

/// While a claim of the running boot is open, `sending` states are written without `fsync`: a
/// process that dies keeps them, only a restart of the device can lose them, and a launch in
/// another boot that finds the claim open fails every queued entry with Retry as well.
@Suite("Agent outbox claim: sending states written without fsync within one boot", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxClaimTests {
    typealias Disk = AgentOutboxHandOffTests.Disk
    typealias Phone = AgentOutboxSenderTests.Phone

    static func launch(
        _ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: Disk, boot: String?, prefix: String = "req",
        start: Bool = false
    ) async throws -> Phone {
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: prefix), now: outboxNow,
            journalCheckpoint: disk.checkpoint, boot: boot)
        let sender = AgentOutboxSender(outbox: outbox, api: room)
        if start { sender.start() }
        return Phone(outbox: outbox, sender: sender)
    }

    static func journal(_ directory: OutboxDirectory) throws -> String {
        let path = directory.path + "/" + (try AgentOutboxScope(baseURL: outboxBase)).fileName + ".journal"
        return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
    }

    /// Five messages queued while the sender is stopped, then delivered; the fsyncs of the
    /// delivery, and the state each message had on disk when it left.
    func deliverFive(boot: String?) async throws -> (fsyncs: Int, statesWhenSent: [AgentOutboxEntry.State?]) {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = try Disk(directory)
        let path = directory.path + "/" + (try AgentOutboxScope(baseURL: outboxBase)).fileName
        let seen = Locked<[AgentOutboxEntry.State?]>([])
        let room = AgentOutboxFakeRoom { submission in
            let document = (try? AgentOutboxFile.storedDocument(at: path)).flatMap { $0 }.flatMap {
                try? AgentOutboxDocument.decode($0)
            }
            let state = document?.document.entries.first { $0.requestId == submission.requestId }?.state
            seen.withLock { $0.append(state) }
        }
        let phone = try await Self.launch(directory, room: room, disk: disk, boot: boot)
        for text in ["eins", "zwei", "drei", "vier", "fünf"] { try await phone.outbox.enqueue(text: text) }
        #expect(phone.states() == Array(repeating: .queued, count: 5))
        let before = disk.fsyncs
        phone.sender.start()
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states() == Array(repeating: .confirmed, count: 5))
        #expect(room.calls.map(\.text) == ["eins", "zwei", "drei", "vier", "fünf"])
        let fsyncs = disk.fsyncs - before
        let claims = try Self.journal(directory).components(separatedBy: #""claim":""#).count - 1
        #expect(claims == (fsyncs == 1 ? 1 : 0), "one claim opened for the whole delivery, or none")
        await phone.sender.stop()
        return (fsyncs, seen.withLock { $0 })
    }

    @Test func messagesQueuedWhileTheSenderIsStoppedAreDeliveredWithOneFsyncForAll() async throws {
        let claimed = try await deliverFive(boot: "boot-a")
        #expect(claimed.fsyncs == 1, "the write that opens the claim; the other sending states are not flushed")
        #expect(
            claimed.statesWhenSent == Array(repeating: .sending, count: 5), "each written as sending before it left")
        // Where the system names no boot (or a name the journal could not read back), every
        // sending state is flushed (one per message).
        for boot in [nil, "", String(repeating: "b", count: AgentOutboxJournal.maxClaimBytes + 1)] {
            let unnamed = try await deliverFive(boot: boot)
            #expect(unnamed.fsyncs == 5, "\(String(describing: boot))")
            #expect(unnamed.statesWhenSent == Array(repeating: .sending, count: 5))
        }
    }

    /// Four messages queued while stopped; `eins` is acknowledged, `zwei` is stored by the
    /// server and its answer never comes, `drei` is saved ahead of its turn; then the phone dies.
    func dieWhileSending(_ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: Disk) async throws {
        room.script(.store, .storeThenHang)
        let phone = try await Self.launch(directory, room: room, disk: disk, boot: "boot-a", prefix: "p1")
        for text in ["eins", "zwei", "drei", "vier"] { try await phone.outbox.enqueue(text: text) }
        phone.sender.start()
        await waitFor("zwei out, drei saved ahead") {
            room.hangingCount == 1 && phone.outbox.pendingChanges == 0 && phone.outbox.entry("p1-3")?.state == .sending
        }
        #expect(phone.states() == [.awaitingEcho, .sending, .sending, .queued])
        disk.die()
        await phone.sender.stop()
        #expect(room.calls.map(\.text) == ["eins", "zwei"])
    }

    @Test func anAppThatDiesWhileSendingFailsOnlyWhatWasSendingOnRelaunch() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        try await dieWhileSending(directory, room: room, disk: try Disk(directory))
        // Same boot: the kernel kept every write, flushed or not.
        let phone = try await Self.launch(
            directory, room: room, disk: try Disk(directory), boot: "boot-a", prefix: "p2")
        #expect(phone.states() == [.awaitingEcho, .failed, .failed, .queued])
        #expect(phone.outbox.entries.map(\.failure) == [nil, .relaunched, .relaunched, nil])
        phone.sender.start()
        await phone.merge(room.messages)
        try await phone.outbox.resendAll()
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed, .confirmed, .confirmed])
        #expect(room.messages.map(\.text) == ["eins", "zwei", "drei", "vier"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["p1-1", "p1-2", "p1-3", "p1-4"])
        await phone.sender.stop()
    }

    @Test("a device that restarts while sending fails every queued message with Retry", arguments: ["boot-b", nil])
    func aDeviceThatRestartsWhileSendingFailsEveryQueuedMessageWithRetry(boot: String?) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = try Disk(directory)
        try await dieWhileSending(directory, room: room, disk: disk)
        try disk.losePower()
        // The disk holds the write that opened the claim: eins sending, the others queued; that
        // zwei left (and drei was saved ahead) was not flushed.
        let path = directory.path + "/" + (try AgentOutboxScope(baseURL: outboxBase)).fileName
        let stored = try AgentOutboxDocument.decode(try #require(try AgentOutboxFile.storedDocument(at: path)))
        #expect(stored.document.entries.map(\.state) == [.sending, .queued, .queued, .queued])
        // Another boot, or one this system cannot name: what was not flushed may be lost.
        let phone = try await Self.launch(directory, room: room, disk: try Disk(directory), boot: boot, prefix: "p2")
        #expect(phone.states() == [.failed, .failed, .failed, .failed])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 1, 1, 1], "each counts the attempt that may have left")
        // The failures are saved as a launch reads them back.
        let again = try await Self.launch(directory, room: room, disk: try Disk(directory), boot: boot, prefix: "p3")
        #expect(again.outbox.loadProblems.isEmpty)
        #expect(again.outbox.entries == phone.outbox.entries)
        #expect(
            phone.outbox.entries.map(\.failure)
                == [.relaunched, .restartedWhileSending, .restartedWhileSending, .restartedWhileSending])
        #expect(phone.outbox.entries.allSatisfy { $0.canRetry })
        phone.sender.start()
        await phone.settle()
        #expect(room.calls.count == 2, "nothing leaves before Retry")
        // The room's history confirms what arrived (zwei too); Resend all sends the rest once.
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed, .failed, .failed])
        try await phone.outbox.resendAll()
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed, .confirmed, .confirmed])
        #expect(room.messages.map(\.text) == ["eins", "zwei", "drei", "vier"], "each once, in order")
        #expect(room.calls.map(\.text) == ["eins", "zwei", "drei", "vier"])
        await phone.sender.stop()
    }

    @Test func aCompactionWhileSendingClosesTheClaimSoTheNextSendingStateIsFlushedWithANewOne() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = try Disk(directory)
        room.script(.store, .store, .storeThenHang)
        let first = try await Self.launch(directory, room: room, disk: disk, boot: "boot-a", prefix: "p1")
        let texts = ["eins", "zwei", "drei", "vier", "fünf", "sechs"]
        for text in texts { try await first.outbox.enqueue(text: text) }
        first.sender.start()
        await waitFor("drei out, vier saved ahead") {
            room.hangingCount == 1 && first.outbox.pendingChanges == 0 && first.outbox.entry("p1-4")?.state == .sending
        }
        // The snapshot holds every state as of now, flushed, and no claim.
        try await first.outbox.compact()
        let fsyncsBefore = disk.fsyncs
        room.release()
        await first.settle()
        #expect(first.states() == Array(repeating: .awaitingEcho, count: 6))
        #expect(disk.fsyncs - fsyncsBefore == 1, "the first sending state after the compaction opens a new claim")
        #expect(try Self.journal(directory).contains(#""claim":"boot-a""#))
        await first.sender.stop()
        try disk.losePower()
        let phone = try await Self.launch(directory, room: room, disk: disk, boot: "boot-b", prefix: "p2", start: true)
        await phone.settle([.failed, .awaitingEcho])
        #expect(!phone.states().contains(.queued), "nothing that may have left is queued to go out by itself")
        #expect(room.calls.map(\.text) == texts, "nothing was sent again before Retry")
        await phone.merge(room.messages)
        #expect(phone.states() == Array(repeating: .confirmed, count: 6))
        #expect(room.messages.map(\.text) == texts)
        await phone.sender.stop()
    }

    @Test func aRestartAfterAFailureClosedTheClaimKeepsQueuedMessagesQueued() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = try Disk(directory)
        room.script(.fail(.transport("the network is down")))
        let first = try await Self.launch(directory, room: room, disk: disk, boot: "boot-a", prefix: "p1")
        for text in ["eins", "zwei"] { try await first.outbox.enqueue(text: text) }
        first.sender.start()
        await first.settle([.failed, .queued])
        await waitFor("the failure saved") { first.outbox.pendingChanges == 0 && first.states() == [.failed, .queued] }
        await first.sender.stop()
        #expect(try Self.journal(directory).contains(#""claim":null"#), "the flushed failure closed the claim")
        try disk.losePower()
        let phone = try await Self.launch(directory, room: room, disk: disk, boot: "boot-b", prefix: "p2")
        #expect(phone.states() == [.failed, .queued])
        #expect(phone.outbox.entries.first?.failure?.kind == .interrupted)
        #expect(phone.outbox.entries.first?.failure != .relaunched, "its own failure, as saved")
        #expect(phone.outbox.entries.last?.failure == nil)
    }

    /// In boot "boot-a": `eins` is sent as typed and confirmed, then the sender stops; the
    /// claim its sending opened is still open.
    static func deliverOneAndStop(_ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: Disk) async throws {
        let first = try await launch(directory, room: room, disk: disk, boot: "boot-a", prefix: "p1", start: true)
        try await first.outbox.enqueue(text: "eins")
        await first.settle()
        await first.merge(room.messages)
        await first.sender.stop()
        #expect(first.states() == [.confirmed])
        #expect(!(try journal(directory).contains(#""claim":null"#)), "the claim is still open")
    }

    @Test func aLaunchInTheSameBootKeepsTheClaimAndTheNextFlushedWriteClosesIt() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = try Disk(directory)
        try await Self.deliverOneAndStop(directory, room: room, disk: disk)
        // The app starts again in the same boot: the journal is whole, nothing is written.
        let journal = try Self.journal(directory)
        let appends = disk.appends
        let second = try await Self.launch(directory, room: room, disk: disk, boot: "boot-a", prefix: "p2")
        #expect(second.states() == [.confirmed])
        let journalAfter = try Self.journal(directory)
        #expect(disk.appends == appends && journalAfter == journal, "a launch costs no write")
        // A message queued while nothing sends is flushed, and that write closes the claim.
        try await second.outbox.enqueue(text: "zwei")
        #expect(try Self.journal(directory).hasSuffix(#""claim":null}"#))
        try disk.losePower()
        let third = try await Self.launch(directory, room: room, disk: disk, boot: "boot-b", prefix: "p3")
        #expect(third.states() == [.confirmed, .queued], "zwei was queued while nothing was sending")
        #expect(third.outbox.entries.last?.failure == nil)
    }

    @Test func aLaunchInAnotherBootClosesTheClaimItFindsBeforeAnythingElse() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = try Disk(directory)
        try await Self.deliverOneAndStop(directory, room: room, disk: disk)
        let fsyncs = disk.fsyncs
        let second = try await Self.launch(directory, room: room, disk: disk, boot: "boot-b", prefix: "p2")
        #expect(second.states() == [.confirmed])
        #expect(try Self.journal(directory).hasSuffix(#"{"claim":null}"#), "closed by a record of its own")
        #expect(disk.fsyncs == fsyncs + 1, "flushed")
        // Queued now, with the claim closed: a later restart keeps it queued.
        try await second.outbox.enqueue(text: "zwei")
        try disk.losePower()
        let third = try await Self.launch(directory, room: room, disk: disk, boot: "boot-c", prefix: "p3")
        #expect(third.states() == [.confirmed, .queued])
    }

    @Test func aClaimIsABootIdOrNullAndAnythingElseIsRefusedNamingItsPath() throws {
        let snapshot = AgentOutboxDocument(baseURL: outboxBase.absoluteString).encoded()
        func records(_ texts: String...) -> [[UInt8]] { texts.map { Array($0.utf8) } }
        #expect(AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{"claim":"b1"}"#)).claim == "b1")
        #expect(
            AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{"claim":"b1"}"#, #"{"claim":null}"#))
                .claim == nil)
        #expect(
            AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{"claim":"b1"}"#, #"{"claim":"b2"}"#))
                .claim == "b2")
        #expect(AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{}"#)).claim == nil)
        let tooLong = String(repeating: "b", count: AgentOutboxJournal.maxClaimBytes + 1)
        let longest = String(repeating: "b", count: AgentOutboxJournal.maxClaimBytes)
        #expect(
            AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{"claim":"\#(longest)"}"#)).claim
                == longest)
        for bad in [#"{"claim":5}"#, #"{"claim":""}"#, #"{"claim":true}"#, #"{"claim":"\#(tooLong)"}"#] {
            let merged = AgentOutboxJournal.merged(snapshot: snapshot, records: records(#"{"claim":"b1"}"#, bad))
            #expect(
                merged.problem?.description.contains("journal[1].claim") == true,
                "\(bad): \(String(describing: merged.problem))")
            #expect(merged.claim == "b1", "the refused record changes nothing")
            #expect(!AgentOutboxJournal.isFolded(records(bad), into: snapshot), "\(bad)")
        }
        #expect(AgentOutboxJournal.isFolded(records(#"{"claim":null}"#, #"{"claim":"b1"}"#), into: snapshot))
    }
}
