import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@Suite("Agent room stream", .timeLimit(.minutes(2)))
struct AgentRoomStreamTests {
    typealias F = AgentRoomFixtures

    let clock = ManualClock()
    let sockets = ScriptedAgentSockets()
    let replayPoint = RoomCursorBox()

    private func stream(tokens: TokenProvider = F.tokens(), bufferLimit: Int = 4_096) throws -> AgentRoomStream<
        ManualClock
    > {
        AgentRoomStream(
            base: try AgentAPIBase(string: "https://h/api/"), tokens: tokens, connector: sockets, clock: clock,
            random: SeededRandomSource(seed: 3), bufferLimit: bufferLimit)
    }

    private func updates(_ stream: AgentRoomStream<ManualClock>) -> AsyncStream<AgentRoomStreamUpdate>.AsyncIterator {
        let replayPoint = replayPoint
        return stream.updates(replayFrom: { replayPoint.value }).makeAsyncIterator()
    }

    /// The delays the stream's policy gives for drops that never stayed up 30 s, with its seed.
    private func expectedDelays(_ count: Int) -> [Duration] {
        var policy = ReconnectPolicy()
        let random = SeededRandomSource(seed: 3)
        return (0..<count).map { _ in policy.connectionDropped(uptime: .zero, random: random).delay }
    }

    @Test func eachConnectionReplaysFromTheCursorGivenWhenItOpens() async throws {
        replayPoint.value = F.cursor(5)
        var updates = updates(try stream())
        #expect(await updates.next() == .connected(after: F.cursor(5)))
        let first = await sockets.connection(1)
        // With a cursor, the stream asks for close 4410 (a lost history).
        #expect(first.url.absoluteString == "wss://h/api/agent/stream?after=c-000000005&historyLost=close")
        #expect(first.headers["Authorization"] == "Bearer t0k3n")
        first.send(.message(F.message(6)))
        first.send(.activity(.working, detail: "Reading build.log"))
        first.send(.read(AgentReadState(readCursor: F.cursor(6), unread: 0)))
        #expect(await updates.next() == .event(.message(F.message(6))))
        #expect(await updates.next() == .event(.activity(.working, detail: "Reading build.log")))
        #expect(await updates.next() == .event(.read(AgentReadState(readCursor: F.cursor(6), unread: 0))))
        // The caller merged c-6; the server goes away.
        replayPoint.value = F.cursor(6)
        first.close(with: 1001)
        let delay = try #require(expectedDelays(1).first)
        #expect(await updates.next() == .disconnected(.closed(code: 1001, reason: ""), retryIn: delay))
        clock.advance(by: delay - .nanoseconds(1))
        #expect(clock.sleeperCount == 1, "still waiting one nanosecond before the delay")
        #expect(sockets.attempts.count == 1)
        clock.advance(by: .nanoseconds(1))
        #expect(await updates.next() == .connected(after: F.cursor(6)))
        #expect(await sockets.connection(2).after == "c-000000006")
    }

    @Test func theFirstConnectionOfAnEmptyRoomAsksForEverything() async throws {
        var updates = updates(try stream())
        #expect(await updates.next() == .connected(after: nil))
        #expect(await sockets.connection(1).url.absoluteString == "wss://h/api/agent/stream")
    }

    @Test func aMalformedFrameEndsTheConnectionAndNothingOfItIsUsed() async throws {
        var updates = updates(try stream())
        _ = await updates.next()
        let socket = await sockets.connection(1)
        socket.send(.message(F.message(6)))
        socket.send(
            frame: F.frame(.message(F.message(7))).replacingOccurrences(of: "c-000000007", with: "c 7"))
        socket.send(.message(F.message(8)))
        #expect(await updates.next() == .event(.message(F.message(6))))
        guard case .disconnected(.malformedFrame(let reason), let retryIn)? = await updates.next() else {
            Issue.record("expected the connection to end on the malformed frame")
            return
        }
        #expect(reason.hasPrefix("frame 2 of this connection: "))
        #expect(reason.contains("message.cursor"))
        #expect(retryIn == expectedDelays(1)[0])
        #expect(socket.clientCloses == [1007])
        clock.advance(by: retryIn)
        #expect(await updates.next() == .connected(after: nil), "frame 8 was never handed on")
    }

    /// A connection with an executor of its own (``SocketWebSocket``'s I/O thread) has its
    /// frames read and handled on it: the close for a malformed frame comes from a task that
    /// prefers that executor; one without (the default) is read wherever the stream's task runs.
    @Test func framesAreReadOnTheConnectionsExecutorWhenItHasOne() async throws {
        for executor in [QueueExecutor(), nil] {
            let sockets = ScriptedAgentSockets(executor: executor)
            let stream = AgentRoomStream(
                base: try AgentAPIBase(string: "https://h/api/"), tokens: F.tokens(), connector: sockets, clock: clock,
                random: SeededRandomSource(seed: 3))
            var updates = stream.updates(replayFrom: { nil }).makeAsyncIterator()
            #expect(await updates.next() == .connected(after: nil))
            let socket = await sockets.connection(1)
            socket.send(.message(F.message(6)))
            socket.send(frame: "not JSON")
            #expect(await updates.next() == .event(.message(F.message(6))))
            guard case .disconnected(.malformedFrame, _)? = await updates.next() else {
                Issue.record("expected the connection to end on the malformed frame")
                return
            }
            #expect(socket.clientCloses == [1007])
            #expect(socket.closesOnExecutor == [executor != nil], "executor: \(executor != nil)")
        }
    }

    @Test func aBinaryFrameIsMalformedToo() async throws {
        var updates = updates(try stream())
        _ = await updates.next()
        let socket = await sockets.connection(1)
        socket.sendBinary([1, 2, 3])
        guard case .disconnected(.malformedFrame(let reason), _)? = await updates.next() else {
            Issue.record("expected a malformed frame")
            return
        }
        #expect(reason == "frame 1 of this connection is binary (3 bytes); the stream sends JSON text")
        #expect(socket.clientCloses == [1003])
    }

    @Test func close4503ReportsAttachmentsUnavailableAndReconnects() async throws {
        var updates = updates(try stream())
        _ = await updates.next()
        await sockets.connection(1).close(with: 4503, reason: "open proxy unavailable")
        let delays = expectedDelays(2)
        #expect(await updates.next() == .disconnected(.attachmentsUnavailable, retryIn: delays[0]))
        clock.advance(by: delays[0])
        #expect(await updates.next() == .connected(after: nil))
        await sockets.connection(2).close(with: 4503)
        #expect(await updates.next() == .disconnected(.attachmentsUnavailable, retryIn: delays[1]))
    }

    @Test func close1013IsABusyServerRetriedAfterTheBackoffWithTheSameToken() async throws {
        let refresher = RoomTokenRefresher()
        var updates = updates(try stream(tokens: F.tokens(refresher: refresher)))
        _ = await updates.next()
        let reason = "server busy: messages from this connection waited too long"
        await sockets.connection(1).close(with: 1013, reason: reason)
        let delays = expectedDelays(2)
        #expect(await updates.next() == .disconnected(.serverBusy(reason), retryIn: delays[0]))
        clock.advance(by: delays[0])
        #expect(await updates.next() == .connected(after: nil))
        let second = await sockets.connection(2)
        #expect(second.headers["Authorization"] == "Bearer t0k3n")
        second.close(with: 1013)
        #expect(await updates.next() == .disconnected(.serverBusy("close code 1013"), retryIn: delays[1]))
        #expect(refresher.count == 0, "a busy server is no reason to renew the token")
    }

    /// RFC 6455 makes 1008 a generic policy violation: a closed connection with its reason, not a
    /// rejected token. Were the token the cause, the next upgrade is refused with 401, and that
    /// renews it.
    @Test func close1008IsAClosedConnectionAndOnlyA401RenewsTheToken() async throws {
        let refresher = RoomTokenRefresher()
        var updates = updates(try stream(tokens: F.tokens(refresher: refresher)))
        _ = await updates.next()
        await sockets.connection(1).close(with: 1008, reason: "token expired")
        let delay = expectedDelays(1)[0]
        #expect(await updates.next() == .disconnected(.closed(code: 1008, reason: "token expired"), retryIn: delay))
        #expect(refresher.count == 0)
        sockets.failNext(.unauthorized("HTTP/1.1 401 Unauthorized"))
        clock.advance(by: delay)
        #expect(
            await updates.next() == .disconnected(.authenticationFailed("HTTP/1.1 401 Unauthorized"), retryIn: .zero))
        #expect(await updates.next() == .connected(after: nil), "no wait after a renewal")
        #expect(refresher.count == 1)
        #expect(
            sockets.attempts.map { $0.headers["Authorization"] } == ["Bearer t0k3n", "Bearer t0k3n", "Bearer fresh-1"])
    }

    @Test func aRefusedUpgradeRenewsTheTokenOnce() async throws {
        let refresher = RoomTokenRefresher()
        sockets.failNext(.unauthorized("HTTP/1.1 401 Unauthorized"), .unauthorized("HTTP/1.1 401 Unauthorized"))
        var updates = updates(try stream(tokens: F.tokens(refresher: refresher)))
        #expect(
            await updates.next() == .disconnected(.authenticationFailed("HTTP/1.1 401 Unauthorized"), retryIn: .zero))
        let delay = expectedDelays(1)[0]
        #expect(
            await updates.next() == .disconnected(.authenticationFailed("HTTP/1.1 401 Unauthorized"), retryIn: delay))
        #expect(refresher.count == 1)
        #expect(sockets.attempts.map { $0.headers["Authorization"] } == ["Bearer t0k3n", "Bearer fresh-1"])
        clock.advance(by: delay)
        #expect(await updates.next() == .connected(after: nil))
    }

    @Test func aConnectionThatCannotOpenBacksOffLongerEachTime() async throws {
        sockets.failNext(.failed("connection refused"), .failed("connection refused"))
        var updates = updates(try stream())
        let delays = expectedDelays(3)
        #expect(await updates.next() == .disconnected(.transport("connection refused"), retryIn: delays[0]))
        clock.advance(by: delays[0])
        #expect(await updates.next() == .disconnected(.transport("connection refused"), retryIn: delays[1]))
        #expect(delays[1] > delays[0])
        clock.advance(by: delays[1])
        #expect(await updates.next() == .connected(after: nil))
        await sockets.connection(1).lose()
        guard case .disconnected(.transport, let retryIn)? = await updates.next() else {
            Issue.record("expected a lost connection")
            return
        }
        #expect(retryIn == delays[2])
    }

    @Test func aConsumerThatFallsBehindIsReplayedInsteadOfGivenAGap() async throws {
        var updates = updates(try stream(bufferLimit: 2))
        _ = await updates.next()
        let socket = await sockets.connection(1)
        replayPoint.value = F.cursor(6)
        for sequence in 6...8 { socket.send(.message(F.message(sequence))) }
        #expect(await socket.clientClose() == WebSocketCloseCode.goingAway)
        #expect(await updates.next() == .event(.message(F.message(6))))
        #expect(await updates.next() == .event(.message(F.message(7))))
        // The buffer was full, so the disconnect itself could not be queued; the wait is the policy's.
        clock.advance(by: expectedDelays(1)[0])
        #expect(await updates.next() == .connected(after: F.cursor(6)))
    }

    @Test func stoppingClosesTheSocketAndConnectsNoMore() async throws {
        let stream = try stream()
        let replayPoint = replayPoint
        let connected = Locked(0)
        let consumer = Task {
            for await update in stream.updates(replayFrom: { replayPoint.value }) {
                if case .connected = update { connected.withLock { $0 += 1 } }
            }
        }
        let socket = await sockets.connection(1)
        consumer.cancel()
        await consumer.value
        #expect(await socket.clientClose() == WebSocketCloseCode.goingAway)
        clock.advance(by: .seconds(3_600))
        #expect(sockets.attempts.count == 1)
        #expect(clock.sleeperCount == 0)
    }
}
