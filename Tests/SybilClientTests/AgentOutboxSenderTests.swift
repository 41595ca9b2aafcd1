import Foundation
import SybilClient
import SybilCore
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// The sender over a fake room that answers only submissions.
@Suite("Agent outbox sender", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxSenderTests {
    /// An outbox and its sender in `directory`, sending to `room`.
    @MainActor
    struct Phone {
        let outbox: AgentOutbox
        let sender: AgentOutboxSender

        static func launch(
            _ directory: OutboxDirectory, room: AgentOutboxFakeRoom, disk: DiskSwitch = DiskSwitch(),
            ids: any IDGenerator = SequentialIDGenerator(prefix: "req"), start: Bool = true
        ) async throws -> Phone {
            let outbox = try await openOutbox(directory, ids: ids, disk: disk)
            let sender = AgentOutboxSender(outbox: outbox, api: room)
            if start { sender.start() }
            return Phone(outbox: outbox, sender: sender)
        }

        func states() -> [AgentOutboxEntry.State] { outbox.entries.map(\.state) }

        /// Waits until every entry is in one of `states`.
        func settle(
            _ states: Set<AgentOutboxEntry.State> = [.awaitingEcho, .confirmed, .failed],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async {
            await waitFor("the outbox to settle", sourceLocation: sourceLocation) {
                outbox.pendingChanges == 0 && outbox.entries.allSatisfy { states.contains($0.state) }
            }
        }

        /// Merges the room's canonical messages, as the room model does.
        func merge(_ messages: [AgentRoomMessage], sourceLocation: SourceLocation = #_sourceLocation) async {
            for message in messages { sender.messageMerged(message) }
            await waitFor("the confirmations to be saved", sourceLocation: sourceLocation) {
                sender.pendingConfirmations == 0
            }
        }
    }

    @Test func queuedMessagesGoOutInOrderOneAtATimeEachSavedFirst() async throws {
        // Each is saved as sending before it leaves; the one behind it is marked sending while
        // it is out, in the write that also saves the acknowledgement before it.
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        // What was on disk when each submission left.
        let seen = Locked<[[AgentOutboxEntry.State]]>([])
        let scope = try AgentOutboxScope(baseURL: outboxBase)
        let path = directory.path + "/" + scope.fileName
        let room = AgentOutboxFakeRoom { _ in
            let document = (try? AgentOutboxFile.storedDocument(at: path)).flatMap { $0 }.flatMap {
                try? AgentOutboxDocument.decode($0)
            }
            seen.withLock { $0.append(document?.document.entries.map(\.state) ?? []) }
        }
        room.script(.hang, .hang, .hang)
        let phone = try await Phone.launch(directory, room: room, start: false)
        for text in ["one", "two", "three"] { try await phone.outbox.enqueue(text: text) }
        phone.sender.start()
        for index in 1...3 {
            // The request task sends the entry saved ahead as soon as the one before is
            // acknowledged; the sender takes it as in flight when it learns of that.
            await waitFor("submission \(index)") {
                room.hangingCount == 1 && room.calls.count == index && phone.sender.inFlight == "req-\(index)"
            }
            await waitFor("the write made while it is out") { phone.outbox.pendingChanges == 0 }
            // That write marks the entry behind it sending and saves the acknowledgement before
            // it; with nothing queued behind (req-3), there is no such write, and the
            // acknowledgement is saved with req-3's outcome.
            let expected: [[AgentOutboxEntry.State]] = [
                [.sending, .sending, .queued], [.awaitingEcho, .sending, .sending],
                [.awaitingEcho, .sending, .sending],
            ]
            #expect(phone.states() == expected[index - 1])
            #expect(phone.outbox.nextAction == .inFlight(requestId: index == 3 ? "req-2" : "req-\(index)"))
            room.release()
        }
        await phone.settle()
        #expect(room.calls.map(\.requestId) == ["req-1", "req-2", "req-3"])
        #expect(room.messages.map(\.text) == ["one", "two", "three"])
        // On disk as each left: itself sending; the one before it acknowledged or (its
        // acknowledgement is saved while this one is out) still sending; the one behind it
        // queued or already marked sending.
        let disk = seen.withLock { $0 }
        try #require(disk.count == 3)
        #expect(disk[0][0] == .sending && disk[0][2] == .queued && [.queued, .sending].contains(disk[0][1]))
        #expect([.awaitingEcho, .sending].contains(disk[1][0]) && disk[1][1] == .sending)
        #expect([.queued, .sending].contains(disk[1][2]))
        #expect(
            disk[2][0] == .awaitingEcho && [.awaitingEcho, .sending].contains(disk[2][1]) && disk[2][2] == .sending)
        #expect(phone.states() == [.awaitingEcho, .awaitingEcho, .awaitingEcho])
        #expect(phone.outbox.entries.map(\.attempts) == [1, 1, 1])
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed, .confirmed, .confirmed])
        #expect(try await phone.outbox.removeConfirmed().count == 3)
        #expect(phone.outbox.entries.isEmpty)
        #expect(try storedDocument(phone.outbox.file).entries.isEmpty)
        await phone.sender.stop()
    }

    @Test func aMessageQueuedLaterIsSentWhenItsTurnComes() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "one")
        await phone.settle()
        try await phone.outbox.enqueue(text: "two", attachments: [agentAttachment("u1"), agentAttachment("u2")])
        await phone.settle()
        #expect(room.calls.map(\.text) == ["one", "two"])
        #expect(room.calls[1].attachments == ["u1", "u2"])
        #expect(phone.states() == [.awaitingEcho, .awaitingEcho])
        await phone.sender.stop()
        #expect(!phone.sender.isRunning)
    }

    @Test(
        "an ambiguous failure stays failed with Retry and holds the queue",
        arguments: [
            AgentRoomError.transport("the connection was reset"), roomRejection(500, "internal", "The server failed."),
            roomRejection(502, "bad_gateway", "Bad gateway."),
            .malformedAnswer("$.receipt: required member is missing"),
        ])
    func anAmbiguousFailureIsNotRetriedAutomatically(_ error: AgentRoomError) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.fail(error))
        let phone = try await Phone.launch(directory, room: room, start: false)
        let first = try await phone.outbox.enqueue(text: "First question")
        try await phone.outbox.enqueue(text: "second")
        phone.sender.start()
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        #expect(phone.states() == [.failed, .queued])
        let failed = try #require(phone.outbox.entry(first.requestId))
        #expect(failed.failure == .from(error) && failed.canRetry)
        #expect(phone.outbox.holdReason == "Waiting: “First question” failed — Retry or Resend all.")
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.failed, .queued])
        // Nothing more happens by itself: the sender waits for a change.
        #expect(phone.sender.inFlight == nil && room.calls.count == 1)

        try await phone.outbox.retry(first.requestId)
        await phone.settle()
        #expect(room.calls.map(\.requestId) == [first.requestId, first.requestId, "req-2"])
        #expect(room.calls[0] == room.calls[1], "the same request id, text and createdAt")
        #expect(phone.states() == [.awaitingEcho, .awaitingEcho])
        #expect(phone.outbox.entry(first.requestId)?.attempts == 2)
        #expect(phone.outbox.holdReason == nil)
        await phone.sender.stop()
    }

    @Test(
        "a final refusal keeps the server's message and code and needs Discard",
        arguments: [
            roomRejection(
                400, "unknown_upload", "Attachment u1 was never uploaded; upload it with POST agent/uploads first."),
            roomRejection(409, "request_conflict", "Request req-1 was already used for a different message."),
            roomRejection(413, "too_large", "The message is too large."),
        ])
    func aFinalRefusalNeedsDiscard(_ error: AgentRoomError) async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.fail(error))
        let phone = try await Phone.launch(directory, room: room, start: false)
        try await phone.outbox.enqueue(text: "refused", attachments: [agentAttachment("u1")])
        try await phone.outbox.enqueue(text: "after it")
        phone.sender.start()
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        let failure = try #require(phone.outbox.entry("req-1")?.failure)
        #expect(failure.kind == .refused && failure.status == error.status && failure.code == error.code)
        guard case .rejected(_, let body, _) = error else { return }
        #expect(failure.message == body.message)
        #expect(failure.description.hasSuffix("Sending it again cannot succeed; Discard it and write a new message."))
        #expect(phone.outbox.holdReason == "Waiting: “refused” was not accepted — Discard it to send the rest.")
        await #expect(throws: AgentOutboxError.notRetryable(requestId: "req-1")) {
            try await phone.outbox.retry("req-1")
        }
        #expect(try await phone.outbox.resendAll().isEmpty)
        let discarded = try await phone.outbox.discard("req-1")
        #expect(discarded.text == "refused" && discarded.attachments == [agentAttachment("u1")])
        await phone.settle()
        #expect(room.calls.map(\.text) == ["refused", "after it"])
        #expect(phone.outbox.entries.map(\.text) == ["after it"])
        await phone.sender.stop()
    }

    @Test func rateLimitingShowsTheWaitAndIsNotRetriedAutomatically() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(
            .fail(
                roomRejection(
                    429, "rate_limited", "Too many messages; retry in 30 seconds.", retryAfter: 30,
                    details: ["retryAfterSeconds": 30])))
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "hello")
        await phone.settle()
        let failure = try #require(phone.outbox.entry("req-1")?.failure)
        #expect(failure.kind == .rateLimited && failure.retryAfterSeconds == 30)
        #expect(
            failure.description == "Too many messages; retry in 30 seconds (HTTP 429, rate_limited). Retry after 30 s.")
        #expect(room.calls.count == 1)
        // The reason survives a relaunch.
        await phone.sender.stop()
        let again = try await openOutbox(directory)
        #expect(again.entry("req-1")?.failure == failure)
    }

    @Test func unavailableAndQuotaFailuresKeepTheirMessageAndQuota() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let quota: JSONObject = ["quota": ["usedBytes": 1_073_741_824, "limitBytes": 1_073_741_824]]
        room.script(
            .fail(
                roomRejection(
                    503, "open_proxy_unavailable", "Attachments are unavailable right now; text messages still work.",
                    retryAfter: 30)),
            .fail(roomRejection(507, "quota_exceeded", "Your attachment storage is full.", details: quota)))
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "with a file", attachments: [agentAttachment("u1")])
        await phone.settle()
        let unavailable = try #require(phone.outbox.entry("req-1")?.failure)
        #expect(unavailable.kind == .unavailable && unavailable.code == "open_proxy_unavailable")
        #expect(unavailable.retryAfterSeconds == 30)
        #expect(
            unavailable.description
                == "Attachments are unavailable right now; text messages still work (HTTP 503, open_proxy_unavailable). Retry after 30 s."
        )
        try await phone.outbox.retry("req-1")
        await waitFor("the second attempt") { phone.sender.finishedAttempts == 2 && phone.outbox.pendingChanges == 0 }
        let full = try #require(phone.outbox.entry("req-1")?.failure)
        #expect(full.kind == .unavailable && full.status == 507)
        #expect(full.quota == AgentQuota(usedBytes: 1_073_741_824, limitBytes: 1_073_741_824))
        #expect(phone.outbox.entry("req-1")?.attempts == 2)
        await phone.sender.stop()
    }

    @Test func aReceiptForOtherAttachmentsFailsAndALaterEchoStillConfirms() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(
            .storeAndAnswer { receipt in
                var swapped = receipt
                swapped.attachments.reverse()
                return swapped
            })
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "two files", attachments: [agentAttachment("u1"), agentAttachment("u2")])
        try await phone.outbox.enqueue(text: "next")
        await phone.settle([.failed, .queued])
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        let failure = try #require(phone.outbox.entry("req-1")?.failure)
        #expect(failure.kind == .unacknowledged)
        #expect(
            failure.description
                == "The server acknowledged attachments [\"u2\", \"u1\"] but the message has [\"u1\", \"u2\"]. It may be incomplete; Discard it, or wait for the room to show it."
        )
        #expect(phone.outbox.holdReason == "Waiting: “two files” was not accepted — Discard it to send the rest.")
        // The room shows the canonical message: it confirms the entry and the queue moves on.
        await phone.merge([try #require(room.echo(of: "req-1"))])
        #expect(phone.outbox.entry("req-1")?.state == .confirmed)
        await phone.settle()
        #expect(room.calls.map(\.text) == ["two files", "next"])
        await phone.sender.stop()
    }

    @Test func aLostAcknowledgementIsRetriedWithTheSameIdAndTheRoomHoldsOneMessage() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.storeThenLoseAnswer)
        let phone = try await Phone.launch(directory, room: room)
        let entry = try await phone.outbox.enqueue(text: "hello")
        await phone.settle()
        #expect(phone.outbox.entry(entry.requestId)?.failure?.kind == .interrupted)
        #expect(room.messages.count == 1, "the server stored it; only the answer was lost")
        try await phone.outbox.retry(entry.requestId)
        await waitFor("the retry to end") { phone.sender.finishedAttempts == 2 && phone.outbox.pendingChanges == 0 }
        #expect(phone.outbox.entry(entry.requestId)?.state == .awaitingEcho)
        #expect(room.calls.map(\.requestId) == [entry.requestId, entry.requestId])
        #expect(room.messages.count == 1, "no second message")
        #expect(
            phone.outbox.entry(entry.requestId)?.acknowledgement
                == .init(messageId: "msg-1", cursor: room.messages[0].cursor))
        await phone.sender.stop()
    }

    @Test func theEchoConfirmsAnEntryWhoseAcknowledgementWasLost() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.storeThenLoseAnswer)
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "lost answer")
        try await phone.outbox.enqueue(text: "behind it")
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        #expect(phone.states() == [.failed, .queued])
        await phone.merge(room.messages)
        #expect(phone.outbox.entry("req-1")?.state == .confirmed)
        await phone.settle()
        #expect(room.calls.map(\.text) == ["lost answer", "behind it"], "never sent again")
        #expect(phone.states() == [.confirmed, .awaitingEcho])
        await phone.sender.stop()
    }

    @Test func anEchoMergedWhileTheRequestIsStillOutConfirmsIt() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.storeThenHang)
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "fast echo")
        await waitFor("the submission") { room.hangingCount == 1 }
        await phone.merge(room.messages)
        #expect(phone.states() == [.confirmed])
        room.release()
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        #expect(phone.states() == [.confirmed], "the late receipt changes nothing")
        await phone.sender.stop()
    }

    @Test func historyPastAnAcknowledgedMessageConfirmsItWithoutItsEcho() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "hello")
        await phone.settle()
        let ack = try #require(phone.outbox.entry("req-1")?.acknowledgement)
        // The echo was merged in an earlier launch; now an older message arrives: nothing.
        let older = AgentRoomMessage(
            messageId: "msg-0", cursor: AgentCursor("c-000000")!, role: .assistant, visibility: .public, text: "hi",
            createdAt: 1)
        await phone.merge([older])
        #expect(phone.states() == [.awaitingEcho])
        let reply = AgentRoomMessage(
            messageId: "msg-2", cursor: AgentCursor("c-000002")!, role: .assistant, visibility: .public,
            text: "Two failures.", createdAt: 2)
        #expect(reply.cursor > ack.cursor)
        await phone.merge([reply])
        #expect(phone.states() == [.confirmed])
        #expect(phone.sender.mergedThrough == reply.cursor)
        await phone.sender.stop()
    }

    @Test func resendAllSendsTheFailedEntryAndEverythingBehindItInOrder() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.fail(.transport("offline")))
        let phone = try await Phone.launch(directory, room: room, start: false)
        for text in ["one", "two", "three"] { try await phone.outbox.enqueue(text: text) }
        phone.sender.start()
        await waitFor("the attempt to end") { phone.sender.finishedAttempts == 1 && phone.outbox.pendingChanges == 0 }
        #expect(phone.states() == [.failed, .queued, .queued])
        #expect(try await phone.outbox.resendAll() == ["req-1"])
        await phone.settle()
        #expect(room.calls.map(\.requestId) == ["req-1", "req-1", "req-2", "req-3"])
        #expect(room.messages.map(\.text) == ["one", "two", "three"])
        await phone.sender.stop()
    }

    @Test func stoppingMidSendLeavesTheEntryFailedWithRetry() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.hang)
        let phone = try await Phone.launch(directory, room: room)
        try await phone.outbox.enqueue(text: "cut off")
        await waitFor("the submission") { room.hangingCount == 1 }
        await phone.sender.stop()
        #expect(phone.states() == [.failed])
        #expect(phone.outbox.entry("req-1")?.failure?.kind == .interrupted)
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == [.failed])
    }

    /// An outbox in `directory` whose writes pass `gate`, holding `texts` queued, and its sender
    /// (not started) over `room`.
    static func gatedSender(
        _ directory: OutboxDirectory, gate: WriteGate, room: AgentOutboxFakeRoom, queuing texts: [String]
    ) async throws -> (outbox: AgentOutbox, sender: AgentOutboxSender) {
        let outbox = try await AgentOutbox.open(
            directory: directory.path, baseURL: outboxBase, ids: SequentialIDGenerator(prefix: "req"), now: outboxNow,
            checkpoint: gate.checkpoint)
        for text in texts { try await outbox.enqueue(text: text) }
        return (outbox, AgentOutboxSender(outbox: outbox, api: room))
    }

    @Test func anOutcomeAndTheNextSendingAreSavedInOneWrite() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let gate = WriteGate(blocking: 0)
        let room = AgentOutboxFakeRoom()
        let (outbox, sender) = try await Self.gatedSender(
            directory, gate: gate, room: room, queuing: ["one", "two", "three"])
        sender.start()
        await waitFor("all acknowledged") {
            outbox.pendingChanges == 0 && outbox.entries.allSatisfy { $0.state == .awaitingEcho }
        }
        // 3 enqueues, "one" sending, then one write per outcome that also starts the next.
        #expect(gate.completedWrites == 3 + 1 + 3)
        await sender.stop()
    }

    @Test func stoppingWhileTheNextIsSavedAsSendingPutsItBackUnsent() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        // Writes: enqueue one, enqueue two, one sending, one's receipt + two sending (held).
        let gate = WriteGate(blocking: 4)
        let room = AgentOutboxFakeRoom()
        let (outbox, sender) = try await Self.gatedSender(directory, gate: gate, room: room, queuing: ["one", "two"])
        sender.start()
        await waitFor("the fourth write") { gate.blockedWrites == 1 }
        let stopping = Task { await sender.stop() }
        await waitFor("the stop to begin") { !sender.isRunning }
        gate.open()
        await stopping.value
        #expect(room.calls.map(\.text) == ["one"], "two never left")
        #expect(outbox.entries.map(\.state) == [.awaitingEcho, .queued])
        #expect(outbox.entries.map(\.attempts) == [1, 0])
        #expect(try storedDocument(outbox.file).entries.map(\.state) == [.awaitingEcho, .queued])
        // Started again, it sends "two" as usual.
        sender.start()
        await waitFor("two acknowledged") { outbox.entry("req-2")?.state == .awaitingEcho }
        #expect(room.calls.map(\.text) == ["one", "two"])
        await sender.stop()
    }

    /// A room whose first request, once stored, is answered only when the test lets it go,
    /// cancelled or not: a request slow to notice a stop.
    final class SlowToStopRoom: AgentRoomAPI {
        let room: AgentOutboxFakeRoom
        /// Notified when the first request is held.
        let changes = ChangeSignal()
        private let state = Locked((started: false, held: false, release: nil as CheckedContinuation<Void, Never>?))

        init(_ room: AgentOutboxFakeRoom) { self.room = room }

        /// Whether the first request is stored and waits to be let go.
        var isHolding: Bool { state.withLock { $0.held } }

        /// Lets the first request return its receipt.
        func release() {
            state.withLock { state in
                defer { state.release = nil }
                state.held = false
                return state.release
            }?.resume()
        }

        func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
            let receipt = try await room.submit(submission)
            guard
                state.withLock({ state in
                    defer { state.started = true }
                    return !state.started
                })
            else {
                return receipt
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { state in
                    state.held = true
                    state.release = continuation
                }
                changes.notify()
            }
            return receipt
        }

        func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { try await room.descriptor() }
        func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError)
            -> AgentRoomPage
        { try await room.messages(after: after, before: before, limit: limit) }
        func readState() async throws(AgentRoomError) -> AgentReadState { try await room.readState() }
        func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
            try await room.markRead(cursor)
        }
        func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
            try await room.upload(file)
        }
        func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
            try await room.original(of: attachment)
        }
    }

    @Test func startedAgainWhileItsStopWaitsForARequestTheSenderSendsWithoutTrippingOverIt() async throws {
        // The composer can start the sender again while a stop still waits for a request that
        // is slow to notice it: the loop that ends and the new one each await their own
        // requests' outcomes.
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let room = AgentOutboxFakeRoom()
        room.script(.store, .storeThenHang)
        let slow = SlowToStopRoom(room)
        let outbox = try await openOutbox(directory)
        let sender = AgentOutboxSender(outbox: outbox, api: slow)
        try await outbox.enqueue(text: "one")
        sender.start()
        #expect(await slow.changes.wait(until: { slow.isHolding }), "one stored, its answer held")
        let stopping = Task { await sender.stop() }
        await waitFor("the stop to begin") { !sender.isRunning }
        // Its echo confirms "one" while its request is still out; "two" is next.
        sender.messageMerged(try #require(room.echo(of: "req-1")))
        await waitFor("one confirmed") {
            sender.pendingConfirmations == 0 && outbox.entry("req-1")?.state == .confirmed
        }
        try await outbox.enqueue(text: "two")
        sender.start()
        // Its request is out (and its outcome awaited) while the old loop awaits one's.
        await waitFor("two out") { room.hangingCount == 1 && sender.inFlight == "req-2" }
        room.release()
        await waitFor("two acknowledged") { outbox.entry("req-2")?.state == .awaitingEcho }
        slow.release()
        await stopping.value
        #expect(room.calls.map(\.text) == ["one", "two"])
        #expect(outbox.entries.map(\.state) == [.confirmed, .awaitingEcho])
        await sender.stop()
    }

    @Test func aStopAfterTheNextLeftFromTheRequestTaskSavesNothingMoreAsSending() async throws {
        // "one" is acknowledged and the request task sends "two" (saved ahead) at once; the
        // stop comes before the sender learns of it. "two" fails with Retry, and "three",
        // behind it, is not saved as sending by a write after the stop.
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let gate = WriteGate(blocking: 0)
        let twoLeft = DispatchSemaphore(value: 0)
        let room = AgentOutboxFakeRoom { submission in
            if submission.requestId == "req-2" { twoLeft.signal() }
        }
        room.script(.hang, .hang)
        let (outbox, sender) = try await Self.gatedSender(
            directory, gate: gate, room: room, queuing: ["one", "two", "three"])
        sender.start()
        // The write that marks "two" sending while "one" is out (the sender made it, and
        // decided in the same turn that "two" follows "one").
        await waitFor("two saved ahead") {
            room.hangingCount == 1 && outbox.pendingChanges == 0
                && outbox.entries.map(\.state) == [.sending, .sending, .queued]
        }
        let writes = gate.completedWrites
        room.release()
        // The main actor waits here until "two" left, so the stop below comes before the
        // sender takes "one"'s outcome.
        twoLeft.wait()
        await sender.stop()
        #expect(room.calls.map(\.text) == ["one", "two"])
        #expect(outbox.entries.map(\.state) == [.awaitingEcho, .failed, .queued])
        #expect(outbox.entry("req-2")?.failure?.kind == .interrupted)
        #expect(outbox.entries.map(\.attempts) == [1, 1, 0])
        // One write after the stop: both outcomes.
        #expect(gate.completedWrites == writes + 1)
        #expect(try storedDocument(outbox.file).entries.map(\.state) == [.awaitingEcho, .failed, .queued])
    }

    @Test func anOutcomeThatCannotBeSavedStopsSendingUntilItIs() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = DiskSwitch()
        let room = AgentOutboxFakeRoom { _ in }
        room.script(.storeThen { disk.die() })
        let phone = try await Phone.launch(directory, room: room, disk: disk, start: false)
        try await phone.outbox.enqueue(text: "one")
        try await phone.outbox.enqueue(text: "two")
        phone.sender.start()
        await waitFor("the attempt to end") {
            phone.sender.finishedAttempts == 1 && phone.outbox.storageFailure != nil
                && phone.outbox.pendingChanges == 0
        }
        let states = phone.states()
        #expect(states.first == .sending, "the unsaved outcome is not adopted")
        // "two" is saved as sending while "one"'s request is out (the write overlaps it), unless
        // the disk died first: either way it is not sent, and memory and disk agree.
        #expect(states.count == 2 && [.queued, .sending].contains(states[1]))
        #expect(try storedDocument(phone.outbox.file).entries.map(\.state) == states)
        #expect(room.calls.count == 1, "nothing more is sent")
        disk.revive()
        phone.sender.wake()
        await phone.settle([.failed, .queued])
        #expect(phone.states() == [.failed, .queued])
        #expect(phone.outbox.storageFailure == nil)
        await phone.merge(room.messages)
        await phone.settle()
        #expect(room.calls.map(\.text) == ["one", "two"])
        #expect(room.messages.map(\.text) == ["one", "two"])
        await phone.sender.stop()
    }

    @Test func aMessageThatCannotBeSavedAsSendingIsNotSent() async throws {
        let directory = OutboxDirectory()
        defer { directory.cleanUp() }
        let disk = DiskSwitch()
        let room = AgentOutboxFakeRoom()
        let phone = try await Phone.launch(directory, room: room, disk: disk, start: false)
        try await phone.outbox.enqueue(text: "one")
        disk.die()
        phone.sender.start()
        await waitFor("the failed save") { phone.outbox.storageFailure != nil && phone.outbox.pendingChanges == 0 }
        #expect(room.calls.isEmpty)
        #expect(phone.states() == [.queued])
        disk.revive()
        phone.sender.wake()
        await phone.settle()
        #expect(room.calls.map(\.text) == ["one"])
        await phone.sender.stop()
    }
}
