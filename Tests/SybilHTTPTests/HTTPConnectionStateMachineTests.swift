import Testing

@testable import SybilHTTP

/// Every rule of the connection lifecycle, without a socket: time moves only when a test
/// says so, and each rule is checked at its boundary.
@Suite("HTTP connection state machine", .timeLimit(.minutes(2)))
struct HTTPConnectionStateMachineTests {
    private let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func pipelinedRequestsAreDispatchedOneAtATimeInOrder() {
        var harness = ConnectionMachineHarness()
        // Reading pauses while a request read ahead waits, and resumes once it is dispatched.
        #expect(harness.read(get + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n") == ["dispatch GET /a", "read off"])
        #expect(harness.respond(body: "a") == ["write HTTP/1.1 200 OK", "dispatch GET /b", "read on"])
        #expect(harness.respond(body: "b") == ["write HTTP/1.1 200 OK"])
        #expect(harness.flushed() == [])
        #expect(harness.machine.isIdle)
    }

    @Test func aMalformedRequestAfterAValidOneIsRefusedAfterItsAnswerAndTheConnectionLingers() {
        var harness = ConnectionMachineHarness()
        #expect(harness.read(get + "GET /b HTTP/1.1\r\nBad Name: y\r\n\r\n") == ["dispatch GET /a", "read off"])
        #expect(harness.respond() == ["write HTTP/1.1 200 OK", "refuse 400", "read on"])
        #expect(harness.refuse(status: 400) == ["write HTTP/1.1 400 Bad Request"])
        #expect(harness.written.contains("Connection: close"))
        #expect(harness.flushed() == ["shutdownWriting"])
        // Lingering: input is discarded until the peer closes or two seconds pass.
        #expect(harness.read("more") == [])
        #expect(harness.machine.nextDeadline == .seconds(2))
        #expect(harness.tick(at: .seconds(2) - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(2)) == ["close"])
    }

    @Test func aLingeringConnectionClosesWhenThePeerCloses() {
        var harness = ConnectionMachineHarness()
        _ = harness.read("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n")
        _ = harness.respond()
        #expect(harness.flushed() == ["shutdownWriting"])
        #expect(harness.halfClose() == ["close"])
    }

    @Test func connectionCloseIsHonouredAndAnsweredWithConnectionClose() {
        var harness = ConnectionMachineHarness()
        _ = harness.read("GET /a HTTP/1.1\r\nConnection: close\r\n\r\n" + get)
        #expect(harness.respond() == ["write HTTP/1.1 200 OK"])
        #expect(harness.written.contains("Connection: close"))
        // Nothing after a response that closes is dispatched.
        #expect(harness.flushed() == ["shutdownWriting"])
    }

    @Test func expectContinueIsAnsweredOnlyWhenNothingIsAhead() {
        var harness = ConnectionMachineHarness()
        let head = "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n"
        #expect(harness.read(head) == ["write HTTP/1.1 100 Continue"])
        #expect(harness.read("body") == ["dispatch POST /e"])
        var behind = ConnectionMachineHarness()
        _ = behind.read(get)
        // A request already waiting for its answer: no interim response is interleaved (and
        // nothing more is read until that answer is out).
        #expect(behind.read(head) == ["read off"])
    }

    @Test func theRequestTimeoutRunsFromTheFirstByteAndRefusesWith408() {
        var harness = ConnectionMachineHarness()
        harness.now = .seconds(5)
        #expect(harness.read("GET /a HTTP/1.1\r\n") == [])
        #expect(harness.machine.nextDeadline == .seconds(15))
        #expect(harness.tick(at: .seconds(15) - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(15)) == ["refuse 408"])
        #expect(harness.refuse(status: 408) == ["write HTTP/1.1 408 Request Timeout"])
        #expect(harness.flushed() == ["shutdownWriting"])
    }

    @Test func anIdleConnectionClosesAtTheIdleTimeout() {
        var harness = ConnectionMachineHarness()
        harness.now = .seconds(1)
        _ = harness.read(get)
        _ = harness.respond()
        #expect(harness.machine.nextDeadline == nil)
        _ = harness.flushed()
        #expect(harness.machine.nextDeadline == .seconds(61))
        #expect(harness.tick(at: .seconds(61) - .nanoseconds(1)) == [])
        #expect(harness.tick(at: .seconds(61)) == ["close"])
    }

    @Test func readingPausesWhileRequestsReadAheadWaitAndResumesOnceTheyAreAnswered() {
        var harness = ConnectionMachineHarness()
        #expect(harness.read(String(repeating: get, count: 3)) == ["dispatch GET /a", "read off"])
        #expect(harness.respond() == ["write HTTP/1.1 200 OK", "dispatch GET /a"])
        #expect(harness.respond() == ["write HTTP/1.1 200 OK", "dispatch GET /a", "read on"])
    }

    @Test func connectionsBeyondTheLimitAreRefused503() {
        var harness = ConnectionMachineHarness()
        var actions: [HTTPConnectionStateMachine.Action] = []
        harness.machine.refuseConnection(message: "full", now: .zero, into: &actions)
        #expect(actions.count == 1)
        guard case .refuse(let status, _) = actions.first else {
            Issue.record("expected a refusal")
            return
        }
        #expect(status == 503)
        #expect(harness.read(get) == [])
    }

    @Test func headAnswersTheHeadOfEachBodyKindWithoutItsBody() {
        var harness = ConnectionMachineHarness()
        _ = harness.read("HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = harness.respond(body: "abc")
        #expect(harness.written.hasSuffix("Content-Length: 3\r\n\r\n"))
        _ = harness.read("HEAD /s HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            harness.respond(HTTPServerResponse.eventStream { _ in }) == [
                "write HTTP/1.1 200 OK", "discardStream",
            ])
        _ = harness.read("HEAD /ws HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            harness.respond(HTTPServerResponse(status: 101, body: .webSocket(accept: "a", maximumMessage: 9) { _ in }))
                == ["refuse 400"])
    }

    @Test func aStreamIsChunkedAndTheConnectionIsReusedAfterIt() {
        var harness = ConnectionMachineHarness()
        _ = harness.read(get + get)
        #expect(harness.respond(HTTPServerResponse.eventStream { _ in }) == ["write HTTP/1.1 200 OK", "startStream"])
        #expect(harness.written.contains("Transfer-Encoding: chunked"))
        #expect(harness.produced(HTTPResponseWriter.chunk(Array("x".utf8))).count == 1)
        #expect(harness.streamEnded() == ["write 0", "stopWork", "dispatch GET /a", "read on"])
    }

    @Test func aClientWithMoreThan16MiBUnsentIsCutOffAtTheNextWrite() {
        var harness = ConnectionMachineHarness()
        _ = harness.read(get)
        _ = harness.respond(HTTPServerResponse.eventStream { _ in })
        let limit = harness.machine.limits.maximumBacklog
        _ = harness.flushed(remaining: limit)
        #expect(harness.produced([1]) == ["write 1 bytes"])
        // Now one byte over the limit is unsent: the next write cuts the client off.
        #expect(harness.produced([1]) == ["stopWork", "close"])
    }

    @Test func aPeerHalfCloseWhileHandlingAnswersWithConnectionClose() {
        var harness = ConnectionMachineHarness()
        _ = harness.read(get)
        #expect(harness.halfClose() == ["read off"])
        _ = harness.respond()
        #expect(harness.written.contains("Connection: close"))
        #expect(harness.flushed() == ["shutdownWriting", "close"])
        var idle = ConnectionMachineHarness()
        #expect(idle.halfClose() == ["close"])
    }

    @Test func shutdownClosesIdleConnectionsEndsStreamsAndLetsAnswersFinishWithConnectionClose() {
        var idle = ConnectionMachineHarness()
        #expect(idle.shutdown() == ["close"])
        var streaming = ConnectionMachineHarness()
        _ = streaming.read(get)
        _ = streaming.respond(HTTPServerResponse.eventStream { _ in })
        #expect(streaming.shutdown() == ["stopWork"])
        var handling = ConnectionMachineHarness()
        _ = handling.read(get)
        #expect(handling.shutdown() == [])
        _ = handling.respond()
        #expect(handling.written.contains("Connection: close"))
        #expect(handling.flushed() == ["shutdownWriting", "close"])
        var webSocket = ConnectionMachineHarness()
        _ = webSocket.upgrade()
        #expect(webSocket.shutdown() == ["closeSession", "write ws close 1001"])
    }
}
