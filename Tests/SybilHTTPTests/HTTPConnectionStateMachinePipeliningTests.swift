import Testing

@testable import SybilHTTP

/// What is read ahead of the response in progress: at most the next request's head while a
/// response is handled or streamed (reading resumes once it ends), and every request already
/// read is answered in order even when the peer half-closes meanwhile.
@Suite("HTTP connection state machine: read-ahead and half-close", .timeLimit(.minutes(2)))
struct HTTPConnectionStateMachinePipeliningTests {
    private let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func whileAStreamIsOpenReadingStopsAtTheNextRequestsHeadAndResumesAfterIt() {
        var harness = ConnectionMachineHarness(bodyLimit: 8 << 20)
        _ = harness.read("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(harness.respond(HTTPServerResponse.eventStream { _ in }) == ["write HTTP/1.1 200 OK", "startStream"])
        _ = harness.flushed()
        // The stream is open: its client may still close, so input is watched until the next
        // request's head has arrived, and not beyond.
        #expect(harness.machine.wantsInput)
        let upload = "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: \(8 << 20)\r\n\r\n"
        #expect(harness.read(Array(upload.utf8) + [UInt8](repeating: 0x61, count: 64 << 10)) == ["read off"])
        #expect(!harness.machine.wantsInput)
        #expect(harness.machine.bufferedRequestBytes <= 64 << 10)
        // Once the stream ends, the upload is read again.
        #expect(harness.streamEnded() == ["write 0", "stopWork", "read on"])
        #expect(harness.machine.wantsInput)
    }

    @Test func whileARequestIsHandledOnlyTheNextHeadIsReadAhead() {
        var harness = ConnectionMachineHarness()
        #expect(harness.read(get) == ["dispatch GET /a"])
        #expect(harness.machine.wantsInput)
        #expect(harness.read("GET /b HTTP/1.1\r\n") == [])
        #expect(harness.read("Host: x\r\n\r\n") == ["read off"])
        #expect(harness.respond() == ["write HTTP/1.1 200 OK", "dispatch GET /b", "read on"])
    }

    @Test func fivePipelinedRequestsBeforeAHalfCloseAreAllAnsweredInOrderThenTheConnectionCloses() {
        var harness = ConnectionMachineHarness()
        let targets = (1...5).map { "/r\($0)" }
        let requests = targets.map { "GET \($0) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
        var dispatched = harness.read(requests).filter { $0.hasPrefix("dispatch") }
        _ = harness.halfClose()
        for _ in 1..<5 {
            dispatched += harness.respond().filter { $0.hasPrefix("dispatch") }
        }
        #expect(dispatched == targets.map { "dispatch GET \($0)" })
        #expect(harness.respond() == ["write HTTP/1.1 200 OK"])
        // Only the last answer says the connection closes.
        #expect(harness.written.components(separatedBy: "Connection: close").count == 2)
        #expect(harness.written.hasSuffix("Connection: close\r\n\r\n"))
        #expect(harness.flushed() == ["shutdownWriting", "close"])
    }
}
