import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilTimeline
import SybilWire
import Testing

/// The Agent room when its server no longer has the history the room merged (restarted
/// without it, restored from an older copy, another server at the same address): the last
/// merged cursor is past anything the server has. Scripted sockets, a manual clock.
@MainActor
@Suite("Agent room after its server lost the history", .timeLimit(.minutes(2)))
struct AgentRoomHistoryLossTests {
    typealias F = AgentRoomFixtures

    let clock = ManualClock()
    let sockets = ScriptedAgentSockets()

    private func model(_ room: RestartingRoomAPI) throws -> AgentRoomModel {
        try F.model(api: room, sockets: sockets, clock: clock)
    }

    /// The delays of the stream's policy for its first drops, with its seed.
    private func delays(_ count: Int) -> [Duration] {
        var policy = ReconnectPolicy()
        let random = SeededRandomSource(seed: 5)
        return (0..<count).map { _ in policy.connectionDropped(uptime: .zero, random: random).delay }
    }

    /// A message of the server that came back: its cursors start again from the beginning.
    private static func fresh(_ sequence: Int, role: AgentRoomMessage.Role = .assistant) -> AgentRoomMessage {
        AgentRoomMessage(
            messageId: "new-\(sequence)", cursor: F.cursor(sequence), role: role, visibility: .public,
            text: "new \(sequence)", createdAt: 1_791_968_400_000 + Int64(sequence) * 60_000)
    }

    private func ids(_ model: AgentRoomModel) -> [String] { model.rows.compactMap(\.message?.messageId) }

    @Test func aCloseSayingTheHistoryNoLongerReachesTheCursorReplacesTheRoomWithTheServersHistory() async throws {
        let room = RestartingRoomAPI((1...3).map { F.message($0) }, readCursor: F.cursor(3))
        let model = try model(room)
        var merged: [String] = []
        model.onMessageMerged = { merged.append($0.messageId) }
        await model.start()
        let first = await sockets.connection(1)
        first.send(.message(F.message(4)))
        first.send(.message(F.message(5)))
        await waitForRoom("4 and 5") { model.history.messages.count == 5 }
        #expect(model.unreadCount == 2)

        // The server restarts without its history and someone talks to it; it refuses the
        // room's cursor when the room is back.
        first.lose()
        let delays = delays(2)
        await waitForRoom("the drop") { model.connection != .connected && model.connectionsOpened == 1 }
        room.restart(with: [Self.fresh(1, role: .user), Self.fresh(2)])
        clock.advance(by: delays[0])
        let refused = await sockets.connection(2)
        #expect(refused.after == "c-000000005")
        #expect(
            refused.url.query == "after=c-000000005&historyLost=close",
            "the room asks for close 4410; a server sends it to no client that does not")
        refused.close(with: AgentStreamClose.historyLost, reason: AgentStreamClose.historyLostReason)
        let delay = delays[1]
        await waitForRoom("the server's history") { model.history.messages.first?.messageId == "new-1" }
        #expect(
            model.connection
                == .reconnecting(
                    reason: "The Agent room's history no longer reaches c-000000005, where this app left off.",
                    retryIn: delay))
        #expect(model.history.messages.map(\.messageId) == ["new-1", "new-2"])
        #expect(model.history.lastMergedCursor == F.cursor(2))
        #expect(ids(model) == ["new-1", "new-2"], "none of the lost rows, no torn mix")
        #expect(model.roomError?.hasPrefix("The Agent room's server no longer has the history shown here") == true)
        await waitForRoom("the new server's read position") {
            model.readState?.readCursor == nil && model.readState != nil
        }
        #expect(model.unreadCount == 1, "unread counts the new server's reply, not the lost ones")
        #expect(sockets.attempts.count == 2, "no reconnect before the backoff")

        clock.advance(by: delay)
        let second = await sockets.connection(3)
        #expect(second.after == "c-000000002", "replays from the new history")
        second.send(.message(Self.fresh(2)))
        second.send(.message(Self.fresh(3)))
        await waitForRoom("the live reply") { model.history.messages.count == 3 }
        #expect(ids(model) == ["new-1", "new-2", "new-3"])
        #expect(model.roomError == nil, "the notice stays until something new arrives")
        #expect(merged == ["msg-1", "msg-2", "msg-3", "msg-4", "msg-5", "new-1", "new-2", "new-3"])
        await model.stop()
    }

    /// A server that does not send the close (another implementation of the API) but sends new
    /// messages at cursors the room holds other messages at: the room follows it afresh instead
    /// of refusing them as clashes forever.
    @Test func aStreamMessageAtACursorTheHistoryHoldsWithAnotherMessageStartsTheRoomAfresh() async throws {
        let room = RestartingRoomAPI((1...3).map { F.message($0) })
        let model = try model(room)
        await model.start()
        let first = await sockets.connection(1)
        first.close(with: WebSocketCloseCode.goingAway)
        await waitForRoom("the drop") { model.connection != .connected && model.connectionsOpened == 1 }
        room.restart(with: [Self.fresh(1, role: .user)])
        clock.advance(by: delays(1)[0])
        let second = await sockets.connection(2)
        #expect(second.after == "c-000000003")
        second.send(.message(Self.fresh(1, role: .user)))
        await waitForRoom("the server's history") { model.history.messages.first?.messageId == "new-1" }
        room.restart(with: [Self.fresh(1, role: .user), Self.fresh(2)])
        second.send(.message(Self.fresh(2)))
        await waitForRoom("the reply") { model.history.messages.count == 2 }
        #expect(ids(model) == ["new-1", "new-2"])
        #expect(model.history.lastMergedCursor == F.cursor(2))
        #expect(room.newestPageRequests == 2, "the start's page and one for the reset")
        await model.stop()
    }

    /// A server without 4410 sends a message at a cursor the room holds with another, and the
    /// reload of its history fails: what the stream sent meanwhile and after is not mixed into
    /// the history shown (two timelines); the room drops it, ends the connection at its next
    /// frame, and after the backoff replays from its cursor and reloads then.
    @Test func aFailedReloadDropsTheNewServersMessagesAndReconnectsAfterTheBackoff() async throws {
        let room = RestartingRoomAPI((1...3).map { F.message($0) })
        let model = try model(room)
        await model.start()
        let first = await sockets.connection(1)
        first.close(with: WebSocketCloseCode.goingAway)
        let delays = delays(3)
        await waitForRoom("the drop") { model.connection != .connected && model.connectionsOpened == 1 }
        room.restart(with: [Self.fresh(1, role: .user), Self.fresh(2), Self.fresh(3), Self.fresh(4)])
        room.failPages(1)
        let handled = model.updatesHandled
        clock.advance(by: delays[0])
        let second = await sockets.connection(2)
        second.send(.message(Self.fresh(1, role: .user)))
        second.send(.message(Self.fresh(2)))
        await waitForRoom("the failed reload") {
            model.roomError?.hasPrefix("The Agent room's history no longer matches") == true
                && model.updatesHandled == handled + 3
        }
        #expect(ids(model) == ["msg-1", "msg-2", "msg-3"], "nothing held during the reload is mixed in")
        // Frames after the failure: none is merged, and the first ends the connection.
        second.send(.message(Self.fresh(3)))
        second.send(.message(Self.fresh(4)))
        await waitForRoom("the reconnect wait") { model.connection != .connected }
        #expect(ids(model) == ["msg-1", "msg-2", "msg-3"], "no message of the other history is mixed in")
        try #require(second.clientCloses == [WebSocketCloseCode.normal], "the room ended the connection")
        #expect(model.history.lastMergedCursor == F.cursor(3))
        #expect(sockets.attempts.count == 2, "nothing before the backoff")

        clock.advance(by: delays[1])
        let third = await sockets.connection(3)
        #expect(third.after == "c-000000003", "replays from the room's cursor")
        third.send(.message(Self.fresh(1, role: .user)))
        await waitForRoom("the server's history") { model.history.messages.first?.messageId == "new-1" }
        #expect(ids(model) == ["new-1", "new-2", "new-3", "new-4"])
        await model.stop()
    }

    /// After a failed reload the room still shows the history the server lost: reaching its
    /// bottom posts no read position of it until the next connection (it could name the server's
    /// own unseen messages).
    @Test func aFailedReloadPostsNoReadPositionOfTheLostHistory() async throws {
        let room = RestartingRoomAPI((1...3).map { F.message($0) })
        room.recordReads()
        let model = try model(room)
        await model.start()
        let first = await sockets.connection(1)
        first.close(with: WebSocketCloseCode.goingAway)
        let delays = delays(1)
        await waitForRoom("the drop") { model.connection != .connected && model.connectionsOpened == 1 }
        room.restart(with: [Self.fresh(1, role: .user), Self.fresh(2), Self.fresh(3), Self.fresh(4)])
        room.failPages(1)
        clock.advance(by: delays[0])
        let second = await sockets.connection(2)
        second.send(.message(Self.fresh(1, role: .user)))
        await waitForRoom("the failed reload") {
            model.roomError?.hasPrefix("The Agent room's history no longer matches") == true
        }
        let handled = model.updatesHandled
        model.isSelected = true
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        // A frame after the gate's events: once it is handled, any read they caused was started.
        second.send(.activity(.idle, detail: ""))
        await waitForRoom("the frame") { model.updatesHandled > handled || model.connection != .connected }
        #expect(room.readsPosted.isEmpty, "no cursor of the lost history is posted: \(room.readsPosted)")
        await model.stop()
    }

    /// A hostile server that refuses every cursor: each refusal costs one page, and the
    /// reconnects wait the growing backoff; nothing runs between them.
    @Test func aServerThatRefusesEveryCursorIsRetriedOnlyAfterAGrowingBackoff() async throws {
        let room = RestartingRoomAPI((1...2).map { F.message($0) })
        let model = try model(room)
        await model.start()
        let delays = delays(3)
        for attempt in 1...3 {
            let socket = await sockets.connection(attempt)
            #expect(socket.after == "c-000000002")
            socket.close(with: AgentStreamClose.historyLost)
            await waitForRoom("the refusal") {
                model.connection != .connected && model.connectionsOpened == attempt
                    && room.newestPageRequests == attempt + 1
            }
            #expect(
                model.connection
                    == .reconnecting(
                        reason: "The Agent room's history no longer reaches c-000000002, where this app left off.",
                        retryIn: delays[attempt - 1]))
            #expect(sockets.attempts.count == attempt, "nothing before the backoff passed")
            clock.advance(by: delays[attempt - 1])
        }
        #expect(delays[0] < delays[1] && delays[1] < delays[2])
        #expect(ids(model) == ["msg-1", "msg-2"])
        await model.stop()
    }
}

/// The Agent room's REST surface of a server that can restart with another history; only the
/// calls the room makes on its own are answered, any other fails the test.
final class RestartingRoomAPI: AgentRoomAPI {
    private struct State {
        var messages: [AgentRoomMessage]
        var readCursor: AgentCursor?
        var newestPageRequests = 0
        var submissions: [AgentRoomSubmission] = []
        var failingPages = 0
        var recordsReads = false
        var readsPosted: [AgentCursor] = []
    }

    private let state: Locked<State>
    private let acceptsSubmissions: Bool

    /// A server holding `messages`; with `acceptsSubmissions`, messages are stored once per
    /// request id after the newest one (nothing is streamed: the test sends the echo).
    init(_ messages: [AgentRoomMessage], readCursor: AgentCursor? = nil, acceptsSubmissions: Bool = false) {
        state = Locked(State(messages: messages, readCursor: readCursor))
        self.acceptsSubmissions = acceptsSubmissions
    }

    /// Submissions received, in order.
    var submissions: [AgentRoomSubmission] { state.withLock { $0.submissions } }

    /// The stored message with `requestId`.
    func stored(_ requestId: String) -> AgentRoomMessage? {
        state.withLock { $0.messages.first { $0.requestId == requestId } }
    }

    /// The server came back with `messages` and no read position.
    func restart(with messages: [AgentRoomMessage]) {
        state.withLock {
            $0.messages = messages
            $0.readCursor = nil
        }
    }

    /// Shared reads are recorded (``readsPosted``) instead of failing the test.
    func recordReads() { state.withLock { $0.recordsReads = true } }

    /// The shared reads posted, in order (with ``recordReads()``).
    var readsPosted: [AgentCursor] { state.withLock { $0.readsPosted } }

    /// The next `count` pages fail (the server cannot be reached).
    func failPages(_ count: Int) { state.withLock { $0.failingPages = count } }

    /// Pages asked without a cursor (the newest messages).
    var newestPageRequests: Int { state.withLock { $0.newestPageRequests } }

    func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor { AgentRoomFixtures.descriptor() }

    func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError) -> AgentRoomPage {
        guard after == nil, before == nil else {
            Issue.record("unexpected page after \(String(describing: after)) before \(String(describing: before))")
            throw .transport("unexpected call")
        }
        let failing = state.withLock { state in
            state.newestPageRequests += 1
            defer { state.failingPages = max(0, state.failingPages - 1) }
            return state.failingPages > 0
        }
        if failing { throw .transport("the server could not be reached") }
        return state.withLock { state in
            let page = Array(state.messages.suffix(limit))
            return AgentRoomPage(
                messages: page, nextCursor: page.last?.cursor, hasMoreBefore: page.count < state.messages.count)
        }
    }

    func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        guard acceptsSubmissions else {
            Issue.record("unexpected submit")
            throw .transport("unexpected call")
        }
        let message = state.withLock { state -> AgentRoomMessage in
            state.submissions.append(submission)
            if let earlier = state.messages.first(where: { $0.requestId == submission.requestId }) { return earlier }
            let sequence = (state.messages.last.flatMap { Int($0.cursor.rawValue.dropFirst(2)) } ?? 0) + 1
            let message = AgentRoomMessage(
                messageId: "stored-\(sequence)", cursor: AgentRoomFixtures.cursor(sequence),
                requestId: submission.requestId, role: .user, visibility: .public, text: submission.text,
                createdAt: submission.createdAt)
            state.messages.append(message)
            return message
        }
        return AgentRoomReceipt(
            requestId: submission.requestId, messageId: message.messageId, cursor: message.cursor, attachments: [])
    }

    func readState() async throws(AgentRoomError) -> AgentReadState {
        state.withLock { state in
            AgentReadState(
                readCursor: state.readCursor,
                unread: state.messages.filter { message in
                    message.countsAsUnread && state.readCursor.map { $0 < message.cursor } ?? true
                }.count)
        }
    }

    func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        let recorded = state.withLock { state in
            if state.recordsReads { state.readsPosted.append(cursor) }
            return state.recordsReads
        }
        guard recorded else {
            Issue.record("unexpected shared read")
            throw .transport("unexpected call")
        }
        return try await readState()
    }

    func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
        Issue.record("unexpected upload")
        throw .transport("unexpected call")
    }

    func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        Issue.record("unexpected download")
        throw .transport("unexpected call")
    }
}
