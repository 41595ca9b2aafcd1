import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// A forwarding server answers for its upstream with its own documented errors
/// (docs/api/chats.md, "Upstream errors"): nothing but a `200` JSON answer or a well-formed
/// `4xx` error passes through, and no answer carries the upstream's address or platform text.
@Suite("Upstream failures map to the server's own errors", .timeLimit(.minutes(2)))
struct UpstreamErrorTests {
    typealias Upstream = ChatForwardingTests.Upstream

    private let request = #"{"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}"#

    private func app(_ upstream: Upstream?, base: String = "http://upstream.invalid") throws -> SybilServerApp {
        var options = SybilServerOptions(token: AppHarness.token)
        options.pace = .zero
        options.upstream = URL(string: base)
        options.upstreamKey = "up-key"
        return try SybilServerApp(
            options: options, time: ServerTime(clock: ManualClock()) { 1_800_000_000_000 }, upstream: upstream,
            random: SeededRandomSource(seed: 9))
    }

    private func post(_ app: SybilServerApp) async -> HTTPServerResponse {
        await app.handle(
            HTTPServerRequest(
                method: "POST", target: "/v1/chat/completions",
                headers: [("Authorization", "Bearer \(AppHarness.token)")], body: Array(request.utf8)))
    }

    private func getModels(_ app: SybilServerApp) async -> HTTPServerResponse {
        await app.handle(
            HTTPServerRequest(
                method: "GET", target: "/v1/models", headers: [("Authorization", "Bearer \(AppHarness.token)")]))
    }

    /// The shared error body's members (message, type, code), or nil when the body breaks it.
    private func errorBody(_ response: HTTPServerResponse) -> (message: String, type: String, code: String)? {
        guard response.headers["Content-Type"]?.hasPrefix("application/json") == true,
            case .object(let root)? = try? JSONReader().parse(response.bodyBytes ?? []),
            case .object(let error)? = root["error"], case .string(let message)? = error["message"],
            case .string(let type)? = error["type"], case .string(let code)? = error["code"]
        else { return nil }
        return (message, type, code)
    }

    struct StatusCase: Sendable, CustomTestStringConvertible {
        var status: Int
        var contentType: String
        var body: String
        var answer: Int
        var code: String
        var testDescription: String { "upstream \(status) \(contentType) → \(answer) \(code)" }
    }

    static let statusCases: [StatusCase] = [
        StatusCase(status: 101, contentType: "text/plain", body: "", answer: 502, code: "upstream_failed"),
        StatusCase(status: 999, contentType: "application/json", body: "{}", answer: 502, code: "upstream_failed"),
        StatusCase(status: 99, contentType: "application/json", body: "{}", answer: 502, code: "upstream_failed"),
        StatusCase(status: 204, contentType: "application/json", body: "", answer: 502, code: "upstream_failed"),
        StatusCase(status: 302, contentType: "text/html", body: "<a>moved</a>", answer: 502, code: "upstream_failed"),
        StatusCase(
            status: 500, contentType: "text/html", body: "<html><body>Internal Server Error</body></html>",
            answer: 502, code: "upstream_failed"),
        StatusCase(
            status: 503, contentType: "application/json", body: #"{"error":{"message":"overloaded"}}"#, answer: 502,
            code: "upstream_failed"),
        StatusCase(
            status: 401, contentType: "application/json",
            body: #"{"error":{"message":"bad key","code":"invalid_api_key"}}"#,
            answer: 502, code: "upstream_unauthorized"),
        StatusCase(
            status: 403, contentType: "text/plain", body: "forbidden", answer: 502, code: "upstream_unauthorized"),
        StatusCase(status: 400, contentType: "text/html", body: "<h1>Bad</h1>", answer: 502, code: "upstream_failed"),
        StatusCase(
            status: 422, contentType: "application/json", body: #"{"detail":"not our shape"}"#, answer: 502,
            code: "upstream_failed"),
        StatusCase(status: 200, contentType: "text/html", body: "<p>hello</p>", answer: 502, code: "upstream_failed"),
        StatusCase(status: 200, contentType: "application/json", body: "{oops", answer: 502, code: "upstream_failed"),
    ]

    @Test("an upstream answer outside the contract becomes this server's own error", arguments: statusCases)
    func upstreamStatusesAreMapped(_ example: StatusCase) async throws {
        for route in ["chat", "models"] {
            let upstream = Upstream([
                .init(status: example.status, contentType: example.contentType, chunks: [example.body])
            ])
            let app = try app(upstream)
            let answer = route == "chat" ? await post(app) : await getModels(app)
            #expect(answer.status == example.answer, "\(route)")
            let body = try #require(errorBody(answer), "\(route): the shared error body")
            #expect(body.code == example.code, "\(route)")
            #expect(!body.message.contains("<"), "\(route): nothing of the upstream's page")
        }
    }

    @Test func aWellFormedUpstream4xxErrorIsRelayedWithItsStatusInTheSharedShape() async throws {
        let upstream = Upstream([
            .init(
                status: 429, contentType: "application/json",
                chunks: [
                    #"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#
                ],
                headers: [("Retry-After", "7"), ("X-Upstream-Secret", "s")]),
            .init(
                status: 404, contentType: "application/json; charset=utf-8",
                chunks: [#"{"error":{"message":"The model 'gpt-x' does not exist","param":"model"}}"#]),
        ])
        let app = try app(upstream)
        let limited = await post(app)
        #expect(limited.status == 429)
        #expect(limited.headers["Retry-After"] == "7")
        #expect(limited.headers["X-Upstream-Secret"] == nil)
        #expect(
            String(decoding: limited.bodyBytes ?? [], as: UTF8.self)
                == #"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#)
        let missing = await post(app)
        #expect(missing.status == 404)
        #expect(
            String(decoding: missing.bodyBytes ?? [], as: UTF8.self)
                == #"{"error":{"message":"The model 'gpt-x' does not exist","type":"invalid_request_error","code":"not_found","param":"model"}}"#
        )
    }

    @Test func anUnreachableUpstreamIs503WithoutItsAddressOrPlatformText() async throws {
        let lost = URLError(
            .cannotConnectToHost,
            userInfo: [
                NSURLErrorFailingURLErrorKey: URL(string: "http://upstream.invalid/v1/chat/completions")!,
                NSLocalizedDescriptionKey: "Could not connect to the server upstream.invalid",
            ])
        let upstream = Upstream([
            .init(status: 0, contentType: "", chunks: [], sendFailure: lost),
            .init(status: 0, contentType: "", chunks: [], sendFailure: lost),
        ])
        let app = try app(upstream)
        for answer in [await post(app), await getModels(app)] {
            #expect(answer.status == 503)
            #expect(answer.headers["Retry-After"] == "1")
            let body = try #require(errorBody(answer))
            #expect(body.code == "upstream_unavailable")
            #expect(body.message == "The upstream server could not be reached; retry shortly.")
        }
    }

    @Test func anUpstreamTimeoutIs504() async throws {
        let upstream = Upstream([
            .init(status: 0, contentType: "", chunks: [], sendFailure: HTTPTimeout(after: .seconds(30))),
            .init(
                status: 200, contentType: "application/json", chunks: [#"{"ob"#],
                failure: HTTPTimeout(after: .seconds(30))),
        ])
        let app = try app(upstream)
        for answer in [await post(app), await post(app)] {
            #expect(answer.status == 504)
            #expect(errorBody(answer)?.code == "upstream_timeout")
        }
    }

    @Test func anUpstreamStreamThatBreaksOffSaysSoWithoutPlatformText() async throws {
        let lost = URLError(
            .networkConnectionLost,
            userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "http://upstream.invalid/v1/chat/completions")!])
        let chunk =
            #"data: {"id":"up-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hal"},"finish_reason":null}]}"#
            + "\n\n"
        let upstream = Upstream([.init(status: 200, contentType: "text/event-stream", chunks: [chunk], failure: lost)])
        let decoded = try events(await collect(await post(try app(upstream)))).map(OpenAIStreamEvent.decode)
        guard case .error(let error)? = decoded.last, decoded.count == 2 else {
            Issue.record("expected the chunk, then an error frame; got \(decoded)")
            return
        }
        #expect(error.code == "upstream_failed")
        #expect(error.message == "The upstream stream broke off before [DONE].")
    }

    // MARK: Over real sockets, through the client the server builds itself (`DefaultHTTPClient`)

    /// Records each request's target and `Authorization`; answers `answer`.
    final class RecordingHandler: HTTPHandler, HTTPRoute {
        let answer: @Sendable (HTTPServerRequest) -> HTTPServerResponse
        private let seen = Locked<[(target: String, authorization: String?)]>([])

        init(answer: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) { self.answer = answer }

        var requests: [(target: String, authorization: String?)] { seen.withLock { $0 } }

        func bodyLimit(for head: HTTPRequestHead) -> Int { 1 << 20 }

        func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
            seen.withLock { $0.append((request.head.target, request.headers["Authorization"])) }
            return answer(request)
        }

        func refusal(status: Int, message: String) -> HTTPServerResponse {
            APIError(status: status, message: message).response
        }
    }

    private func listen(_ handler: RecordingHandler) throws -> HTTPServer {
        let clock = ManualClock()
        return try HTTPServer(
            configuration: HTTPServer.Configuration(
                maximumConnections: 8, idleTimeout: .seconds(60), requestTimeout: .seconds(10),
                uptime: { clock.now.offset }),
            handler: handler)
    }

    @Test func anUpstreamRedirectToAnotherHostIsNotFollowedAndTheKeyStaysHome() async throws {
        let elsewhere = RecordingHandler { _ in .json(["stolen": true]) }
        let thief = try listen(elsewhere)
        let thiefPort = thief.port
        let redirecting = RecordingHandler { _ in
            var headers = HTTPHeaders()
            headers.set("Location", "http://localhost:\(thiefPort)/v1/chat/completions")
            return HTTPServerResponse(status: 302, headers: headers, body: .bytes(Array("moved".utf8)))
        }
        let origin = try listen(redirecting)
        let app = try app(nil, base: "http://127.0.0.1:\(origin.port)")
        for answer in [await post(app), await getModels(app)] {
            #expect(answer.status == 502)
            #expect(errorBody(answer)?.code == "upstream_failed")
            #expect(answer.headers["Location"] == nil)
        }
        #expect(redirecting.requests.count == 2)
        #expect(redirecting.requests.first?.authorization == "Bearer up-key")
        #expect(elsewhere.requests.isEmpty, "the redirect was not followed, so the key went nowhere else")
        await origin.shutdown()
        await thief.shutdown()
    }

    @Test func aRefusedConnectionIs503WithoutTheUpstreamsAddress() async throws {
        let gone = try RefusingPort()
        let port = gone.port
        let app = try app(nil, base: "http://127.0.0.1:\(port)")
        let answer = await post(app)
        withExtendedLifetime(gone) {}
        #expect(answer.status == 503)
        let body = try #require(errorBody(answer))
        #expect(body.code == "upstream_unavailable")
        #expect(!body.message.contains("127.0.0.1") && !body.message.contains(String(port)))
    }
}
