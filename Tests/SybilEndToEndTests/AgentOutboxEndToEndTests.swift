import Foundation
import Observation
import SybilClient
import SybilCore
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Agent room outbox against the reference server over real sockets: submissions over
/// HTTP, canonical echoes from the `agent/stream` WebSocket.
@Suite("Agent outbox end to end")
@MainActor
struct AgentOutboxEndToEndTests {
    /// A phone: the outbox in its own directory, its sender over `http`.
    @MainActor
    struct Phone {
        let directory: URL
        let outbox: AgentOutbox
        let sender: AgentOutboxSender
        let room: AgentOutboxTestRoomAPI

        static func launch(_ server: ReferenceServer, http: any HTTPClient = URLSessionHTTPClient()) async throws
            -> Phone
        {
            let directory = temporaryDirectory()
            let room = AgentOutboxTestRoomAPI(baseURL: server.baseURL, http: http, token: endToEndToken)
            let outbox = try await AgentOutbox.open(
                directory: directory.path, baseURL: server.baseURL,
                ids: RandomUUIDGenerator(source: SeededRandomSource(seed: 11)), now: { 1_800_000_000_000 })
            return Phone(
                directory: directory, outbox: outbox, sender: AgentOutboxSender(outbox: outbox, api: room), room: room)
        }

        /// The user messages the room holds, oldest first.
        func userMessages() async throws -> [AgentRoomMessage] {
            try await room.messages(after: nil, before: nil, limit: 200).messages.filter { $0.role == .user }
        }

        func close() async {
            await sender.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func manyMessagesQueuedWhileTheAgentWorksAreAllConfirmedInOrder() async throws {
        let server = try startServer()
        let phone = try await Phone.launch(server)
        let follower = try await AgentRoomFollower.connect(server, sender: phone.sender)
        let texts = (1...25).map { "Message \($0)" }
        for text in texts { try await phone.outbox.enqueue(text: text) }
        #expect(phone.outbox.entries.allSatisfy { $0.state == .queued })
        phone.sender.start()
        await waitUntil("every message confirmed") {
            phone.outbox.entries.allSatisfy { $0.state == .confirmed } && phone.outbox.pendingChanges == 0
        }
        let room = try await phone.userMessages()
        #expect(room.map(\.text) == texts, "each once, in the order queued")
        #expect(room.map(\.requestId) == phone.outbox.entries.map(\.requestId))
        #expect(room.allSatisfy { $0.createdAt == 1_800_000_000_000 })
        #expect(phone.outbox.entries.allSatisfy { $0.attempts == 1 })
        #expect(try await phone.outbox.removeConfirmed().count == 25)
        await follower.stop()
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
        let room = try await phone.userMessages()
        #expect(room.count == 1, "one message")
        #expect(phone.outbox.entry(entry.requestId)?.acknowledgement?.messageId == room[0].messageId)

        // The room's stream replays the canonical echo: confirmed.
        let follower = try await AgentRoomFollower.connect(server, sender: phone.sender)
        await waitUntil("the echo") { phone.outbox.entry(entry.requestId)?.state == .confirmed }
        await follower.stop()
        await phone.close()
        await server.shutdown()
    }

    @Test func theEchoConfirmsAMessageWhoseAcknowledgementWasLost() async throws {
        let server = try startServer()
        let http = AnswerLosingHTTPClient(losing: 1)
        let phone = try await Phone.launch(server, http: http)
        let first = try await phone.outbox.enqueue(text: "first")
        let second = try await phone.outbox.enqueue(text: "second")
        phone.sender.start()
        await waitUntil("the lost answer") { phone.outbox.entry(first.requestId)?.state == .failed }
        #expect(phone.outbox.holdReason == "Waiting: “first” failed — Retry or Resend all.")
        #expect(phone.outbox.entry(second.requestId)?.state == .queued)

        let follower = try await AgentRoomFollower.connect(server, sender: phone.sender)
        await waitUntil("both confirmed") {
            phone.outbox.entries.allSatisfy { $0.state == .confirmed } && phone.outbox.pendingChanges == 0
        }
        #expect(phone.outbox.entry(first.requestId)?.attempts == 1, "never sent again")
        #expect(http.submitAnswers.map(\.status) == [202, 202])
        #expect(try await phone.userMessages().map(\.text) == ["first", "second"])
        await follower.stop()
        await phone.close()
        await server.shutdown()
    }
}

// MARK: Test-only room seam

/// The Agent room routes these tests need (`POST agent/messages`, `GET agent/messages`) over an
/// `HTTPClient`. Test-only: the room's HTTP client takes its place once it exists. Every other
/// route fails the test.
struct AgentOutboxTestRoomAPI: AgentRoomAPI {
    let baseURL: URL
    let http: any HTTPClient
    let token: String

    private func call(
        _ method: String, _ path: String, query: [(String, String)] = [], body: JSONValue? = nil
    ) async throws(AgentRoomError) -> JSONValue {
        var headers = HTTPHeaders([("Authorization", "Bearer \(token)")])
        if body != nil { headers.set("Content-Type", "application/json") }
        let request = HTTPRequest(
            method: method, url: APIEndpoint.url(base: baseURL, path: path, query: query), headers: headers,
            body: body.map { JSONWriter().bytes(from: $0) }, timeout: .seconds(30))
        let status: Int
        let retryAfter: String?
        let bytes: [UInt8]
        do {
            let response = try await http.send(request)
            status = response.head.status
            retryAfter = response.head.headers["Retry-After"]
            bytes = try await response.collect(limit: 1 << 20)
        } catch {
            throw .transport(String(describing: error))
        }
        guard (200..<300).contains(status) else {
            throw AgentRoomError.from(status: status, body: bytes, retryAfter: retryAfter)
        }
        do {
            return try JSONReader().parse(bytes)
        } catch {
            throw .malformedAnswer(error.description)
        }
    }

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        let answer = try await call("POST", "agent/messages", body: submission.jsonValue)
        do {
            return try AgentRoomReceipt.decode(answer, at: .root)
        } catch {
            throw .malformedAnswer(error.description)
        }
    }

    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        var query = [("limit", String(limit))]
        if let after { query.append(("after", after.rawValue)) }
        if let before { query.append(("before", before.rawValue)) }
        let answer = try await call("GET", "agent/messages", query: query)
        do {
            return try AgentRoomPage.decode(answer, at: .root)
        } catch {
            throw .malformedAnswer(error.description)
        }
    }

    private func unexpected(_ route: String) -> AgentRoomError {
        Issue.record("unexpected call to \(route)")
        return .transport("unexpected call to \(route)")
    }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { throw unexpected("descriptor") }
    func readState() async throws(AgentRoomError) -> AgentReadState { throw unexpected("readState") }
    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        throw unexpected("markRead")
    }
    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment { throw unexpected("upload") }
    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        throw unexpected("original")
    }
}

/// Performs every request; for the first `losing` submissions (`POST …/agent/messages`) it
/// reads the server's whole answer and then fails as if the connection dropped, so the server
/// did the work but the phone never hears of it. Records each submission's status and body.
final class AnswerLosingHTTPClient: HTTPClient {
    private let inner = URLSessionHTTPClient()
    private let state: Mutex<(toLose: Int, answers: [(status: Int, body: [UInt8])])>

    init(losing count: Int) { state = Mutex((count, [])) }

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

/// Follows `agent/stream` from the start of the room and hands every message to the sender,
/// as the room model's `onMessageMerged` hook will.
@MainActor
final class AgentRoomFollower {
    private let socket: SocketWebSocket<ContinuousClock>
    private var task: Task<Void, Never>?

    private init(socket: SocketWebSocket<ContinuousClock>) { self.socket = socket }

    static func connect(_ server: ReferenceServer, sender: AgentOutboxSender) async throws -> AgentRoomFollower {
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(endToEndToken)")
        let socket = try await SocketWebSocket.connect(
            to: URL(string: "ws://127.0.0.1:\(server.http.port)/agent/stream")!,
            options: WebSocketOptions(headers: headers), random: SeededRandomSource(seed: 5), clock: ContinuousClock())
        let follower = AgentRoomFollower(socket: socket)
        follower.task = Task { [socket] in
            do {
                for try await frame in socket.incoming {
                    guard case .text(let text) = frame else { continue }
                    switch try AgentStreamEvent.decode(frame: text) {
                    case .message(let message): sender.messageMerged(message)
                    case .activity, .read: break
                    }
                }
            } catch {
                if !Task.isCancelled { Issue.record("the room stream failed: \(error)") }
            }
        }
        return follower
    }

    func stop() async {
        task?.cancel()
        socket.close(code: WebSocketCloseCode.normal, reason: "")
        await task?.value
    }
}
