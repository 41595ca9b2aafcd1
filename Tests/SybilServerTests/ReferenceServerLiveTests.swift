import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilStore
import SybilTesting
import Testing

@testable import SybilServer

/// The reference server over real sockets, driven by the client stack of the network layer.
@Suite("Reference server with the real clients", .timeLimit(.minutes(2)))
struct ReferenceServerLiveTests {
    private static let token = "live-token"

    private func start(_ configure: (inout SybilServerOptions) -> Void = { _ in }) throws -> (
        ReferenceServer, ManualClock
    ) {
        let clock = ManualClock()
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        configure(&options)
        let time = ServerTime(clock: clock) { AppHarness.epochBase }
        return (try ReferenceServer(options: options, time: time), clock)
    }

    private func post(_ server: ReferenceServer, _ path: String, _ body: String) async throws -> (Int, JSONValue) {
        let request = HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: server.baseURL, path: path),
            headers: HTTPHeaders([("Authorization", "Bearer \(Self.token)"), ("Content-Type", "application/json")]),
            body: Array(body.utf8), timeout: .seconds(30))
        let response = try await DefaultHTTPClient.make().send(request)
        return (response.head.status, try JSONReader().parse(await response.collect()))
    }

    private func connectStream(_ server: ReferenceServer, after: String?, token: String = Self.token) async throws
        -> SocketWebSocket<ManualClock>
    {
        let query = after.map { "?after=\($0)" } ?? ""
        let url = URL(string: "ws://127.0.0.1:\(server.http.port)/agent/stream\(query)")!
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(token)")
        return try await SocketWebSocket.connect(
            to: url, options: WebSocketOptions(headers: headers), random: SeededRandomSource(seed: 3),
            clock: ManualClock())
    }

    /// The reply to `prompt` through the network layer's chat service (token chain, SSE
    /// transport), with `token` stored and an optional refresher and send gate.
    private func ask(
        _ server: ReferenceServer, _ prompt: String, token: String = Self.token,
        refresher: (any TokenRefresher)? = nil, gate: (any SendGate)? = nil,
        http: any HTTPClient = DefaultHTTPClient.make()
    ) async throws -> String {
        let tokens = TokenProvider(
            current: TokenLocation(store: InMemorySecretStore(["t": token]), account: "t"), refresher: refresher)
        let service = ChatStreamingService(
            baseURL: server.baseURL, http: http, clock: ContinuousClock(), tokens: tokens, gate: gate,
            model: SybilServerOptions.scriptedModel)
        var text = ""
        for try await delta in service.reply(to: [ChatMessage(role: "user", content: prompt)]) { text += delta }
        return text
    }

    @Test func agentStreamReplaysFromACursorThenEchoesNewSubmissionsWithTheirRequestId() async throws {
        let (server, _) = try start()
        let first = try await post(
            server, "agent/messages", #"{"requestId": "req-1", "text": "first", "createdAt": 1}"#)
        #expect(first.0 == 202)
        let firstCursor = try #require(first.1["receipt"]["cursor"].string)
        let socket = try await connectStream(server, after: firstCursor)
        var frames = socket.incoming.makeAsyncIterator()
        func nextFrame() async throws -> JSONValue? {
            guard case .text(let text)? = try await frames.next() else { return nil }
            return try JSONReader().parse(text)
        }
        // The replay starts after the cursor: the agent's answer to "first", not "first" itself.
        var replayed: [JSONValue] = []
        while replayed.filter({ $0["message"]["role"].string == "assistant" }).isEmpty,
            let frame = try await nextFrame()
        {
            replayed.append(frame)
        }
        #expect(!replayed.contains { $0["message"]["requestId"].string == "req-1" })
        _ = try await post(server, "agent/messages", #"{"requestId": "req-2", "text": "second", "createdAt": 2}"#)
        var echo: JSONValue?
        while let frame = try await nextFrame() {
            if frame["type"].string == "message", frame["message"]["role"].string == "user" {
                echo = frame
                break
            }
        }
        #expect(echo?["message"]["requestId"].string == "req-2")
        #expect(echo?["message"]["text"].string == "second")
        socket.close(code: 1000, reason: "")
        await server.shutdown()
    }

    @Test func streamWithoutAValidTokenIsRefusedBeforeTheUpgrade() async throws {
        let (server, _) = try start()
        await #expect(throws: (any Error).self) { try await connectStream(server, after: nil, token: "nope") }
        await server.shutdown()
    }

    @Test func unavailableAttachmentsCloseTheStreamWith4503AfterTheReplay() async throws {
        let (server, _) = try start { $0.attachmentsAvailable = false }
        let socket = try await connectStream(server, after: nil)
        var last: WebSocketIncoming?
        for try await message in socket.incoming { last = message }
        #expect(last == .closed(code: 4503, reason: "attachments unavailable"))
        await server.shutdown()
    }

    @Test func chatServiceStreamsTheScriptedReplyOverHTTP() async throws {
        let (server, _) = try start()
        let text = try await ask(server, "Wie warm ist es?")
        #expect(text.contains("Wie warm ist es?"))
        #expect(text == ScriptedAgent(seed: 1).reply(to: "Wie warm ist es?").text)
        await server.shutdown()
    }

    @Test func aColdStartHeldByTheServerIsCoveredByTheClientsWarmUp() async throws {
        let (server, clock) = try start {
            $0.coldStart = .seconds(5)
            $0.coldStartWaits = true
        }
        let http = DefaultHTTPClient.make()
        let manager = await MainActor.run {
            WarmUpManager(http: http, baseURL: server.baseURL, clock: ContinuousClock())
        }
        let gate = WarmUpSendGate(manager: manager)
        let reply = Task { try await ask(server, "Bist du wach?", gate: gate, http: http) }
        // The health check of the warm-up is the first request: the server holds it.
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(5))
        #expect(try await reply.value == ScriptedAgent(seed: 1).reply(to: "Bist du wach?").text)
        #expect(await MainActor.run { manager.healthChecks } == 1)
        await server.shutdown()
    }

    @Test func anExpiredTokenIsRefusedThenRefreshedAndTheSendRetriedOnce() async throws {
        let (server, _) = try start()
        struct Refresher: TokenRefresher {
            func refreshToken(expired: String?) async throws -> String { ReferenceServerLiveTests.token }
        }
        await #expect(throws: TokenError.cannotRefresh) { try await ask(server, "hi", token: "old") }
        let text = try await ask(server, "hi", token: "old", refresher: Refresher())
        #expect(text == ScriptedAgent(seed: 1).reply(to: "hi").text)
        await server.shutdown()
    }

    @Test func upstreamForwardingStreamsAnotherServersAnswerBack() async throws {
        let (origin, _) = try start { $0.seed = 42 }
        let (proxy, _) = try start { options in
            options.upstream = origin.baseURL
            options.upstreamKey = Self.token
        }
        let (status, body) = try await post(
            proxy, "v1/chat/completions",
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "Hallo"}]}"#)
        #expect(status == 200)
        #expect(body["choices"][0]["message"]["content"].string == ScriptedAgent(seed: 42).reply(to: "Hallo").text)
        // Streamed: the proxy passes the origin's event stream through as it arrives.
        #expect(try await ask(proxy, "Hallo") == ScriptedAgent(seed: 42).reply(to: "Hallo").text)
        await proxy.shutdown()
        await origin.shutdown()
    }

    @Test func anUnreachableUpstreamIs503WithoutNamingIt() async throws {
        // A bound port that never listens: a stopped server's freed port could be handed to
        // another test's server meanwhile, which would answer for the "unreachable" upstream.
        let refusing = try RefusingPort()
        let address = refusing.url
        let (proxy, _) = try start { $0.upstream = address }
        let (status, body) = try await post(
            proxy, "v1/chat/completions", #"{"model": "any", "messages": [{"role": "user", "content": "Hallo"}]}"#)
        #expect(status == 503)
        #expect(body["error"]["code"].string == "upstream_unavailable")
        let message = body["error"]["message"].string ?? ""
        #expect(!message.contains(address.host ?? "127.0.0.1"), "the platform's text names the upstream: \(message)")
        await proxy.shutdown()
    }

    @Test func historyAndUploadsSurviveARestartOnTheSameDataDirectory() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (first, _) = try start { $0.storage = .directory(directory.path) }
        _ = try await post(first, "agent/messages", #"{"requestId": "req-1", "text": "remember me", "createdAt": 1}"#)
        await first.shutdown()
        let (second, _) = try start { $0.storage = .directory(directory.path) }
        let again = try await post(
            second, "agent/messages", #"{"requestId": "req-1", "text": "remember me", "createdAt": 1}"#)
        #expect(again.0 == 200)  // the same request id after a restart still creates nothing
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains("agent-room.sqlite") && files.contains("workspaces.sqlite"))
        await second.shutdown()
    }
}
