import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilTimeline
import SybilWire
import Synchronization
import Testing

@MainActor
@Suite("Agent room model", .timeLimit(.minutes(2)))
struct AgentRoomModelTests {
    typealias F = AgentRoomFixtures

    let clock = ManualClock()
    let sockets = ScriptedAgentSockets()

    private func model(_ room: FakeRoomAPI, pageSize: Int = 50) throws -> AgentRoomModel {
        AgentRoomModel(
            api: room,
            stream: AgentRoomStream(
                base: try AgentAPIBase(string: "https://h/api"), tokens: F.tokens(), connector: sockets, clock: clock,
                random: SeededRandomSource(seed: 5)),
            timeZone: TimeZone(secondsFromGMT: 0)!, pageSize: pageSize)
    }

    private func messageIds(_ model: AgentRoomModel) -> [String] {
        model.rows.compactMap(\.message?.messageId)
    }

    /// The delays of the stream's policy for its first drops, with its seed.
    private func delays(_ count: Int) -> [Duration] {
        var policy = ReconnectPolicy()
        let random = SeededRandomSource(seed: 5)
        return (0..<count).map { _ in policy.connectionDropped(uptime: .zero, random: random).delay }
    }

    @Test func startLoadsTheNewestPageAndSubscribesFromItsCursorWithToolTrafficHidden() async throws {
        let room = FakeRoomAPI([
            F.message(1, role: .user), F.message(2, role: .tool, visibility: .internal), F.message(3),
        ])
        let model = try model(room)
        var merged: [String] = []
        model.onMessageMerged = { merged.append($0.messageId) }
        await model.start()
        #expect(messageIds(model) == ["msg-1", "msg-3"])
        #expect(model.rows.first?.id == .day(AgentTranscriptDay(dayNumber: 20_740)))
        #expect(room.calls == [.descriptor, .messages, .readState])
        let socket = await sockets.connection(1)
        #expect(socket.after == "c-000000003")
        socket.send(.message(F.message(4, role: .tool, visibility: .internal)))
        socket.send(.message(F.message(5)))
        await waitForRoom("the live reply") { model.history.messages.count == 5 }
        #expect(messageIds(model) == ["msg-1", "msg-3", "msg-5"])
        #expect(merged == ["msg-1", "msg-2", "msg-3", "msg-4", "msg-5"])
        #expect(model.connection == .connected)
        await model.stop()
    }

    @Test func theEchoOfASubmissionReachesTheHookWithItsRequestId() async throws {
        let model = try model(FakeRoomAPI())
        var echoes: [String?] = []
        model.onMessageMerged = { echoes.append($0.requestId) }
        await model.start()
        await sockets.connection(1).send(.message(F.message(1, role: .user, requestId: "req-1")))
        await waitForRoom("the echo") { echoes.count == 1 }
        #expect(echoes == ["req-1"])
        await model.stop()
    }

    @Test func unreadCountsWhileAnotherChatIsSelectedAndTheRoomStaysSubscribed() async throws {
        let room = FakeRoomAPI([F.message(1)])
        room.setReadCursor(F.cursor(1))
        let model = try model(room)
        await model.start()
        #expect(model.unreadCount == 0)
        let socket = await sockets.connection(1)
        socket.send(.message(F.message(2)))
        socket.send(.message(F.message(3, role: .tool, visibility: .internal)))
        socket.send(.message(F.message(4, role: .user)))
        await waitForRoom("three live messages") { model.history.messages.count == 4 }
        #expect(model.unreadCount == 1, "one public assistant reply")
        #expect(model.badgeCount == 1)
        model.isSelected = true
        #expect(model.badgeCount == 0, "the selected room shows no badge")
        #expect(model.unreadCount == 1, "but nothing is read until bottom and animation")
        model.isSelected = false
        socket.send(.message(F.message(5)))
        await waitForRoom("another reply") { model.unreadCount == 2 }
        #expect(model.badgeCount == 2)
        #expect(sockets.opened.count == 1, "selection never touched the subscription")
        await model.stop()
    }

    @Test func theNewMarkerStaysWhereItWasWhenTheRoomOpenedUntilTheRoomIsLeft() async throws {
        let room = FakeRoomAPI([F.message(1), F.message(2, role: .user), F.message(3), F.message(4)])
        room.setReadCursor(F.cursor(1))
        let model = try model(room)
        await model.start()
        #expect(model.unreadMarkerMessageId == nil, "no marker while another chat is selected")
        model.isSelected = true
        #expect(model.unreadMarkerMessageId == "msg-3", "the first unread reply as the room opened")
        model.entranceAnimationFinished()
        model.viewportReachedBottom()
        await waitForRoom("the shared read") { model.unreadCount == 0 }
        #expect(model.unreadMarkerMessageId == "msg-3", "reading does not move it")
        let socket = await sockets.connection(1)
        socket.send(.message(F.message(5)))
        await waitForRoom("a new reply") { model.history.messages.count == 5 }
        #expect(model.unreadMarkerMessageId == "msg-3")
        model.isSelected = false
        #expect(model.unreadMarkerMessageId == nil, "leaving the room clears it")
        model.isSelected = true
        await waitForRoom("the second shared read") { model.readState?.readCursor == F.cursor(4) }
        #expect(model.unreadMarkerMessageId == "msg-5", "reopened: above what is unread now")
        await model.stop()
    }

    @Test func aRoomSelectedBeforeItsReadPositionArrivedPlacesTheMarkerWhenItDoes() async throws {
        let room = FakeRoomAPI([F.message(1), F.message(2)])
        room.setReadCursor(F.cursor(1))
        let model = try model(room)
        model.isSelected = true
        #expect(model.unreadMarkerMessageId == nil)
        await model.start()
        #expect(model.unreadMarkerMessageId == "msg-2")
        await model.stop()
    }

    @Test func nothingIsAcknowledgedWhileTheRoomIsNotSelected() async throws {
        let room = FakeRoomAPI([F.message(1)])
        let model = try model(room)
        await model.start()
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        await model.stop()  // awaits any post the model started
        #expect(room.markReads.isEmpty)
        #expect(model.unreadCount == 1)
    }

    @Test func theSharedReadIsAcknowledgedAfterBottomAndAnimationWithTheNewestVisibleCursor() async throws {
        let room = FakeRoomAPI([F.message(1), F.message(2), F.message(3, role: .tool, visibility: .internal)])
        let model = try model(room)
        await model.start()
        model.isSelected = true
        #expect(model.unreadCount == 2)
        model.entranceAnimationFinished()
        model.viewportReachedBottom()
        await waitForRoom("the shared read") { model.unreadCount == 0 }
        #expect(room.markReads == [F.cursor(2)], "the newest visible message, not the hidden tool call")
        #expect(model.readState == AgentReadState(readCursor: F.cursor(2), unread: 0))
        // Once per cursor; a new reply needs bottom and animation again.
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        let socket = await sockets.connection(1)
        socket.send(.message(F.message(4)))
        await waitForRoom("the new reply") { model.unreadCount == 1 }
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        await waitForRoom("the second shared read") { model.unreadCount == 0 }
        await model.stop()
        #expect(room.markReads == [F.cursor(2), F.cursor(4)])
    }

    @Test func aReadPositionFromAnotherDeviceAheadWins() async throws {
        let room = FakeRoomAPI([F.message(1), F.message(2)])
        let model = try model(room)
        await model.start()
        let socket = await sockets.connection(1)
        socket.send(.read(AgentReadState(readCursor: F.cursor(2), unread: 0)))
        await waitForRoom("the other device's read") { model.unreadCount == 0 }
        socket.send(.read(AgentReadState(readCursor: F.cursor(1), unread: 1)))
        socket.send(.activity(.idle, detail: ""))
        await waitForRoom("both frames") { model.updatesHandled == 4 }
        #expect(model.readState?.readCursor == F.cursor(2), "never backwards")
        #expect(model.unreadCount == 0)
        model.isSelected = true
        model.viewportReachedBottom()
        model.entranceAnimationFinished()
        await model.stop()
        #expect(room.markReads.isEmpty, "c-2 was read elsewhere already")
    }

    @Test func foregroundAndNetworkRecoveryReplayFromTheLastMergedCursorWithoutDuplicates() async throws {
        let room = FakeRoomAPI([F.message(1), F.message(2), F.message(3)])
        let model = try model(room)
        var merged: [String] = []
        model.onMessageMerged = { merged.append($0.messageId) }
        await model.start()
        let first = await sockets.connection(1)
        first.send(.message(F.message(4)))
        first.send(.message(F.message(5)))
        await waitForRoom("4 and 5") { model.history.messages.count == 5 }
        model.foreground()
        let second = await sockets.connection(2)
        #expect(second.after == "c-000000005")
        #expect(await first.clientClose() == WebSocketCloseCode.goingAway, "the old connection is closed")
        // The server replays what the client may have missed, overlapping what it has.
        for sequence in [4, 5, 6] { second.send(.message(F.message(sequence))) }
        await waitForRoom("6") { model.history.messages.count == 6 }
        model.networkRecovered()
        let third = await sockets.connection(3)
        #expect(third.after == "c-000000006")
        third.send(.message(F.message(6)))
        third.send(.message(F.message(7)))
        await waitForRoom("7") { model.history.messages.count == 7 }
        #expect(messageIds(model) == (1...7).map { "msg-\($0)" })
        #expect(merged == (1...7).map { "msg-\($0)" }, "each message merged once")
        await waitForRoom("the read position read again on each recovery") {
            room.calls.filter { $0 == .readState }.count == 3
        }
        await model.stop()
    }

    @Test func aDroppedConnectionReconnectsAfterTheBackoffFromTheLastMergedCursor() async throws {
        let model = try model(FakeRoomAPI([F.message(1)]))
        await model.start()
        let first = await sockets.connection(1)
        first.send(.activity(.working, detail: "Reading build.log"))
        await waitForRoom("the activity") { model.activity == .working(detail: "Reading build.log") }
        first.send(.message(F.message(2)))
        first.close(with: 1001)
        let delay = delays(1)[0]
        await waitForRoom("the drop") { model.connection != .connected }
        #expect(
            model.connection
                == .reconnecting(reason: "The Agent room closed the connection (1001).", retryIn: delay))
        #expect(model.activity == .idle, "activity is not replayed: it is not shown as still going")
        clock.advance(by: delay)
        #expect(await sockets.connection(2).after == "c-000000002")
        await waitForRoom("the reconnect") { model.connectionsOpened == 2 }
        #expect(model.connection == .connected)
        await model.stop()
    }

    private static func isReconnecting(_ model: AgentRoomModel) -> Bool {
        if case .reconnecting = model.connection { true } else { false }
    }

    /// Neither a policy close (1008) nor a busy server (1013) is a rejected token: the status
    /// line says why and when the room tries again, and no sign-in error is shown.
    @Test func aPolicyCloseOrABusyServerShowsWhyOnTheStatusLineAndNoSignInError() async throws {
        let model = try model(FakeRoomAPI([F.message(1)]))
        await model.start()
        let delays = delays(2)
        await sockets.connection(1).close(with: 1008, reason: "too many connections")
        await waitForRoom("the policy close") { Self.isReconnecting(model) }
        #expect(
            model.connection
                == .reconnecting(
                    reason: "The Agent room closed the connection (1008, too many connections).", retryIn: delays[0]))
        clock.advance(by: delays[0])
        await waitForRoom("the reconnect") { model.connectionsOpened == 2 }
        await sockets.connection(2).close(
            with: 1013, reason: "server busy: messages from this connection waited too long")
        await waitForRoom("the busy close") { Self.isReconnecting(model) }
        #expect(
            model.connection
                == .reconnecting(
                    reason: "The Agent room is busy and asked to be tried again later "
                        + "(server busy: messages from this connection waited too long).",
                    retryIn: delays[1]))
        #expect(model.roomError == nil, "no sign-in error")
        await model.stop()
    }

    @Test func attachmentsFollowTheDescriptorAnd4503UntilAReconnectFindsThemAgain() async throws {
        let room = FakeRoomAPI()
        let model = try model(room)
        await model.start()
        #expect(model.attachmentsAvailable)
        #expect(model.attachmentLimits == .v1)
        await sockets.connection(1).close(with: 4503)
        await waitForRoom("the 4503") { !model.attachmentsAvailable }
        #expect(model.attachmentLimits == .v1, "drafts keep their limits")
        clock.advance(by: delays(1)[0])
        await waitForRoom("the reconnect's check") { model.attachmentsAvailable }
        #expect(room.calls.filter { $0 == .descriptor }.count == 2)
        // A 503 reported by an upload, then a reconnect whose descriptor is text-only.
        model.attachmentsBecameUnavailable()
        #expect(!model.attachmentsAvailable)
        room.setDescriptor(F.descriptor(attachments: false))
        model.networkRecovered()
        await waitForRoom("the third descriptor") { room.calls.filter { $0 == .descriptor }.count == 3 }
        await waitForRoom("the text-only descriptor") { model.descriptor?.attachments == nil }
        #expect(!model.attachmentsAvailable)
        #expect(model.attachmentLimits == nil)
        await model.stop()
    }

    @Test func aMalformedFrameKeepsTheHistoryShowsWhyAndClearsWhenTheRoomRecovers() async throws {
        let model = try model(FakeRoomAPI([F.message(1), F.message(2)]))
        await model.start()
        let first = await sockets.connection(1)
        first.send(.message(F.message(3)))
        first.send(frame: #"{"type":"message","message":{"messageId":"msg-4"}}"#)
        await waitForRoom("the room error") { model.roomError != nil }
        let error = try #require(model.roomError)
        #expect(error.hasPrefix("The Agent room sent an update this app cannot read: frame 2 of this connection: "))
        #expect(error.hasSuffix("The room keeps what it has and tries again in 1 s."))
        #expect(messageIds(model) == ["msg-1", "msg-2", "msg-3"])
        #expect(model.history.lastMergedCursor == F.cursor(3))
        clock.advance(by: delays(1)[0])
        let second = await sockets.connection(2)
        #expect(second.after == "c-000000003")
        second.send(.message(F.message(4)))
        await waitForRoom("the recovery") { model.roomError == nil }
        #expect(messageIds(model) == ["msg-1", "msg-2", "msg-3", "msg-4"])
        await model.stop()
    }

    @Test func aFailedFirstLoadSaysSoAndTheReplayFillsTheRoom() async throws {
        let room = FakeRoomAPI()
        room.failNext(.messages, .transport("connection refused"))
        let model = try model(room)
        await model.start()
        #expect(
            model.roomError
                == "The Agent room could not be reached: connection refused. The room fills in when it reconnects.")
        let socket = await sockets.connection(1)
        #expect(socket.after == nil, "nothing merged: the stream replays everything")
        socket.send(.message(F.message(1)))
        await waitForRoom("the replay") { model.roomError == nil }
        #expect(messageIds(model) == ["msg-1"])
        await model.stop()
    }

    @Test func loadingOlderGrowsTheWindowAndSkipsPagesWithNothingToShow() async throws {
        let messages = (1...20).map {
            (9...12).contains($0) ? F.message($0, role: .tool, visibility: .internal) : F.message($0)
        }
        let room = FakeRoomAPI(messages)
        let model = try model(room, pageSize: 4)
        await model.start()
        #expect(messageIds(model) == ["msg-17", "msg-18", "msg-19", "msg-20"])
        #expect(model.hasMoreBefore)
        await model.loadOlder()
        #expect(messageIds(model).first == "msg-13")
        await model.loadOlder()
        #expect(messageIds(model).first == "msg-5", "the page of tool calls alone showed nothing, so one more loaded")
        #expect(model.history.messages.count == 16)
        await model.loadOlder()
        #expect(messageIds(model).first == "msg-1")
        #expect(!model.hasMoreBefore)
        let requests = room.pageRequests.count
        await model.loadOlder()
        #expect(room.pageRequests.count == requests, "nothing older to ask for")
        #expect(room.pageRequests.map { $0.before } == [nil, F.cursor(17), F.cursor(13), F.cursor(9), F.cursor(5)])
        #expect(!model.isLoadingOlder)
        await model.stop()
    }

    @Test func stopEndsTheSubscriptionAndNothingRunsAfter() async throws {
        let model = try model(FakeRoomAPI([F.message(1)]))
        await model.start()
        let socket = await sockets.connection(1)
        await model.stop()
        #expect(await socket.clientClose() == WebSocketCloseCode.goingAway)
        #expect(model.connection == .idle)
        let handled = model.updatesHandled
        clock.advance(by: .seconds(3_600))
        #expect(sockets.attempts.count == 1)
        #expect(model.updatesHandled == handled)
        #expect(clock.sleeperCount == 0)
    }
}
