import SybilClient
import SybilCore
import SybilWire
import Testing

/// The outbox rules on their own, without storage or concurrency: every transition.
@Suite("Agent outbox queue", .timeLimit(.minutes(2)))
struct AgentOutboxQueueTests {
    static func entry(_ id: String, _ text: String = "hello", attachments: [String] = [], draft: String? = nil)
        -> AgentOutboxEntry
    {
        AgentOutboxEntry(
            requestId: id, text: text, createdAt: 1_764_400_200_000,
            attachments: attachments.map { agentAttachment($0) },
            draftId: draft)
    }

    static func receipt(for entry: AgentOutboxEntry, cursor: String = "c-000007", attachments: [String]? = nil)
        -> AgentRoomReceipt
    {
        AgentRoomReceipt(
            requestId: entry.requestId, messageId: "msg-7", cursor: AgentCursor(cursor)!,
            attachments: attachments ?? entry.attachments.map(\.uploadId))
    }

    static func echo(_ requestId: String?, cursor: String = "c-000007", role: AgentRoomMessage.Role = .user)
        -> AgentRoomMessage
    {
        AgentRoomMessage(
            messageId: "msg-7", cursor: AgentCursor(cursor)!, requestId: requestId, role: role, visibility: .public,
            text: "hello", createdAt: 1_764_400_200_000)
    }

    /// A queue of `ids`, all queued.
    static func queue(_ ids: String...) throws -> AgentOutboxQueue {
        var queue = AgentOutboxQueue()
        for id in ids { _ = try queue.enqueue(entry(id)) }
        return queue
    }

    /// Sends the next entry and records `result`.
    @discardableResult
    static func send(
        _ queue: inout AgentOutboxQueue, _ id: String, _ result: Result<AgentRoomReceipt, AgentRoomError>? = nil
    ) throws -> AgentOutboxQueue.Outcome {
        _ = try queue.beginSending(id)
        return queue.finishSending(id, result: result ?? .success(receipt(for: queue.entry(id)!)))
    }

    // MARK: Enqueue

    @Test func enqueueAppendsQueuedEntriesInOrder() throws {
        var queue = AgentOutboxQueue()
        #expect(queue.nextAction == .idle)
        let first = try queue.enqueue(Self.entry("a", attachments: ["u1", "u2"]))
        _ = try queue.enqueue(Self.entry("b"))
        #expect(queue.entries.map(\.requestId) == ["a", "b"])
        #expect(queue.entries.map(\.state) == [.queued, .queued])
        #expect(first.attempts == 0)
        #expect(
            first.submission
                == AgentRoomSubmission(
                    requestId: "a", text: "hello", createdAt: 1_764_400_200_000, attachments: ["u1", "u2"]))
        #expect(queue.nextAction == .send(first))
    }

    @Test func enqueueRefusesWhatTheServerWouldRefuse() throws {
        var queue = AgentOutboxQueue()
        #expect(throws: AgentOutboxError.emptyMessage) { try queue.enqueue(Self.entry("a", " \n\t")) }
        _ = try queue.enqueue(Self.entry("b", " ", attachments: ["u1"]))  // a blank caption with a file is fine
        let eight = (1...8).map { "u\($0)" }
        _ = try queue.enqueue(Self.entry("c", attachments: eight))
        #expect(throws: AgentOutboxError.tooManyAttachments(count: 9, limit: 8)) {
            try queue.enqueue(Self.entry("d", attachments: eight + ["u9"]))
        }
        #expect(throws: AgentOutboxError.duplicateAttachment("u1")) {
            try queue.enqueue(Self.entry("e", attachments: ["u1", "u2", "u1"]))
        }
        #expect(queue.entries.map(\.requestId) == ["b", "c"])
    }

    @Test func theOutboxHoldsAtMostTenThousandEntries() throws {
        var queue = AgentOutboxQueue(entries: (1..<AgentOutboxQueue.maxEntries).map { Self.entry("r\($0)") })
        _ = try queue.enqueue(Self.entry("last"))
        #expect(queue.entries.count == 10_000)
        #expect(throws: AgentOutboxError.full(limit: 10_000)) { try queue.enqueue(Self.entry("one-more")) }
    }

    @Test func aDraftIsQueuedOnceEvenWhenItsHandoffRunsTwice() throws {
        var queue = AgentOutboxQueue()
        let first = try queue.enqueue(Self.entry("a", draft: "draft-1"))
        let again = try queue.enqueue(Self.entry("b", "hello again", draft: "draft-1"))
        #expect(again == first)
        #expect(queue.entries.map(\.requestId) == ["a"])
        #expect(queue.contains(draftId: "draft-1"))
        #expect(!queue.contains(draftId: "draft-2"))
        // Delivered and removed: the draft is remembered, and never queued again.
        try Self.send(&queue, "a")
        let confirmed = queue.confirm(echo: Self.echo("a"))
        #expect(confirmed)
        #expect(queue.removeConfirmed().map(\.requestId) == ["a"])
        #expect(queue.contains(draftId: "draft-1"))
        #expect(throws: AgentOutboxError.draftAlreadySent("draft-1")) {
            try queue.enqueue(Self.entry("c", draft: "draft-1"))
        }
    }

    @Test func theNewest256RetiredDraftsAreRemembered() throws {
        var queue = AgentOutboxQueue()
        for index in 1...257 {
            _ = try queue.enqueue(Self.entry("r\(index)", draft: "d\(index)"))
            _ = try queue.discard("r\(index)")
        }
        #expect(queue.retiredDraftIds.count == 256)
        #expect(!queue.contains(draftId: "d1"))
        #expect(queue.contains(draftId: "d2"))
        #expect(queue.contains(draftId: "d257"))
    }

    // MARK: Sending in order

    @Test func entriesAreSentInOrderOneAtATime() throws {
        var queue = try Self.queue("a", "b")
        #expect(throws: AgentOutboxError.wrongState(requestId: "b", state: .queued, change: "sent")) {
            try queue.beginSending("b")
        }
        let submission = try queue.beginSending("a")
        #expect(submission.requestId == "a")
        #expect(queue.entry("a")?.state == .sending)
        #expect(queue.entry("a")?.attempts == 1)
        #expect(queue.nextAction == .inFlight(requestId: "a"))
        #expect(throws: AgentOutboxError.wrongState(requestId: "b", state: .queued, change: "sent")) {
            try queue.beginSending("b")
        }
        #expect(throws: AgentOutboxError.unknownEntry("z")) { try queue.beginSending("z") }
        let outcome = queue.finishSending("a", result: .success(Self.receipt(for: queue.entry("a")!)))
        let ack = AgentOutboxEntry.Acknowledgement(messageId: "msg-7", cursor: AgentCursor("c-000007")!)
        #expect(outcome == .acknowledged(ack))
        #expect(queue.entry("a")?.state == .awaitingEcho)
        #expect(queue.entry("a")?.acknowledgement == ack)
        // Acknowledged: the server has it in order, so the next one goes.
        #expect(queue.nextAction == .send(queue.entry("b")!))
    }

    @Test func aSubmissionThatNeverLeftGoesBackToQueued() throws {
        var queue = try Self.queue("a", "b")
        #expect(throws: AgentOutboxError.wrongState(requestId: "a", state: .queued, change: "put back")) {
            try queue.cancelSending("a")
        }
        let before = try #require(queue.entry("a"))
        _ = try queue.beginSending("a")
        try queue.cancelSending("a")
        #expect(queue.entry("a") == before)
        #expect(queue.nextAction == .send(before))
        #expect(throws: AgentOutboxError.unknownEntry("z")) { try queue.cancelSending("z") }
    }

    @Test func aReceiptMustAcknowledgeExactlyTheSubmittedIdsInOrder() throws {
        var queue = AgentOutboxQueue()
        let entry = try queue.enqueue(Self.entry("a", attachments: ["u1", "u2"]))
        let swapped = try Self.send(&queue, "a", .success(Self.receipt(for: entry, attachments: ["u2", "u1"])))
        let failure = AgentOutboxFailure(
            kind: .unacknowledged,
            message: "The server acknowledged attachments [\"u2\", \"u1\"] but the message has [\"u1\", \"u2\"].")
        #expect(swapped == .failed(failure))
        #expect(queue.entry("a")?.state == .failed)
        #expect(queue.entry("a")?.canRetry == false)
        #expect(queue.entry("a")?.acknowledgement == nil)

        var other = AgentOutboxQueue()
        let second = try other.enqueue(Self.entry("b"))
        var foreign = Self.receipt(for: second)
        foreign.requestId = "someone-else"
        let outcome = try Self.send(&other, "b", .success(foreign))
        #expect(
            outcome
                == .failed(
                    AgentOutboxFailure(
                        kind: .unacknowledged,
                        message: "The server answered for request \"someone-else\", not for \"b\".")))
        // A missing attachment is not an acknowledgement either.
        var third = AgentOutboxQueue()
        let withFile = try third.enqueue(Self.entry("c", attachments: ["u1"]))
        try Self.send(&third, "c", .success(Self.receipt(for: withFile, attachments: [])))
        #expect(third.entry("c")?.failure?.kind == .unacknowledged)
    }

    // MARK: Failures

    struct FailureCase: Sendable, CustomTestStringConvertible {
        var error: AgentRoomError
        var kind: AgentOutboxFailure.Kind
        var canRetry: Bool
        var testDescription: String { "\(error.status.map(String.init) ?? "no status") → \(kind)" }
    }

    static let failureCases: [FailureCase] = [
        .init(error: .transport("the connection was reset"), kind: .interrupted, canRetry: true),
        .init(error: .malformedAnswer("$.receipt: required member is missing"), kind: .interrupted, canRetry: true),
        .init(error: roomRejection(500, "internal", "The server failed."), kind: .interrupted, canRetry: true),
        .init(error: roomRejection(502, "bad_gateway", "Bad gateway."), kind: .interrupted, canRetry: true),
        .init(
            error: roomRejection(400, "unknown_upload", "Attachment u1 was never uploaded."), kind: .refused,
            canRetry: false),
        .init(
            error: roomRejection(409, "request_conflict", "Request a was already used."), kind: .refused,
            canRetry: false),
        .init(error: roomRejection(413, "too_large", "The message is too large."), kind: .refused, canRetry: false),
        .init(
            error: roomRejection(429, "rate_limited", "Too many messages.", retryAfter: 30), kind: .rateLimited,
            canRetry: true),
        .init(
            error: roomRejection(503, "open_proxy_unavailable", "Attachments are unavailable."), kind: .unavailable,
            canRetry: true),
        .init(error: roomRejection(507, "quota_exceeded", "Storage is full."), kind: .unavailable, canRetry: true),
        .init(
            error: roomRejection(401, "unauthorized", "A valid bearer token is required."), kind: .other, canRetry: true
        ),
        .init(error: .redirectRefused(status: 302), kind: .other, canRetry: true),
    ]

    @Test("each failure keeps its kind, the server's message and code", arguments: failureCases)
    func aFailureHoldsTheQueueWithItsReason(_ failureCase: FailureCase) throws {
        var queue = try Self.queue("a", "b")
        let outcome = try Self.send(&queue, "a", .failure(failureCase.error))
        guard case .failed(let failure) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(failure.kind == failureCase.kind)
        #expect(failure.status == failureCase.error.status)
        #expect(failure.code == failureCase.error.code)
        if case .rejected(_, let body, _) = failureCase.error { #expect(failure.message == body.message) }
        let entry = try #require(queue.entry("a"))
        #expect(entry.state == .failed && entry.failure == failure && entry.canRetry == failureCase.canRetry)
        // Never retried by itself: "b" waits behind it.
        #expect(queue.nextAction == .held(by: entry))
        let reason =
            failureCase.canRetry
            ? "Waiting: “hello” failed — Retry or Resend all."
            : "Waiting: “hello” was not accepted — Discard it to send the rest."
        #expect(queue.holdReason == reason)
    }

    @Test func aFailedEntryWithNothingBehindItHoldsNothing() throws {
        var queue = try Self.queue("a")
        try Self.send(&queue, "a", .failure(.transport("reset")))
        #expect(queue.nextAction == .idle)
        #expect(queue.holdReason == nil)
    }

    @Test func theFailureTellsAPersonWhatHappenedAndWhatToDo() {
        let rateLimited = AgentOutboxFailure.from(
            roomRejection(429, "rate_limited", "Too many messages; retry in 30 seconds.", retryAfter: 30))
        #expect(rateLimited.retryAfterSeconds == 30)
        #expect(
            rateLimited.description
                == "Too many messages; retry in 30 seconds (HTTP 429, rate_limited). Retry after 30 s.")
        let quota: JSONObject = ["quota": ["usedBytes": 1_073_741_824, "limitBytes": 1_073_741_824]]
        let full = AgentOutboxFailure.from(
            roomRejection(507, "quota_exceeded", "Your attachment storage is full.", details: quota))
        #expect(full.quota == AgentQuota(usedBytes: 1_073_741_824, limitBytes: 1_073_741_824))
        #expect(
            full.description
                == "Your attachment storage is full (HTTP 507, quota_exceeded) — 1073741824 of 1073741824 bytes used. Free some attachment storage, then Retry."
        )
        let fromDetails = AgentOutboxFailure.from(
            roomRejection(429, "rate_limited", "Slow down.", details: ["retryAfterSeconds": 12]))
        #expect(fromDetails.retryAfterSeconds == 12)
        let refused = AgentOutboxFailure.from(roomRejection(413, "too_large", "The message is too large."))
        #expect(
            refused.description
                == "The message is too large (HTTP 413, too_large). Sending it again cannot succeed; Discard it and write a new message."
        )
        let lost = AgentOutboxFailure.from(.transport("the connection was reset"))
        #expect(
            lost.description
                == "the connection was reset. It may or may not have arrived; Retry sends it again with the same request id."
        )
        #expect(AgentOutboxFailure.relaunched.kind == .interrupted)
    }

    @Test func aServerMessageIsKeptUpTo1000Characters() {
        let exactly = AgentOutboxFailure.from(roomRejection(400, "x", String(repeating: "m", count: 1_000)))
        #expect(exactly.message.count == 1_000)
        let longer = AgentOutboxFailure.from(roomRejection(400, "x", String(repeating: "m", count: 1_001)))
        #expect(longer.message.count == 1_000)
    }

    // MARK: Echoes

    @Test("a canonical echo confirms the entry in any state", arguments: AgentOutboxEntry.State.allCases)
    func anEchoConfirmsInAnyState(_ state: AgentOutboxEntry.State) throws {
        var queue = try Self.queue("a", "b")
        switch state {
        case .queued: break
        case .sending: _ = try queue.beginSending("a")
        case .awaitingEcho: try Self.send(&queue, "a")
        case .failed: try Self.send(&queue, "a", .failure(.transport("reset")))
        case .confirmed:
            try Self.send(&queue, "a")
            let confirmed = queue.confirm(echo: Self.echo("a"))
            #expect(confirmed)
        }
        #expect(queue.entry("a")?.state == state)
        #expect(queue.confirm(echo: Self.echo("a")) == (state != .confirmed))
        let entry = try #require(queue.entry("a"))
        #expect(entry.state == .confirmed)
        #expect(entry.failure == nil)
        #expect(entry.acknowledgement == .init(messageId: "msg-7", cursor: AgentCursor("c-000007")!))
        // The hold is gone: "b" goes.
        #expect(queue.nextAction == .send(queue.entry("b")!))
    }

    @Test func onlyAUserMessageWithTheRequestIdIsAnEcho() throws {
        var queue = try Self.queue("a")
        let withoutId = queue.confirm(echo: Self.echo(nil))
        let otherId = queue.confirm(echo: Self.echo("other"))
        let assistant = queue.confirm(echo: Self.echo("a", role: .assistant))
        #expect(!withoutId && !otherId && !assistant)
        #expect(queue.entry("a")?.state == .queued)
    }

    @Test func aReceiptArrivingAfterTheEchoChangesNothing() throws {
        var queue = try Self.queue("a")
        _ = try queue.beginSending("a")
        let confirmed = queue.confirm(echo: Self.echo("a"))
        #expect(confirmed)
        #expect(queue.finishSending("a", result: .failure(.transport("reset"))) == .settledMeanwhile)
        #expect(queue.finishSending("a", result: .success(Self.receipt(for: queue.entry("a")!))) == .settledMeanwhile)
        #expect(queue.entry("a")?.state == .confirmed)
        #expect(queue.finishSending("gone", result: .failure(.transport("reset"))) == .settledMeanwhile)
    }

    @Test func historyPastTheAcknowledgedCursorConfirms() throws {
        var queue = try Self.queue("a")
        try Self.send(&queue, "a", .success(Self.receipt(for: queue.entry("a")!, cursor: "c-000007")))
        #expect(!queue.hasAcknowledged(through: AgentCursor("c-000006")!))
        #expect(queue.confirmAcknowledged(through: AgentCursor("c-000006")!).isEmpty)
        #expect(queue.entry("a")?.state == .awaitingEcho)
        #expect(queue.hasAcknowledged(through: AgentCursor("c-000007")!))
        #expect(queue.confirmAcknowledged(through: AgentCursor("c-000007")!) == ["a"])
        #expect(queue.entry("a")?.state == .confirmed)
    }

    // MARK: Retry, Resend all, Discard

    @Test func retryQueuesTheFailedEntryAgainWithItsIdsAndTimestamp() throws {
        var queue = try Self.queue("a", "b")
        #expect(throws: AgentOutboxError.wrongState(requestId: "a", state: .queued, change: "retried")) {
            try queue.retry("a")
        }
        let before = try #require(queue.entry("a"))
        try Self.send(&queue, "a", .failure(.transport("reset")))
        try queue.retry("a")
        let after = try #require(queue.entry("a"))
        #expect(after.state == .queued && after.failure == nil)
        #expect(after.submission == before.submission, "same request id, text, createdAt and attachments")
        #expect(after.attempts == 1)
        #expect(queue.nextAction == .send(after))
        #expect(queue.entries.map(\.requestId) == ["a", "b"], "it keeps its place")
        try Self.send(&queue, "a")
        #expect(queue.entry("a")?.attempts == 2)
    }

    @Test func aFinalRefusalCannotBeRetriedOnlyDiscarded() throws {
        var queue = try Self.queue("a", "b")
        try Self.send(&queue, "a", .failure(roomRejection(413, "too_large", "Too large.")))
        #expect(throws: AgentOutboxError.notRetryable(requestId: "a")) { try queue.retry("a") }
        #expect(queue.resendAll().isEmpty)
        #expect(queue.entry("a")?.state == .failed)
        let discarded = try queue.discard("a")
        #expect(discarded.requestId == "a" && discarded.text == "hello")
        #expect(queue.entries.map(\.requestId) == ["b"])
        #expect(queue.nextAction == .send(queue.entry("b")!))
    }

    @Test func resendAllQueuesEveryRetryableFailureInOrder() throws {
        // Sending alone fails only the head (the hold stops the rest); the rule is for any
        // number of failed entries, so the state is built from stored entries.
        var stored = [Self.entry("a"), Self.entry("b"), Self.entry("c"), Self.entry("d")]
        stored[0].state = .failed
        stored[0].attempts = 1
        stored[0].failure = .from(.transport("reset"))
        stored[1].state = .failed
        stored[1].attempts = 1
        stored[1].failure = .from(roomRejection(400, "unknown_upload", "Never uploaded."))
        stored[2].state = .failed
        stored[2].attempts = 2
        stored[2].failure = .relaunched
        var queue = AgentOutboxQueue(entries: stored)
        #expect(queue.resendAll() == ["a", "c"])
        #expect(queue.entries.map(\.state) == [.queued, .failed, .queued, .queued])
        #expect(queue.entries.map(\.attempts) == [1, 1, 2, 0])
        #expect(queue.nextAction == .send(queue.entry("a")!))
    }

    @Test func onlyQueuedOrFailedEntriesCanBeDiscarded() throws {
        var queue = try Self.queue("a", "b", "c")
        #expect(throws: AgentOutboxError.unknownEntry("z")) { try queue.discard("z") }
        _ = try queue.discard("c")
        _ = try queue.beginSending("a")
        #expect(throws: AgentOutboxError.wrongState(requestId: "a", state: .sending, change: "discarded")) {
            try queue.discard("a")
        }
        _ = queue.finishSending("a", result: .success(Self.receipt(for: queue.entry("a")!)))
        #expect(throws: AgentOutboxError.wrongState(requestId: "a", state: .awaitingEcho, change: "discarded")) {
            try queue.discard("a")
        }
        _ = queue.confirm(echo: Self.echo("a"))
        #expect(throws: AgentOutboxError.wrongState(requestId: "a", state: .confirmed, change: "discarded")) {
            try queue.discard("a")
        }
        #expect(queue.entries.map(\.requestId) == ["a", "b"])
    }

    @Test func removeConfirmedTakesOnlyConfirmedEntries() throws {
        var queue = try Self.queue("a", "b", "c")
        try Self.send(&queue, "a")
        try Self.send(&queue, "b")
        _ = queue.confirm(echo: Self.echo("b", cursor: "c-000008"))
        #expect(queue.removeConfirmed().map(\.requestId) == ["b"])
        #expect(queue.entries.map(\.requestId) == ["a", "c"])
        #expect(queue.entries.map(\.state) == [.awaitingEcho, .queued])
        #expect(queue.removeConfirmed().isEmpty)
    }

    // MARK: Relaunch

    @Test func aRelaunchFailsTheEntryThatWasBeingSentWithRetry() throws {
        var queue = try Self.queue("a", "b", "c")
        try Self.send(&queue, "a")
        _ = try queue.beginSending("b")
        let before = queue.entries
        #expect(queue.relaunch() == ["b"])
        #expect(queue.entries.map(\.state) == [.awaitingEcho, .failed, .queued])
        let b = try #require(queue.entry("b"))
        #expect(b.failure == .relaunched && b.canRetry)
        #expect(b.submission == before[1].submission, "same request id and createdAt")
        #expect(queue.holdReason == "Waiting: “hello” failed — Retry or Resend all.")
        #expect(queue.relaunch().isEmpty, "a second relaunch changes nothing")
        // Its echo (the server got it after all) confirms it and releases "c".
        let confirmed = queue.confirm(echo: Self.echo("b", cursor: "c-000008"))
        #expect(confirmed)
        #expect(queue.nextAction == .send(queue.entry("c")!))
    }

    // MARK: Labels

    @Test func anEntryIsNamedByItsFirstLineOrItsFirstFile() {
        #expect(Self.entry("a", String(repeating: "x", count: 40)).label == String(repeating: "x", count: 40))
        #expect(Self.entry("a", String(repeating: "x", count: 41)).label == String(repeating: "x", count: 39) + "…")
        #expect(Self.entry("a", "  First line  \nsecond").label == "First line")
        #expect(Self.entry("a", "", attachments: ["u1"]).label == "u1.txt")
        #expect(Self.entry("a", " ", attachments: ["u1", "u2", "u3"]).label == "u1.txt and 2 more")
    }

    @Test func aTextLongerThanAMessageMayBeIsNotQueued() throws {
        var queue = AgentOutboxQueue()
        let limit = AgentRoomSubmission.maxTextBytes
        let full = AgentOutboxEntry(requestId: "r-1", text: String(repeating: "a", count: limit), createdAt: 1)
        #expect(try queue.enqueue(full).text.utf8.count == limit)
        let over = AgentOutboxEntry(requestId: "r-2", text: String(repeating: "a", count: limit + 1), createdAt: 1)
        #expect(throws: AgentOutboxError.textTooLong(bytes: limit + 1, limit: limit)) { try queue.enqueue(over) }
        #expect(queue.entries.count == 1)
    }
}
