import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The phone dies between any two steps of sending a message; a new process opens the outbox
/// from the same directory. Every message reaches the room exactly once, in order, with the
/// request id and `createdAt` it was first given.
@Suite("Agent outbox crash safety", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxCrashTests {
    typealias Phone = AgentOutboxSenderTests.Phone

    enum CrashPoint: String, CaseIterable, Sendable {
        /// Saved as queued; the process dies before it is sent.
        case afterPersistBeforeSend
        /// Saved as sending; the process dies before the request reaches the server.
        case afterSendingSavedBeforeArrival
        /// The server stored it; the process dies before the answer is saved.
        case afterSendBeforeAcknowledgement
        /// The acknowledgement is saved; the process dies before the echo.
        case afterAcknowledgementBeforeEcho
        /// The echo's confirmation is saved; the process dies before the entry is removed.
        case afterEcho
    }

    /// Process 1: "eins" is delivered and confirmed; "zwei" is cut off at `point`. Returns
    /// zwei as first queued.
    private static func firstProcess(
        _ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: DiskSwitch, crashAt point: CrashPoint
    ) async throws -> AgentOutboxEntry {
        let phone = try await Phone.launch(directory, room: room, disk: disk, ids: SequentialIDGenerator(prefix: "p1"))
        try await phone.outbox.enqueue(text: "eins")
        await phone.settle()
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed])

        switch point {
        case .afterPersistBeforeSend:
            await phone.sender.stop()
        case .afterSendingSavedBeforeArrival:
            room.script(.dieBeforeArrival { disk.die() })
        case .afterSendBeforeAcknowledgement:
            room.script(.storeThen { disk.die() })
        case .afterAcknowledgementBeforeEcho, .afterEcho:
            break
        }
        let zwei = try await phone.outbox.enqueue(text: "zwei", attachments: [agentAttachment("u1")])
        switch point {
        case .afterPersistBeforeSend:
            disk.die()
        case .afterSendingSavedBeforeArrival, .afterSendBeforeAcknowledgement:
            await waitFor("the attempt to end") { phone.sender.finishedAttempts == 2 }
        case .afterAcknowledgementBeforeEcho:
            await phone.settle()
            disk.die()
        case .afterEcho:
            await phone.settle()
            await phone.merge(room.messages)
            #expect(phone.outbox.entry(zwei.requestId)?.state == .confirmed)
            disk.die()
        }
        // Whatever process 1 still does cannot reach the disk.
        await phone.sender.stop()
        return zwei
    }

    /// What the disk says about zwei after `point`, read by the next launch.
    private static func stateAfterRelaunch(_ point: CrashPoint) -> AgentOutboxEntry.State {
        switch point {
        case .afterPersistBeforeSend: .queued
        case .afterSendingSavedBeforeArrival, .afterSendBeforeAcknowledgement: .failed
        case .afterAcknowledgementBeforeEcho: .awaitingEcho
        case .afterEcho: .confirmed
        }
    }

    @Test("crash, relaunch, deliver each message once", arguments: CrashPoint.allCases)
    func crashAndRelaunch(at point: CrashPoint) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let zwei = try await Self.firstProcess(directory, room: room, disk: DiskSwitch(), crashAt: point)

        // Process 2.
        let phone = try await Phone.launch(
            directory, room: room, ids: SequentialIDGenerator(prefix: "p2"), start: false)
        #expect(phone.outbox.loadProblems.isEmpty)
        let reloaded = try #require(phone.outbox.entry(zwei.requestId), "zwei survived")
        #expect(reloaded.state == Self.stateAfterRelaunch(point))
        #expect(reloaded.submission == zwei.submission, "same request id, text, createdAt and attachments")
        if reloaded.state == .failed {
            #expect(reloaded.failure == .relaunched && reloaded.canRetry)
        }
        // The room replays what came after the last message it merged ("eins").
        phone.sender.start()
        await phone.merge(Array(room.messages.dropFirst()))
        if phone.outbox.entry(zwei.requestId)?.state == .failed {
            // No echo came: the request never arrived. Retry sends it with its id.
            #expect(point == .afterSendingSavedBeforeArrival)
            try await phone.outbox.retry(zwei.requestId)
        }
        let drei = try await phone.outbox.enqueue(text: "drei")
        await phone.settle()
        await phone.merge(Array(room.messages.dropFirst()))
        #expect(phone.outbox.entries.allSatisfy { $0.state == .confirmed })

        #expect(room.messages.map(\.text) == ["eins", "zwei", "drei"], "each once, in order")
        #expect(room.messages.map(\.requestId) == ["p1-1", zwei.requestId, drei.requestId], "original ids")
        #expect(room.messages[1].createdAt == zwei.createdAt)
        #expect(
            Set(room.calls.filter { $0.text == "zwei" }.map(\.requestId)) == [zwei.requestId],
            "zwei never went out with another id")
        let zweiCalls = room.calls.filter { $0.text == "zwei" }.count
        #expect(zweiCalls == (point == .afterSendingSavedBeforeArrival ? 2 : 1))
        try await phone.outbox.removeConfirmed()
        #expect(phone.outbox.entries.isEmpty)
        await phone.sender.stop()
    }

    @Test("a crash while the relaunch saves its changes loses nothing", arguments: AtomicFile.Step.allCases)
    func crashDuringRelaunch(at step: AtomicFile.Step) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let zwei = try await Self.firstProcess(
            directory, room: room, disk: DiskSwitch(), crashAt: .afterSendBeforeAcknowledgement)

        // The next launch dies while saving "zwei failed with Retry".
        struct Died: Error {}
        await #expect(throws: AgentOutboxError.self) {
            _ = try await AgentOutbox.open(
                directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "dead"),
                now: outboxNow, checkpoint: { if $0 == step { throw Died() } })
        }

        // The one after that finds zwei intact, whichever step the previous one reached.
        let phone = try await Phone.launch(
            directory, room: room, ids: SequentialIDGenerator(prefix: "p3"), start: false)
        #expect(phone.outbox.loadProblems.isEmpty)
        let reloaded = try #require(phone.outbox.entry(zwei.requestId))
        #expect(reloaded.state == .failed && reloaded.failure == .relaunched)
        #expect(reloaded.submission == zwei.submission)
        #expect(phone.outbox.entries.map(\.text) == ["eins", "zwei"])
        // Retry before the echo arrives: the server answers with the same receipt.
        phone.sender.start()
        try await phone.outbox.retry(zwei.requestId)
        await phone.settle()
        #expect(phone.outbox.entry(zwei.requestId)?.state == .awaitingEcho)
        await phone.merge(Array(room.messages.dropFirst()))
        #expect(phone.outbox.entry(zwei.requestId)?.state == .confirmed)
        #expect(room.messages.map(\.text) == ["eins", "zwei"], "no second message")
        #expect(room.calls.filter { $0.text == "zwei" }.map(\.requestId) == [zwei.requestId, zwei.requestId])
        await phone.sender.stop()
    }

    @Test func aDraftHandedOverBeforeACrashIsNotQueuedTwice() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let disk = DiskSwitch()
        let first = try await Phone.launch(directory, room: room, disk: disk, start: false)
        let entry = try await first.outbox.enqueue(
            text: "caption", attachments: [agentAttachment("u1")], draftId: "draft-1")
        disk.die()  // before the draft could delete its manifest

        let second = try await Phone.launch(
            directory, room: room, ids: SequentialIDGenerator(prefix: "p2"), start: false)
        #expect(second.outbox.contains(draftId: "draft-1"), "the draft sees it was handed over")
        // A handoff that runs again anyway gets the same entry.
        let again = try await second.outbox.enqueue(
            text: "caption", attachments: [agentAttachment("u1")], draftId: "draft-1")
        #expect(again == entry)
        #expect(second.outbox.entries == [entry])
        second.sender.start()
        await second.settle()
        await second.merge(room.messages)
        try await second.outbox.removeConfirmed()
        await second.sender.stop()
        // Even after the entry left, the draft is known: never sent twice.
        let third = try await openOutbox(directory, ids: SequentialIDGenerator(prefix: "p3"))
        #expect(third.contains(draftId: "draft-1"))
        await #expect(throws: AgentOutboxError.draftAlreadySent("draft-1")) {
            try await third.enqueue(text: "caption", draftId: "draft-1")
        }
        #expect(room.messages.map(\.requestId) == [entry.requestId])
    }
}
