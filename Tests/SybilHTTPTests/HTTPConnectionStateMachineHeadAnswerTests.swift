import Testing

@testable import SybilHTTP

/// A request answered from its head (a 401 without a token) never has its body buffered: a
/// short declared body is read and dropped and the connection kept, anything longer closes
/// the connection after the answer; and no `100 Continue` goes out when the head already
/// decides the final status.
@Suite("HTTP connection state machine: answers decided by the head", .timeLimit(.minutes(2)))
struct HTTPConnectionStateMachineHeadAnswerTests {
    /// Refuses every request to `/private` without `Authorization`, as the server's auth does.
    private static func harness(bodyLimit: Int = 8 << 20) -> ConnectionMachineHarness {
        ConnectionMachineHarness(bodyLimit: bodyLimit) { head in
            guard head.path == "/private", head.headers["Authorization"] == nil else { return nil }
            return .json(.object(["error": .object(["message": .string("A token is required.")])]), status: 401)
        }
    }

    private static func post(length: Int, expect: Bool = false, path: String = "/private") -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n"
            + (expect ? "Expect: 100-continue\r\n" : "") + "\r\n"
    }

    @Test func aRefusedUploadIsAnsweredAtItsHeadAndNoneOfItsBodyIsBuffered() {
        var harness = Self.harness()
        let length = (8 << 20) - 1
        let answer = harness.read(Self.post(length: length))
        #expect(answer == ["write HTTP/1.1 401 Unauthorized"])
        #expect(harness.written.contains("Connection: close"))
        #expect(harness.flushed() == ["shutdownWriting"])
        // The rest arrives anyway: read and thrown away, never held.
        let piece = [UInt8](repeating: 0x61, count: 64 << 10)
        var sent = 0
        var peak = 0
        while sent < length {
            _ = harness.read(Array(piece.prefix(length - sent)))
            sent += min(piece.count, length - sent)
            peak = max(peak, harness.machine.bufferedRequestBytes)
        }
        #expect(peak == 0)
    }

    @Test func noContinueGoesOutWhenTheHeadDecidesTheStatus() {
        var refused = Self.harness()
        #expect(refused.read(Self.post(length: 10, expect: true)) == ["write HTTP/1.1 401 Unauthorized"])
        #expect(!refused.written.contains("100 Continue"))
        // A declared length over the route's limit is a 413 known from the head too.
        var tooLarge = Self.harness(bodyLimit: 1024)
        #expect(tooLarge.read(Self.post(length: 1025, expect: true, path: "/open")) == ["refuse 413"])
        #expect(!tooLarge.written.contains("100 Continue"))
        // At the limit the body is wanted: 100 Continue.
        var atLimit = Self.harness(bodyLimit: 1024)
        #expect(atLimit.read(Self.post(length: 1024, expect: true, path: "/open")) == ["write HTTP/1.1 100 Continue"])
    }

    @Test func aDeclaredBodyUpToTheDrainLimitIsDroppedAndTheConnectionKept() {
        var harness = Self.harness()
        let limit = harness.machine.limits.maximumDrainedBody
        #expect(limit == 64 << 10)
        #expect(harness.read(Self.post(length: limit)) == ["write HTTP/1.1 401 Unauthorized"])
        #expect(!harness.written.contains("Connection: close"))
        #expect(harness.flushed() == [])
        _ = harness.read([UInt8](repeating: 0x61, count: limit))
        #expect(harness.machine.bufferedRequestBytes == 0)
        #expect(harness.read("GET /a HTTP/1.1\r\nHost: x\r\n\r\n") == ["dispatch GET /a"])
    }

    @Test func aDeclaredBodyOneByteOverTheDrainLimitClosesTheConnectionAfterTheAnswer() {
        var harness = Self.harness()
        let limit = harness.machine.limits.maximumDrainedBody
        #expect(harness.read(Self.post(length: limit + 1)) == ["write HTTP/1.1 401 Unauthorized"])
        #expect(harness.written.contains("Connection: close"))
        #expect(harness.flushed() == ["shutdownWriting"])
        #expect(harness.read([UInt8](repeating: 0x61, count: limit + 1) + Array("GET /a HTTP/1.1\r\n\r\n".utf8)) == [])
        #expect(harness.machine.bufferedRequestBytes == 0)
    }

    @Test func aRefusedChunkedBodyClosesTheConnectionAfterTheAnswer() {
        var harness = Self.harness()
        let head = "POST /private HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(harness.read(head + "4\r\nabcd\r\n") == ["write HTTP/1.1 401 Unauthorized"])
        #expect(harness.written.contains("Connection: close"))
        #expect(harness.flushed() == ["shutdownWriting"])
    }

    @Test func aRefusedRequestBehindAnotherIsAnsweredInItsTurn() {
        var harness = Self.harness()
        let requests = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n" + Self.post(length: 3) + "abc"
        #expect(harness.read(requests) == ["dispatch GET /a", "read off"])
        #expect(harness.respond() == ["write HTTP/1.1 200 OK", "write HTTP/1.1 401 Unauthorized", "read on"])
        #expect(!harness.written.contains("Connection: close"))
        #expect(harness.machine.bufferedRequestBytes == 0)
    }
}
