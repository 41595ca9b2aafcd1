import SybilCore
import SybilHTTP
import SybilServer
import SybilWire
import Testing

/// How a request's target and single-valued fields are read: `+` is literal in a path and a
/// space only in a query, one `Host`, and a field or parameter read as one value is refused
/// when it is given twice instead of read as its first value.
@Suite("Request targets and single-valued fields", .timeLimit(.minutes(2)))
struct RequestTargetRulesTests {
    private func error(_ response: HTTPServerResponse) throws -> APIErrorBody {
        try APIErrorBody.decode(json(response), at: .root)
    }

    @Test func aPlusInAPathIsThePlusCharacter() async throws {
        let harness = try AppHarness()
        #expect(await harness.uploadRaw(id: "sp+x", bytes: [1, 2, 3]).status == 201)
        let original = await harness.send("GET", "/agent/uploads/sp+x/original")
        #expect(original.status == 200)
        #expect(original.bodyBytes == [1, 2, 3])
        #expect(await harness.send("GET", "/agent/uploads/sp%2Bx/original").bodyBytes == [1, 2, 3])
        // A space is spelled %20 in a path, never +.
        #expect(await harness.send("GET", "/agent/uploads/sp%20x/original").status == 400)
    }

    @Test func aRepeatedSingleValuedQueryParameterIsRefusedNamingIt() async throws {
        let harness = try AppHarness()
        for (target, name) in [
            ("/records?after=1&after=2", "after"), ("/records?limit=1&limit=2", "limit"),
            ("/agent/messages?limit=1&limit=2", "limit"),
            (
                "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42&sessionId=sess-42",
                "sessionId"
            ),
            ("/v1/chat/completions/chatcmpl-0/events?after=1&after=1", "after"),
        ] {
            let response = await harness.send("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect(try error(response).param == name, "\(target)")
        }
        // Once each is fine.
        #expect(await harness.send("GET", "/records?after=1&limit=2").status == 200)
    }

    @Test func aSecondLastEventIDIsRefusedNamingIt() async throws {
        let harness = try AppHarness()
        for target in [
            "/v1/chat/completions/chatcmpl-0/events",
            "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42",
        ] {
            let response = await harness.send(
                "GET", target, headers: [("Last-Event-ID", "1"), ("Last-Event-ID", "2")])
            #expect(response.status == 400, "\(target)")
            #expect(try error(response).param == "Last-Event-ID", "\(target)")
        }
    }

    @Test func twoHostFieldsAreRefusedAndHTTP11NeedsOne() throws {
        var parser = HTTPRequestParser { _ in 0 }
        #expect(throws: HTTPParseError.badRequest("more than one Host header")) {
            try parser.feed(Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8))
        }
        var sameTwice = HTTPRequestParser { _ in 0 }
        #expect(throws: HTTPParseError.badRequest("more than one Host header")) {
            try sameTwice.feed(Array("GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n".utf8))
        }
        var none = HTTPRequestParser { _ in 0 }
        #expect(throws: HTTPParseError.badRequest("HTTP/1.1 requests need a Host header")) {
            try none.feed(Array("GET / HTTP/1.1\r\n\r\n".utf8))
        }
        var old = HTTPRequestParser { _ in 0 }
        #expect(try old.feed(Array("GET / HTTP/1.0\r\n\r\n".utf8)).count == 2)
        var one = HTTPRequestParser { _ in 0 }
        #expect(try one.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)).count == 2)
    }
}
