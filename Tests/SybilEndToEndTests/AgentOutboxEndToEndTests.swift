import Foundation
import Observation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// The Agent room outbox against the reference server over real sockets: submissions through
/// `AgentRoomHTTPClient`, canonical echoes from the `agent/stream` WebSocket through an
/// `AgentRoomModel` whose `onMessageMerged` feeds the sender, as in the app.
@Suite("Agent outbox end to end", .timeLimit(.minutes(2)))
@MainActor
struct AgentOutboxEndToEndTests {
    /// A phone: the outbox in its own directory, scoped to `base`; its sender over the room's
    /// HTTP client through `http`.
    @MainActor
    struct Phone {
        let base: AgentAPIBase
        let directory: URL
        let outbox: AgentOutbox
        let sender: AgentOutboxSender
        let api: AgentRoomHTTPClient

        /// `path` is appended to the server's root URL as it is ("", "/api", "/api/").
        static func launch(
            _ server: ReferenceServer, path: String = "",
            http: any HTTPClient = DefaultHTTPClient.make(redirects: .deliver)
        ) async throws -> Phone {
            let base = try AgentAPIBase(string: server.baseURL.absoluteString + path)
            let directory = temporaryDirectory()
            let api = AgentRoomHTTPClient(
                base: base, http: http, tokens: endToEndTokens(), random: SeededRandomSource(seed: 3))
            let outbox = try await AgentOutbox.open(
                directory: directory.path, baseURL: base.url,
                ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 11)), now: { 1_800_000_000_000 })
            return Phone(
                base: base, directory: directory, outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: api),
                api: api)
        }

        /// The Agent room at the same base, every merged message handed to the sender; started
        /// and connected to its stream. The caller stops it.
        func openRoom() async -> AgentRoomModel {
            let room = AgentRoomModel(
                base: base, tokens: endToEndTokens(), http: DefaultHTTPClient.make(redirects: .deliver),
                clock: ContinuousClock(), random: SeededRandomSource(seed: 5), timeZone: TimeZone(identifier: "UTC")!)
            let sender = sender
            room.onMessageMerged = { sender.messageMerged($0) }
            await room.start()
            await waitUntil("the room's stream") { room.connection == .connected }
            #expect(room.roomError == nil)
            return room
        }

        /// The user messages the room holds, oldest first.
        func userMessages() async throws -> [AgentRoomMessage] {
            try await api.messages(after: nil, before: nil, limit: 200).messages.filter { $0.role == .user }
        }

        func close() async {
            await sender.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func manyMessagesQueuedWhileTheAgentWorksAreAllConfirmedInOrder() async throws {
        let server = try startServer()
        let phone = try await Phone.launch(server, path: "/api")
        let room = await phone.openRoom()
        let texts = (1...25).map { "Message \($0)" }
        for text in texts { try await phone.outbox.enqueue(text: text) }
        #expect(phone.outbox.entries.allSatisfy { $0.state == .queued })
        phone.sender.start()
        await waitUntil("every message confirmed") {
            phone.outbox.entries.allSatisfy { $0.state == .confirmed } && phone.outbox.pendingChanges == 0
        }
        let stored = try await phone.userMessages()
        #expect(stored.map(\.text) == texts, "each once, in the order queued")
        #expect(stored.map(\.requestId) == phone.outbox.entries.map(\.requestId))
        #expect(stored.allSatisfy { $0.createdAt == 1_800_000_000_000 })
        #expect(phone.outbox.entries.allSatisfy { $0.attempts == 1 })
        #expect(
            room.history.messages.filter { $0.role == .user }.map(\.requestId) == stored.map(\.requestId),
            "the room merged every echo once")
        #expect(try await phone.outbox.removeConfirmed().count == 25)
        await room.stop()
        await phone.close()
        await server.shutdown()
    }

    @Test func aRetryAfterALostAcknowledgementGetsTheSameReceiptAndCreatesNothing() async throws {
        let server = try startServer()
        let http = AnswerLosingHTTPClient(losing: 1)
        let phone = try await Phone.launch(server, http: http)
        let entry = try await phone.outbox.enqueue(text: "Summarise the build failures.")
        phone.sender.start()
        await waitUntil("the lost answer") { phone.outbox.entry(entry.requestId)?.state == .failed }
        #expect(phone.outbox.entry(entry.requestId)?.failure?.kind == .interrupted)
        #expect(try await phone.userMessages().map(\.requestId) == [entry.requestId], "the server stored it")

        try await phone.outbox.retry(entry.requestId)
        await waitUntil("the acknowledgement") { phone.outbox.entry(entry.requestId)?.state == .awaitingEcho }
        let answers = http.submitAnswers
        #expect(answers.map(\.status) == [202, 200])
        #expect(answers[0].body == answers[1].body, "the same receipt")
        let stored = try await phone.userMessages()
        #expect(stored.count == 1, "one message")
        #expect(phone.outbox.entry(entry.requestId)?.acknowledgement?.messageId == stored[0].messageId)

        // The room opens and merges the canonical echo: confirmed.
        let room = await phone.openRoom()
        await waitUntil("the echo") { phone.outbox.entry(entry.requestId)?.state == .confirmed }
        #expect(room.history.messages.filter { $0.requestId == entry.requestId }.count == 1)
        await room.stop()
        await phone.close()
        await server.shutdown()
    }

    @Test func theEchoConfirmsAMessageWhoseAcknowledgementWasLost() async throws {
        let server = try startServer()
        let http = AnswerLosingHTTPClient(losing: 1)
        let phone = try await Phone.launch(server, path: "/api/", http: http)
        let first = try await phone.outbox.enqueue(text: "first")
        let second = try await phone.outbox.enqueue(text: "second")
        phone.sender.start()
        await waitUntil("the lost answer") { phone.outbox.entry(first.requestId)?.state == .failed }
        #expect(phone.outbox.holdReason == "Waiting: “first” failed — Retry or Resend all.")
        #expect(phone.outbox.entry(second.requestId)?.state == .queued)

        let room = await phone.openRoom()
        await waitUntil("both confirmed") {
            phone.outbox.entries.allSatisfy { $0.state == .confirmed } && phone.outbox.pendingChanges == 0
        }
        #expect(phone.outbox.entry(first.requestId)?.attempts == 1, "never sent again")
        #expect(http.submitAnswers.map(\.status) == [202, 202])
        let stored = try await phone.userMessages()
        #expect(stored.map(\.text) == ["first", "second"])
        #expect(
            phone.outbox.entry(first.requestId)?.acknowledgement?.messageId == stored.first?.messageId,
            "the echo stands in for the lost receipt")
        await room.stop()
        await phone.close()
        await server.shutdown()
    }
}

/// Performs every request; for the first `losing` submissions (`POST …/agent/messages`) it
/// reads the server's whole answer and then fails as if the connection dropped, so the server
/// did the work but the phone never hears of it. Records each submission's status and body.
final class AnswerLosingHTTPClient: HTTPClient {
    private let inner = DefaultHTTPClient.make(redirects: .deliver)
    private let state: Locked<(toLose: Int, answers: [(status: Int, body: [UInt8])])>

    init(losing count: Int) { state = Locked((count, [])) }

    /// Status and body of every submission the server answered.
    var submitAnswers: [(status: Int, body: [UInt8])] { state.withLock { $0.answers } }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let response = try await inner.send(request)
        guard request.method == "POST", request.url.path.hasSuffix("/agent/messages") else { return response }
        let body = try await response.collect()
        let lose = state.withLock { state -> Bool in
            state.answers.append((response.head.status, body))
            guard state.toLose > 0 else { return false }
            state.toLose -= 1
            return true
        }
        if lose { throw URLError(.networkConnectionLost) }
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        continuation.yield(body)
        continuation.finish()
        return HTTPStreamingResponse(head: response.head, body: stream)
    }
}
