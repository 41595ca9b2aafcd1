import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization
import Testing

/// The Agent room against the reference server over real sockets: the REST client, the
/// WebSocket stream through `SocketWebSocket`, and the room model, each with its real
/// transport. Reconnect waits run on a manual clock the test advances.
@MainActor
@Suite("Agent room end to end", .timeLimit(.minutes(2)))
struct AgentRoomEndToEndTests {
    /// The reference server for the room: no pause in the agent's replies, time fixed at
    /// 1,800,000,000,000 ms (every message on one day), no rate limit in the way.
    /// A loopback address only the restart tests bind: other tests' servers bind 127.0.0.1, so
    /// none of them can be handed the port a restarting server gave up, and the room's client
    /// never reconnects to another test's server.
    private static let restartLoopback = "127.0.0.78"

    /// The room's server again on `port` of ``restartLoopback`` (its clients keep their base
    /// URL). The kernel may briefly hold the port it just freed, so binding is retried for up
    /// to 5 s.
    private func restartRoomServer(port: Int, storage: SybilServerOptions.Storage) async throws -> ReferenceServer {
        var attempt = 0
        while true {
            do {
                return try startRoomServer(host: Self.restartLoopback, port: port, storage: storage)
            } catch  where attempt < 100 {
                attempt += 1
                // Waits for the operating system to free a port (not a rule under test).
                try await ContinuousClock().sleep(for: .milliseconds(50))
            }
        }
    }

    private func startRoomServer(
        host: String = "127.0.0.1", port: Int = 0, storage: SybilServerOptions.Storage = .inMemory,
        _ configure: (inout SybilServerOptions) -> Void = { _ in }
    ) throws -> ReferenceServer {
        var options = SybilServerOptions(token: endToEndToken)
        options.pace = .zero
        options.messagesPerMinute = 100_000
        options.storage = storage
        configure(&options)
        return try ReferenceServer(
            options: options, configuration: HTTPServer.Configuration(host: host, port: port),
            time: ServerTime(clock: ManualClock()) { 1_800_000_000_000 })
    }

    private func room(
        _ base: String, clock: ManualClock, tokens: TokenProvider = endToEndTokens(), pageSize: Int = 50,
        connector: RecordingStreamConnector? = nil
    ) throws -> AgentRoomModel {
        AgentRoomModel(
            base: try AgentAPIBase(string: base), tokens: tokens, http: DefaultHTTPClient.make(redirects: .deliver),
            connector: connector ?? RecordingStreamConnector(clock: clock), clock: clock,
            random: SeededRandomSource(seed: 11), timeZone: TimeZone(secondsFromGMT: 0)!, pageSize: pageSize)
    }

    private func client(_ base: String) throws -> AgentRoomHTTPClient {
        AgentRoomHTTPClient(
            base: try AgentAPIBase(string: base), http: DefaultHTTPClient.make(redirects: .deliver),
            tokens: endToEndTokens(), random: SeededRandomSource(seed: 12))
    }

    @discardableResult
    private func say(_ text: String, to api: any AgentRoomAPI, id: String) async throws -> AgentRoomReceipt {
        try await api.submit(AgentRoomSubmission(requestId: id, text: text, createdAt: 1_800_000_000_000))
    }

    private func isReconnecting(_ model: AgentRoomModel) -> Bool {
        if case .reconnecting = model.connection { true } else { false }
    }

    // MARK: Live replies, hidden tool traffic

    @Test func toolTrafficIsHiddenAndAsynchronousRepliesArriveLive() async throws {
        let server = try startRoomServer()
        let model = try room(server.baseURL.absoluteString, clock: ManualClock())
        var echoes: [String] = []
        model.onMessageMerged = { if let requestId = $0.requestId { echoes.append(requestId) } }
        await model.start()
        await waitUntil("the stream") { model.connection == .connected }
        let receipt = try await say("Summarise the build failures.", to: model.api, id: "req-1")
        await waitUntil("the reply") { model.history.messages.count == 3 }
        #expect(model.history.messages.map(\.role) == [.user, .tool, .assistant])
        #expect(model.rows.compactMap(\.message).map(\.role) == [.user, .assistant], "the tool call is hidden")
        #expect(model.history.messages.first?.messageId == receipt.messageId)
        #expect(echoes == ["req-1"], "the canonical echo reached the hook")
        await waitUntil("the agent to go idle") { model.activity == .idle }
        #expect(model.roomError == nil)
        await model.stop()
        await server.shutdown()
    }

    // MARK: Unread and the shared read

    @Test func unreadWhileNotSelectedIsClearedByTheSharedReadOnEveryDevice() async throws {
        let server = try startRoomServer()
        let phone = try room(server.baseURL.absoluteString, clock: ManualClock())
        let tablet = try room(server.baseURL.absoluteString, clock: ManualClock())
        await phone.start()
        await tablet.start()
        await waitUntil("both streams") { phone.connection == .connected && tablet.connection == .connected }
        try await say("Is the build green?", to: phone.api, id: "req-1")
        await waitUntil("the reply on both") { phone.unreadCount == 1 && tablet.unreadCount == 1 }
        #expect(phone.badgeCount == 1)
        phone.isSelected = true
        #expect(phone.badgeCount == 0)
        phone.viewportReachedBottom()
        phone.entranceAnimationFinished()
        await waitUntil("the shared read on both") { phone.unreadCount == 0 && tablet.unreadCount == 0 }
        let reply = try #require(phone.history.messages.last)
        #expect(reply.role == .assistant)
        #expect(tablet.readState?.readCursor == reply.cursor)
        #expect(
            try await client(server.baseURL.absoluteString).readState()
                == AgentReadState(readCursor: reply.cursor, unread: 0))
        await phone.stop()
        await tablet.stop()
        await server.shutdown()
    }

    // MARK: Reconnects replay from the last merged cursor

    /// The reconnect tests' room: its server keeps its data in `directory` on
    /// ``restartLoopback`` (so it can come back on the same port), its clock is manual and its
    /// connector records where each stream resumed.
    private func reconnectingRoom(
        in directory: URL
    ) throws -> (ReferenceServer, ManualClock, RecordingStreamConnector, AgentRoomModel) {
        let server = try startRoomServer(host: Self.restartLoopback, storage: .directory(directory.path))
        let clock = ManualClock()
        let connector = RecordingStreamConnector(clock: clock)
        let model = try room(server.baseURL.absoluteString, clock: clock, connector: connector)
        return (server, clock, connector, model)
    }

    /// Starts `model`, says "one" through it and waits for the exchange, then takes `server`
    /// away and waits until the room is reconnecting.
    private func loseTheServer(_ server: ReferenceServer, of model: AgentRoomModel) async throws {
        await model.start()
        await waitUntil("the stream") { model.connection == .connected }
        try await say("one", to: model.api, id: "req-1")
        await waitUntil("the first exchange") { model.history.messages.count == 3 }
        await server.shutdown()
        await waitUntil("the drop") { isReconnecting(model) }
    }

    /// Brings the lost `server` back on its port, where another device says "two" before the
    /// room is back; returns the server that came back.
    private func bringBack(_ server: ReferenceServer, directory: URL) async throws -> ReferenceServer {
        let back = try await restartRoomServer(
            port: try #require(server.baseURL.port), storage: .directory(directory.path))
        // While the room was away, another device talked to the agent.
        try await say("two", to: try client(server.baseURL.absoluteString), id: "req-2")
        return back
    }

    @Test func aServerThatDropsTheSocketIsReplayedFromTheLastMergedCursorWithoutDuplicates() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, clock, connector, model) = try reconnectingRoom(in: directory)
        let base = first.baseURL.absoluteString
        var merged: [String] = []
        model.onMessageMerged = { merged.append($0.messageId) }
        try await loseTheServer(first, of: model)
        guard case .reconnecting(_, let retryIn) = model.connection else { return }
        let server = try await bringBack(first, directory: directory)
        clock.advance(by: retryIn)
        await waitUntil("the replay") { model.history.messages.count == 6 }
        let all = try await client(base).messages(after: nil, before: nil, limit: 200).messages
        #expect(model.history.messages == all)
        #expect(merged == all.map(\.messageId), "every message merged once")
        #expect(connector.afters == [nil, "c-000000003"])
        await model.stop()
        await server.shutdown()
    }

    @Test func foregroundReconnectsAtOnceAndReplaysWhatWasMissed() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, _, connector, model) = try reconnectingRoom(in: directory)
        try await loseTheServer(first, of: model)
        let server = try await bringBack(first, directory: directory)
        // The backoff has not passed (the clock never moves here): coming to the foreground
        // reconnects at once.
        model.foreground()
        await waitUntil("the replay") { model.history.messages.count == 6 }
        #expect(Set(model.history.messages.map(\.messageId)).count == 6)
        #expect(connector.afters == [nil, "c-000000003"])
        #expect(model.rows.compactMap(\.message).map(\.text).contains("two"))
        await model.stop()
        await server.shutdown()
    }

    // MARK: A malformed replay

    @Test func aMalformedReplayIsRejectedWithoutLosingTheHistory() async throws {
        let fake = try FakeAgentRoomServer(
            page: [Self.message(1), Self.message(2), Self.message(3)],
            streams: [
                // The first connection: a good message, one whose cursor is broken, one more.
                [
                    Self.frame(Self.message(4)),
                    Self.frame(Self.message(5)).replacingOccurrences(of: "c-000000005", with: "c 5"),
                    Self.frame(Self.message(6)),
                ],
                // The reconnect, from c-4.
                [Self.frame(Self.message(5)), Self.frame(Self.message(6))],
            ])
        let clock = ManualClock()
        let model = try room(fake.server.url.absoluteString, clock: clock)
        await model.start()
        await waitUntil("the malformed frame") { model.roomError != nil }
        #expect(model.history.messages.map(\.messageId) == ["msg-1", "msg-2", "msg-3", "msg-4"])
        #expect(model.history.lastMergedCursor == Self.cursor(4))
        #expect(model.rows.compactMap(\.message).count == 4, "nothing shown was lost")
        #expect(model.roomError?.contains("frame 2 of this connection") == true)
        guard case .reconnecting(_, let retryIn) = model.connection else {
            Issue.record("expected a reconnect after the malformed frame, got \(model.connection)")
            return
        }
        clock.advance(by: retryIn)
        await waitUntil("the good replay") { model.history.messages.count == 6 }
        #expect(model.roomError == nil)
        #expect(
            fake.streamTargets == [
                "/agent/stream?after=c-000000003&historyLost=close",
                "/agent/stream?after=c-000000004&historyLost=close",
            ])
        await model.stop()
    }

    // MARK: A long history

    @Test func aLongHistoryKeepsTheScrollAnchorWhileOlderPagesLoad() async throws {
        let server = try startRoomServer()
        let base = server.baseURL.absoluteString
        // 167 exchanges: user message, hidden tool call, reply — 501 messages.
        let observer = try room(base, clock: ManualClock())
        await observer.start()
        await waitUntil("the observer's stream") { observer.connection == .connected }
        let api = try client(base)
        for index in 1...167 { try await say("question \(index)", to: api, id: "req-\(index)") }
        await waitUntil("all 501 messages") { observer.history.messages.count == 501 }
        await observer.stop()

        let model = try room(base, clock: ManualClock())
        await model.start()
        #expect(model.history.messages.count == 50)
        var pages = 0
        while model.hasMoreBefore {
            let anchor = try #require(model.anchor(forRowAt: 0))
            let anchorRow = try #require(model.rowIndex(of: .message(anchor)))
            let below = Array(model.rows[anchorRow...])
            await model.loadOlder()
            pages += 1
            let moved = try #require(model.rowIndex(of: .message(anchor)), "the anchor is still shown")
            #expect(moved > anchorRow, "rows came above the anchor")
            #expect(Array(model.rows[moved...]) == below, "nothing at or below the anchor changed")
            if pages > 20 { break }
        }
        let shown = model.rows.compactMap(\.message)
        #expect(shown.count == 334, "every user message and reply; no tool call")
        #expect(shown.allSatisfy { $0.isVisible })
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.cursor < $1.cursor })
        #expect(model.history.messages.count == 501)
        await model.stop()
        await server.shutdown()
    }

    /// A server that says older messages exist but answers the page before the oldest with
    /// nothing new (an empty page, or a message already shown at another cursor): the load asks
    /// once, says so and ends; scrolling to the top again asks again.
    @Test(arguments: [
        AgentRoomPage(messages: [], nextCursor: nil, hasMoreBefore: true),
        AgentRoomPage(
            messages: [
                AgentRoomMessage(
                    messageId: "msg-4", cursor: AgentCursor("c-000000001")!, role: .assistant, visibility: .public,
                    text: "reply 4",
                    createdAt: 1_800_000_000_004)
            ], nextCursor: AgentCursor("c-000000001")!, hasMoreBefore: true),
    ])
    func anOlderPageThatBringsNothingEndsTheLoad(older: AgentRoomPage) async throws {
        let fake = try FakeAgentRoomServer(
            page: [Self.message(4), Self.message(5)], hasMoreBefore: true, older: older, streams: [])
        let model = try room(fake.server.url.absoluteString, clock: ManualClock())
        await model.start()
        #expect(model.hasMoreBefore)
        let ended = Mutex(false)
        let loading = Task { @MainActor in
            await model.loadOlder()
            ended.withLock { $0 = true }
        }
        await waitUntil("the load ended, or asked a second time") {
            ended.withLock { $0 } || fake.olderPageRequests > 1
        }
        #expect(fake.olderPageRequests == 1, "the same page asked again and again")
        #expect(ended.withLock { $0 })
        #expect(!model.isLoadingOlder)
        #expect(model.roomError?.contains("Scroll to the top again") == true)
        #expect(model.history.messages.map(\.messageId) == ["msg-4", "msg-5"])
        await model.loadOlder()
        #expect(fake.olderPageRequests == 2, "a new scroll to the top asks again")
        await model.stop()
        await loading.value
    }

    // MARK: Configuration and failures

    @Test func theAPIBaseMayCarryAnAPIPath() async throws {
        let server = try startRoomServer()
        let base = server.baseURL.absoluteString + "/api/"
        let api = try client(base)
        #expect(try await api.descriptor().roomId == "room-main")
        let model = try room(base, clock: ManualClock())
        await model.start()
        await waitUntil("the stream under /api") { model.connection == .connected }
        try await say("hello", to: model.api, id: "req-1")
        await waitUntil("the reply under /api") { model.history.messages.count == 3 }
        #expect(model.roomError == nil)
        await model.stop()
        await server.shutdown()
    }

    @Test func multipartUploadsRoundTripThroughTheServer() async throws {
        let server = try startRoomServer()
        let api = try client(server.baseURL.absoluteString)
        let bytes = Array("line one\r\n--not a boundary\r\n".utf8) + [0, 255]
        let file = AgentUploadFile(
            uploadId: "0d9c6a4e-2b7f-4f0e-8b61-55a1c3e9d702", fileName: "build.log", mimeType: "text/plain",
            bytes: bytes)
        let stored = try await api.upload(file)
        #expect(stored.size == Int64(bytes.count))
        #expect(stored.sha256 == SHA256Digest.hex(bytes))
        #expect(try await api.upload(file) == stored, "a second retry with the same id and bytes is the same upload")
        #expect(try await api.original(of: stored) == bytes)
        var other = file
        other.bytes = [1, 2, 3]
        let error = await #expect(throws: AgentRoomError.self) { _ = try await api.upload(other) }
        #expect(error?.status == 409)
        #expect(error?.code == "upload_conflict")
        await server.shutdown()
    }

    @Test func aTokenTheServerRefusesAsksThePersonToSignInAgain() async throws {
        let server = try startRoomServer()
        let refused = TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["e2e": "wrong"]), account: "e2e"))
        let model = try room(server.baseURL.absoluteString, clock: ManualClock(), tokens: refused)
        await model.start()
        await waitUntil("the refused stream") { model.roomError?.contains("sign in again") == true }
        #expect(model.connectionsOpened == 0)
        #expect(model.descriptor == nil)
        await model.stop()
        await server.shutdown()
    }

    @Test func unavailableAttachmentsTurnAttachmentsOffButKeepTheRoom() async throws {
        let server = try startRoomServer { $0.attachmentsAvailable = false }
        let model = try room(server.baseURL.absoluteString, clock: ManualClock())
        await model.start()
        #expect(model.attachmentLimits == .v1)
        try await say("text still works", to: model.api, id: "req-1")
        await waitUntil("the 4503") { !model.attachmentsAvailable && isReconnecting(model) }
        #expect(model.connection.description.contains("open proxy"))
        await model.stop()
        await server.shutdown()
    }

    // MARK: Fixtures

    static func cursor(_ sequence: Int) -> AgentCursor {
        let digits = String(sequence)
        return AgentCursor("c-" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits)!
    }

    static func message(_ sequence: Int) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "msg-\(sequence)", cursor: cursor(sequence), role: .assistant, visibility: .public,
            text: "reply \(sequence)", createdAt: 1_800_000_000_000 + Int64(sequence))
    }

    static func frame(_ message: AgentRoomMessage) -> String {
        JSONWriter().string(from: AgentStreamEvent.message(message).jsonValue)
    }
}

extension AgentRoomModel.Connection {
    /// The reason of a reconnect, for messages.
    fileprivate var description: String {
        if case .reconnecting(let reason, _) = self { reason } else { "\(self)" }
    }
}
