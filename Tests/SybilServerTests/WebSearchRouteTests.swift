import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// `POST /v1/web-search` (docs/api/web-search.md): authenticated like every Sybil route,
/// strict bodies with a 400 naming the member, a deterministic scripted answer whose text and
/// sources say they are scripted, and, with an upstream model, the model's answer.
@Suite("Reference server: web search", .timeLimit(.minutes(2)))
struct WebSearchRouteTests {
    private func search(_ harness: AppHarness, _ body: String, path: String = "/v1/web-search") async
        -> HTTPServerResponse
    {
        await harness.send("POST", path, json: body)
    }

    private func expect400(
        _ response: HTTPServerResponse, param: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == 400, sourceLocation: sourceLocation)
        let error = try APIErrorBody.decode(try json(response), at: .root)
        #expect(error.param == param, "\(error.message)", sourceLocation: sourceLocation)
    }

    @Test func theScriptedAnswerIsDeterministicAndSaysItIsScripted() async throws {
        let harness = try AppHarness { $0.seed = 7 }
        for path in ["/v1/web-search", "/api/v1/web-search"] {
            let response = await search(harness, #"{"query": "Wie warm ist Kyoto im Mai?"}"#, path: path)
            #expect(response.status == 200)
            let answer = try WebSearchAnswer.decode(try json(response), at: .root)
            #expect(answer.answer.hasPrefix("Scripted answer from the reference server (no web search was made)"))
            #expect(answer.answer.contains("\u{201C}Wie warm ist Kyoto im Mai?\u{201D}"))
            #expect(answer.sources.count == 3)
            #expect(answer.sources.allSatisfy { $0.title.contains("not a real page") })
            #expect(answer.sources.allSatisfy { $0.url.hasPrefix("https://scripted.example/web-search/") })
            let again = try WebSearchAnswer.decode(
                try json(await search(harness, #"{"query": "Wie warm ist Kyoto im Mai?"}"#)), at: .root)
            #expect(again == answer)
        }
        let other = try WebSearchAnswer.decode(try json(await search(harness, #"{"query": "Osaka"}"#)), at: .root)
        #expect(
            other.sources[0].url
                != (try WebSearchAnswer.decode(
                    try json(await search(harness, #"{"query": "Kyoto"}"#)), at: .root)).sources[0].url)
    }

    @Test func aTokenIsRequired() async throws {
        let harness = try AppHarness()
        for authorization in [nil, "Bearer wrong", "Basic dGVzdA=="] {
            let response = await harness.send(
                "POST", "/v1/web-search", body: Array(#"{"query":"q"}"#.utf8),
                headers: [("Content-Type", "application/json")], authorization: authorization)
            #expect(response.status == 401, "\(authorization ?? "none")")
            #expect(response.headers["WWW-Authenticate"] == "Bearer")
        }
        #expect(await harness.send("GET", "/v1/web-search").status == 405)
    }

    @Test func aBadBodyIsA400NamingTheMember() async throws {
        let harness = try AppHarness()
        try expect400(await search(harness, "{}"), param: "query")
        try expect400(await search(harness, #"{"query": 5}"#), param: "query")
        try expect400(await search(harness, #"{"query": "   "}"#), param: "query")
        try expect400(await search(harness, #"{"query": "q", "model": "m"}"#), param: "model")
        try expect400(await search(harness, #"{"query": "a", "query": "b"}"#), param: "query")
        try expect400(await search(harness, #"["q"]"#), param: "body")
        try expect400(await search(harness, "not json"), param: "body")
        let long = String(repeating: "x", count: WebSearchRequest.maxQueryBytes + 1)
        let response = await search(harness, #"{"query": "\#(long)"}"#)
        try expect400(response, param: "query")
        let error = try APIErrorBody.decode(try json(response), at: .root)
        #expect(!error.message.contains("xxxx"), "the query is not echoed back")
    }

    #if canImport(Glibc) && canImport(COpenSSL)
        @Test func anUpstreamModelWritesTheAnswerWithNoSources() async throws {
            let upstream = try LoopbackHTTPServer { _, connection in
                let body =
                    #"{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Im Mai um 20 Grad."},"finish_reason":"stop"}]}"#
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
            let harness = try AppHarness { options in
                options.upstream = URL(string: "http://127.0.0.1:\(upstream.port)")
                options.upstreamModel = "llama3.2"
                options.upstreamKey = "up-key"
            }
            let response = await search(harness, #"{"query": "Wie warm ist Kyoto im Mai?"}"#)
            #expect(response.status == 200)
            #expect(
                try WebSearchAnswer.decode(try json(response), at: .root)
                    == WebSearchAnswer(answer: "Im Mai um 20 Grad.", sources: []))
            let sent = try #require(upstream.received.last)
            #expect(sent.requestLine == "POST /v1/chat/completions HTTP/1.1")
            #expect(sent.header("Authorization") == "Bearer up-key")
            guard case .object(let object) = try JSONReader().parse(sent.body),
                case .array(let messages)? = object["messages"], case .object(let last)? = messages.last
            else {
                Issue.record("no messages sent")
                return
            }
            #expect(object["model"] == .string("llama3.2"))
            #expect(last["content"] == .string("Wie warm ist Kyoto im Mai?"))
        }

        @Test func aFailingUpstreamIsThisServersOwn502() async throws {
            let upstream = try LoopbackHTTPServer { _, connection in
                let body = #"{"error":{"message":"upstream at 10.0.0.5 is down"}}"#
                connection.write(
                    "HTTP/1.1 500 X\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                )
            }
            let harness = try AppHarness { options in
                options.upstream = URL(string: "http://127.0.0.1:\(upstream.port)")
                options.upstreamModel = "llama3.2"
            }
            let response = await search(harness, #"{"query": "q"}"#)
            #expect(response.status == 502)
            let error = try APIErrorBody.decode(try json(response), at: .root)
            #expect(error.code == "upstream_failed")
            #expect(!error.message.contains("10.0.0.5"))
        }
    #endif
}
