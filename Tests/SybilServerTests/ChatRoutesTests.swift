import SybilCore
import SybilNet
import SybilServer
import SybilWire
import Testing

@Suite("Reference server: routes, auth and chats", .timeLimit(.minutes(2)))
struct ChatRoutesTests {
    private let chatBody =
        #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "Was ist ein Kaltstart?"}]"#

    /// The decoded events of a streamed completion for `prompt`.
    private func streamedEvents(for prompt: String) async throws -> [OpenAIStreamEvent] {
        let harness = try AppHarness()
        let body =
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": \#(JSONWriter.quoted(prompt))}], "stream": true}"#
        return try events(await collect(await harness.send("POST", "/v1/chat/completions", json: body)))
            .map(OpenAIStreamEvent.decode)
    }

    @Test func healthNeedsNoToken() async throws {
        let harness = try AppHarness()
        let response = await harness.send("GET", "/healthz", authorization: nil)
        #expect(response.status == 200)
        #expect(try json(response) == ["status": "ok"])
    }

    @Test(
        "every route but health answers 401 without the token or with a wrong one",
        arguments: ServerRoute.allCases.filter(\.requiresAuthorization))
    func everyRouteNeedsTheToken(route: ServerRoute) async throws {
        let harness = try AppHarness()
        let target = route.template.replacingOccurrences(of: "{uploadId}", with: "u-1")
            .replacingOccurrences(of: "{streamId}", with: "chatcmpl-1").replacingOccurrences(of: "{modelId}", with: "m")
        for authorization in [nil, "Bearer wrong-token", "Bearer test-toke", "Bearer test-tokenn", "test-token"] {
            let response = await harness.send(route.method, target, authorization: authorization)
            #expect(response.status == 401, "\(route) with \(authorization ?? "no header")")
            let body = try APIErrorBody.decode(json(response), at: .root)
            #expect(body.code == "unauthorized")
        }
    }

    @Test func unknownRoutesAre404AndWrongMethods405WithAllow() async throws {
        let harness = try AppHarness()
        let missing = await harness.send("GET", "/v1/nothing")
        #expect(missing.status == 404)
        #expect(try APIErrorBody.decode(json(missing), at: .root).message == "No route GET /v1/nothing.")
        let wrongMethod = await harness.send("DELETE", "/agent/messages")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["Allow"] == "GET, POST")
    }

    @Test func debugEchoExistsOnlyWhenAskedFor() async throws {
        let upgrade = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
        let off = try AppHarness()
        #expect(await off.send("GET", "/debug/ws-echo", headers: upgrade, authorization: nil).status == 404)
        let on = try AppHarness { $0.debugEndpoints = true }
        let response = await on.send("GET", "/debug/ws-echo", headers: upgrade, authorization: nil)
        guard case .webSocket(let accept, _, _) = response.body else {
            Issue.record("expected a WebSocket, got \(response.status)")
            return
        }
        #expect(accept == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")  // RFC 6455 §1.3
    }

    @Test(
        "WebSocket handshake failures are refused before upgrading",
        arguments: [
            ("Upgrade", "h2c", 400, "Upgrade"), ("Connection", "keep-alive", 400, "Connection"),
            ("Sec-WebSocket-Version", "8", 426, "Sec-WebSocket-Version"),
            ("Sec-WebSocket-Key", "c2hvcnQ=", 400, "Sec-WebSocket-Key"),
        ])
    func handshakeFailures(field: String, value: String, status: Int, param: String) async throws {
        let harness = try AppHarness()
        var headers = [
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
        ]
        headers.removeAll { $0.0 == field }
        headers.append((field, value))
        let response = await harness.send("GET", "/agent/stream", headers: headers)
        #expect(response.status == status)
        #expect(try APIErrorBody.decode(json(response), at: .root).param == param)
    }

    @Test func badJSONIs400NamingTheProblem() async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", "/v1/chat/completions", json: #"{"model": "sybil-scripted",}"#)
        #expect(response.status == 400)
        let error = try APIErrorBody.decode(json(response), at: .root)
        #expect(error.param == "body")
        #expect(error.code == "invalid_json")
        #expect(error.message.hasPrefix("The body is not valid JSON: "))
    }

    @Test(
        "chat requests that break a rule name the member",
        arguments: [
            (#"{"messages": [{"role": "user", "content": "x"}]}"#, 400, "model"),
            (#"{"model": "gpt-9", "messages": [{"role": "user", "content": "x"}]}"#, 404, "model"),
            (#"{"model": "sybil-scripted", "messages": []}"#, 400, "messages"),
            (
                #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "x"}, {"role": "robot", "content": "y"}]}"#,
                400, "messages[1].role"
            ),
            (#"{"model": "sybil-scripted", "messages": [{"role": "user", "content": 7}]}"#, 400, "messages[0].content"),
            (
                #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "x"}], "stream": "yes"}"#, 400,
                "stream"
            ),
        ])
    func chatValidation(body: String, status: Int, param: String) async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", "/v1/chat/completions", json: body)
        #expect(response.status == status)
        #expect(try APIErrorBody.decode(json(response), at: .root).param == param)
    }

    @Test func wholeCompletionCarriesTheScriptedReply() async throws {
        let harness = try AppHarness()
        let response = await harness.send("POST", "/v1/chat/completions", json: chatBody + "}")
        #expect(response.status == 200)
        let body = try json(response)
        #expect(body["object"].string == "chat.completion")
        let text = try #require(body["choices"][0]["message"]["content"].string)
        #expect(text.contains("Was ist ein Kaltstart?"))
        #expect(body["choices"][0]["finish_reason"].string == "stop")
    }

    @Test func streamedCompletionDecodesThroughTheClientDecoderAndEndsWithDone() async throws {
        let harness = try AppHarness()
        let whole = try json(await harness.send("POST", "/v1/chat/completions", json: chatBody + "}"))
        let response = await harness.send("POST", "/v1/chat/completions", json: chatBody + #", "stream": true}"#)
        #expect(response.headers["Content-Type"] == "text/event-stream")
        let decoded = try events(await collect(response)).map(OpenAIStreamEvent.decode)
        #expect(decoded.last == .done)
        var text = ""
        for case .chunk(let chunk) in decoded { text += chunk.content }
        #expect(text == whole["choices"][0]["message"]["content"].string)
        #expect(decoded.count > 5)
    }

    @Test func askingForAnErrorEndsTheStreamWithAnErrorFrameAndNoDone() async throws {
        let decoded = try await streamedEvents(for: "fail [[error]]")
        guard case .error(let error)? = decoded.last else {
            Issue.record("expected an error frame last, got \(String(describing: decoded.last))")
            return
        }
        #expect(error.code == "scripted_error")
        #expect(!decoded.contains(.done))
    }

    @Test func askingForAnInterruptionEndsWithoutDoneOrError() async throws {
        let decoded = try await streamedEvents(for: "stop [[interrupt]]")
        #expect(!decoded.contains(.done))
        #expect(!decoded.contains { if case .error = $0 { true } else { false } })
        #expect(decoded.count == 4)  // the role chunk and three tokens
    }

    @Test func coldStartAnswers503WithRetryAfterUntilItEnds() async throws {
        let harness = try AppHarness {
            $0.coldStart = .seconds(3)
            $0.idleTimeout = .seconds(60)
        }
        let first = await harness.send("GET", "/healthz", authorization: nil)
        #expect(first.status == 503)
        #expect(first.headers["Retry-After"] == "3")
        #expect(try APIErrorBody.decode(json(first), at: .root).code == "cold_start")
        harness.clock.advance(by: .milliseconds(2_999))
        let justBefore = await harness.send("POST", "/v1/chat/completions", json: chatBody + "}")
        #expect(justBefore.status == 503)
        #expect(justBefore.headers["Retry-After"] == "1")
        harness.clock.advance(by: .milliseconds(1))
        #expect(await harness.send("GET", "/healthz", authorization: nil).status == 200)
        // Idle exactly the timeout: still warm. Just over: cold again.
        harness.clock.advance(by: .seconds(60))
        #expect(await harness.send("GET", "/healthz", authorization: nil).status == 200)
        harness.clock.advance(by: .milliseconds(60_001))
        #expect(await harness.send("GET", "/healthz", authorization: nil).status == 503)
    }

    @Test func coldStartCanHoldTheRequestInsteadOfRefusingIt() async throws {
        let harness = try AppHarness {
            $0.coldStart = .seconds(2)
            $0.coldStartWaits = true
        }
        let clock = harness.clock
        let task = Task { await harness.send("GET", "/healthz", authorization: nil) }
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(2))
        #expect(await task.value.status == 200)
    }
}
