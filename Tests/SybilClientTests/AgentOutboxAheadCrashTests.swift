import SybilClient
import SybilCore
import SybilTesting
import SybilWire
import Testing

/// The windows the sender opens by saving the entry behind a request as `sending` while that
/// request is out (and the acknowledgement before it with that write): the phone dies in each,
/// a new process opens the outbox from the same directory, and every message still reaches
/// the room exactly once, in order, with its first request id.
@Suite("Agent outbox crash safety, next saved ahead", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxAheadCrashTests {
    typealias Phone = AgentOutboxSenderTests.Phone

    /// The stored states, as the next launch reads them (before it fails what was sending).
    static func diskStates(_ phone: Phone) -> [AgentOutboxEntry.State] {
        ((try? storedDocument(phone.outbox.file))?.entries ?? []).map(\.state)
    }

    /// Process 2: opens the outbox, merges what the room holds (as its history replay does),
    /// resends what failed with Retry and waits until everything is confirmed.
    static func relaunchAndDeliver(_ directory: OutboxDirectory, room: AgentOutboxFakeRoom) async throws -> Phone {
        let phone = try await Phone.launch(directory, room: room, ids: SequentialIDGenerator(prefix: "p2"))
        #expect(phone.outbox.loadProblems.isEmpty)
        #expect(!phone.outbox.entries.contains { $0.state == .sending }, "a relaunch fails what was sending")
        for entry in phone.outbox.entries where entry.state == .failed {
            #expect(entry.failure == .relaunched && entry.canRetry)
        }
        await phone.merge(room.messages)
        try await phone.outbox.resendAll()
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states().allSatisfy { $0 == .confirmed })
        return phone
    }

    @Test func aCrashWhileARequestIsOutAndTheNextIsSavedAheadSendsBothOnceAfterRelaunch() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = DiskSwitch()
        // "eins" is stored and its answer never comes: the phone dies while it is out.
        room.script(.storeThenHang)
        let first = try await Phone.launch(directory, room: room, disk: disk, start: false)
        for text in ["eins", "zwei", "drei"] { try await first.outbox.enqueue(text: text) }
        first.sender.start()
        await waitFor("zwei saved as sending while eins is out") {
            room.hangingCount == 1 && Self.diskStates(first) == [.sending, .sending, .queued]
        }
        disk.die()
        await first.sender.stop()
        #expect(room.calls.map(\.text) == ["eins"], "zwei never left")

        let phone = try await Self.relaunchAndDeliver(directory, room: room)
        #expect(room.messages.map(\.text) == ["eins", "zwei", "drei"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["req-1", "req-2", "req-3"], "original ids")
        #expect(room.calls.map(\.text) == ["eins", "zwei", "drei"], "eins was confirmed by its echo, not resent")
        await phone.sender.stop()
    }

    @Test func aCrashBeforeAnAcknowledgementIsSavedLosesNothing() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = DiskSwitch()
        // "eins" is acknowledged; "zwei" leaves while that acknowledgement is being saved, is
        // stored, and the phone dies before its answer comes.
        room.script(.store, .storeThen { disk.die() })
        let first = try await Phone.launch(directory, room: room, disk: disk, start: false)
        for text in ["eins", "zwei", "drei"] { try await first.outbox.enqueue(text: text) }
        first.sender.start()
        await waitFor("zwei's attempt to end") { first.sender.finishedAttempts == 2 }
        await first.sender.stop()
        #expect(room.calls.map(\.text) == ["eins", "zwei"], "drei never left")

        let phone = try await Self.relaunchAndDeliver(directory, room: room)
        #expect(room.messages.map(\.text) == ["eins", "zwei", "drei"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["req-1", "req-2", "req-3"], "original ids")
        #expect(room.calls.map(\.text) == ["eins", "zwei", "drei"], "what the room holds was not resent")
        await phone.sender.stop()
    }

    @Test func aFailureBehindWhichTheNextWasSavedAheadPutsItBackUnsent() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.hang)
        let phone = try await Phone.launch(directory, room: room, start: false)
        for text in ["eins", "zwei"] { try await phone.outbox.enqueue(text: text) }
        phone.sender.start()
        await waitFor("zwei saved ahead") {
            room.hangingCount == 1 && phone.outbox.pendingChanges == 0 && phone.states() == [.sending, .sending]
        }
        // eins is cut off (the sender stops): it fails with Retry and holds the queue, and
        // zwei, saved ahead, goes back to queued without having left.
        await phone.sender.stop()
        #expect(phone.states() == [.failed, .queued])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 0])
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.failed, .queued])
        #expect(room.calls.map(\.text) == ["eins"])
    }
}
