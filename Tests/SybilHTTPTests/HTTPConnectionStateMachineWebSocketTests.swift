import SybilTesting
import Testing

@testable import SybilHTTP

/// The WebSocket rules of the connection machine, without a socket: pings, the close
/// handshake, the linger deadline, and the bounded inbox.
@Suite("HTTP connection state machine: WebSocket", .timeLimit(.minutes(2)))
struct HTTPConnectionStateMachineWebSocketTests {
    private typealias Harness = ConnectionMachineHarness

    @Test func pingsAreAnsweredAndMessagesDelivered() {
        var harness = Harness()
        #expect(harness.upgrade().suffix(1) == ["startWebSocket"])
        #expect(harness.read(Harness.frame(.ping, [7])) == ["write ws pong 1"])
        #expect(harness.read(Harness.frame(.text, Array("hi".utf8))) == ["deliver text 2"])
    }

    @Test func theClientsCloseIsEchoedWhenTheSessionEndsOrAfterTheLingerTime() {
        var ended = Harness()
        _ = ended.upgrade()
        #expect(ended.read(Harness.frame(.close, [0x0F, 0xA0])) == ["deliver closed 4000"])
        #expect(ended.sessionEnded() == ["closeSession", "write ws close 4000"])
        #expect(ended.flushed() == ["stopWork", "shutdownWriting"])

        var lingering = Harness()
        _ = lingering.upgrade()
        lingering.now = .seconds(3)
        _ = lingering.read(Harness.frame(.close, []))
        #expect(lingering.machine.nextDeadline == .seconds(5))
        #expect(lingering.tick(at: .seconds(5) - .nanoseconds(1)) == [])
        // No status in the client's close: ours says 1000.
        #expect(lingering.tick(at: .seconds(5)) == ["closeSession", "write ws close 1000"])
    }

    @Test func aCloseFrameThatBreaksTheRulesIsAnswered1002WhenTheSessionEnds() {
        var harness = Harness()
        _ = harness.upgrade()
        #expect(harness.read(Harness.frame(.close, [0x03])) == ["deliver closed 1002"])
        #expect(harness.sessionEnded() == ["closeSession", "write ws close 1002"])
    }

    @Test func messagesBeforeABadFrameAreTheSessionsToAnswerBeforeThe1002Close() {
        var harness = Harness()
        _ = harness.upgrade()
        var bad = Harness.frame(.text, Array("x".utf8))
        bad[0] |= 0x40
        #expect(
            harness.read(Harness.frame(.text, Array("hi".utf8)) + bad + Harness.frame(.text, [0x61]))
                == ["deliver text 2", "deliver closed 1002"])
        // Input after the bad frame is read and dropped: nothing more is decoded or held.
        #expect(harness.read(Harness.frame(.text, Array("more".utf8))) == [])
        #expect(harness.consumed(2 + ServerWebSocket.messageOverhead) == [])
        // The session's answer to what came before goes out first, then the close.
        #expect(
            harness.produced(WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded(maskingKey: nil))
                == ["write ws text 2"])
        // A session that closes with its own code still says 1002: the client broke the rules.
        #expect(harness.sessionClosed(code: 1000) == ["closeSession", "write ws close 1002"])
    }

    @Test func aSessionThatDoesNotEndAfterABadFrameIsClosed1002AtTheLingerDeadline() {
        var harness = Harness()
        _ = harness.upgrade()
        harness.now = .seconds(3)
        #expect(harness.read([0x83, 0x80, 1, 2, 3, 4]) == ["deliver closed 1002"])
        #expect(harness.machine.nextDeadline == .seconds(5))
        #expect(harness.tick(at: .seconds(5) - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(5)) == ["closeSession", "write ws close 1002"])
    }

    @Test func readingStopsWhenTheInboxPassesItsHighWaterMarkAndResumesAtTheLowOne() {
        var limits = HTTPConnectionStateMachine.Limits(requestTimeout: .seconds(10), idleTimeout: .seconds(60))
        let overhead = ServerWebSocket.messageOverhead
        limits.inboxHighWater = 3 * (100 + overhead)
        limits.inboxLowWater = 100 + overhead
        limits.inboxStallTimeout = .seconds(4)
        var harness = Harness(limits: limits)
        _ = harness.upgrade()
        let message = Harness.frame(.binary, [UInt8](repeating: 1, count: 100))
        // Exactly at the high-water mark: still reading.
        #expect(harness.read(message + message + message) == Array(repeating: "deliver binary 100", count: 3))
        // One more passes it: reading stops, and frames already read wait in the decoder.
        #expect(harness.read(message + message) == ["deliver binary 100", "read off"])
        #expect(harness.machine.inboxWeight == 4 * (100 + overhead))
        #expect(harness.machine.nextDeadline == .seconds(4))
        // Taken down to one above the low-water mark: still paused.
        #expect(harness.consumed(3 * (100 + overhead) - 1) == [])
        // At the low-water mark: the waiting frame is delivered and reading resumes.
        #expect(harness.consumed(1) == ["deliver binary 100", "read on"])
        #expect(harness.machine.nextDeadline == nil)
    }

    /// The session, not the client, fell behind: 1013 (try again later), never 1008, which a
    /// client could read as a policy it broke.
    @Test func anInboxStillFullAtItsDeadlineClosesWith1013TryAgainLater() {
        var limits = HTTPConnectionStateMachine.Limits(requestTimeout: .seconds(10), idleTimeout: .seconds(60))
        limits.inboxHighWater = 10
        limits.inboxStallTimeout = .seconds(4)
        var harness = Harness(limits: limits)
        _ = harness.upgrade()
        harness.now = .seconds(1)
        #expect(harness.read(Harness.frame(.text, Array("x".utf8))) == ["deliver text 1", "read off"])
        #expect(harness.tick(at: .seconds(5) - .nanoseconds(1)) == [])
        #expect(
            harness.tick(at: .seconds(5)) == ["deliver closed 1013", "closeSession", "write ws close 1013"])
    }

    @Test func sessionFramesAfterOurCloseAreDropped() {
        var harness = Harness()
        _ = harness.upgrade()
        _ = harness.sessionEnded()
        #expect(harness.produced(WebSocketFrame(opcode: .text, payload: [1]).encoded(maskingKey: nil)) == [])
    }
}

/// The high- and low-water rule producers wait by.
@Suite("Output watermarks", .timeLimit(.minutes(2)))
struct OutputWatermarksTests {
    @Test func producersWaitAboveTheHighMarkAndResumeBelowTheLowOne() {
        let marks = OutputWatermarks(high: 256 << 10, low: 64 << 10)
        #expect(!marks.mustWait(backlog: 256 << 10, wasWaiting: false))
        #expect(marks.mustWait(backlog: (256 << 10) + 1, wasWaiting: false))
        #expect(marks.mustWait(backlog: 64 << 10, wasWaiting: true))
        #expect(!marks.mustWait(backlog: (64 << 10) - 1, wasWaiting: true))
    }

    @Test func aWaitingProducerResumesBelowTheLowMarkOrWhenTheConnectionCloses() async {
        let statistics = TransportStatistics.Counters()
        let room = OutputBackpressure(statistics: statistics)
        #expect(room.admit((256 << 10) + 1, limit: 16 << 20) == .accepted)
        let resumed = Task { await room.waitForRoom() }
        #expect(await ConditionWait.until { statistics.snapshot.suspendedProducers == 1 })
        room.update(applied: (256 << 10) + 1, unsent: 64 << 10)
        #expect(statistics.snapshot.suspendedProducers == 1)
        room.update(unsent: (64 << 10) - 1)
        await resumed.value
        #expect(statistics.snapshot.suspendedProducers == 0)

        room.update(unsent: 1 << 20)
        let closed = Task { await room.waitForRoom() }
        #expect(await ConditionWait.until { statistics.snapshot.suspendedProducers == 1 })
        room.close()
        await closed.value
        #expect(statistics.snapshot.suspendedProducers == 0)
    }

    @Test func aProducerThatNeverWaitsIsRefusedOnceTheBacklogPassesTheLimit() async {
        let limit = 16 << 20
        let room = OutputBackpressure()
        // One offer larger than the limit is accepted on an empty backlog, as the loop accepts it.
        #expect(room.admit(limit + 1, limit: limit) == .accepted)
        room.update(applied: limit + 1, unsent: limit)
        // At the limit exactly more may go; above it the gate closes once, then refuses.
        #expect(room.admit(1, limit: limit) == .accepted)
        #expect(room.admit(1, limit: limit) == .overran)
        #expect(room.isClosed)
        #expect(room.admit(1, limit: limit) == .refused)
        // A producer waiting for room returns at once after the overrun.
        await room.waitForRoom()
    }

    @Test func anOverrunCutsAStreamingOrWebSocketClientOffAndIsIgnoredOtherwise() {
        var idle = ConnectionMachineHarness()
        #expect(idle.overran() == [])

        var streaming = ConnectionMachineHarness()
        _ = streaming.read("GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = streaming.respond(HTTPServerResponse(status: 200, body: .stream { _ in }))
        #expect(streaming.overran() == ["stopWork", "close"])

        var socket = ConnectionMachineHarness()
        _ = socket.upgrade()
        #expect(socket.overran() == ["stopWork", "close"])
    }
}
