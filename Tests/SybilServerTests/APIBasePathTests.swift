import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import SybilWire
import Testing

@testable import SybilServer

/// The Sybil API at the root and under `/api`, as the seed's clients configure their base
/// URL: every route answers the same under both prefixes, and nothing else looks like one.
@Suite("Reference server: /api base path", .timeLimit(.minutes(2)))
struct APIBasePathTests {
    private static let apiRoutes = ServerRoute.allCases.filter { $0 != .debugWebSocketEcho }

    /// A value for each parameter a template has.
    private static let parameterValues = ["uploadId": "u-1", "streamId": "chatcmpl-1", "modelId": "chat-latest"]

    private static func concretePath(_ route: ServerRoute) -> String {
        parameterValues.reduce(route.template) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
    }

    @Test("every API route matches at the root and under /api", arguments: apiRoutes)
    func routesMatchUnderBothPrefixes(route: ServerRoute) {
        let path = Self.concretePath(route)
        let parameters = Self.parameterValues.filter { route.template.contains("{\($0.key)}") }
        #expect(ServerRoute.match(method: route.method, path: path) == .route(route, parameters))
        #expect(ServerRoute.match(method: route.method, path: "/api" + path) == .route(route, parameters))
        #expect(route.isUnderBasePath)
    }

    @Test(
        "paths that only resemble the base path are not found",
        arguments: [
            "/api", "/api/", "/apix/agent/messages", "/api/api/agent/messages", "/API/agent/messages",
            "/api//agent/messages", "/api/debug/ws-echo", "/v1/api/agent/messages", "/apiagent/messages",
        ])
    func lookalikes(path: String) async throws {
        #expect(ServerRoute.match(method: "GET", path: path) == .notFound)
        #expect(ServerRoute.match(method: "POST", path: path) == .notFound)
        let harness = try AppHarness { $0.debugEndpoints = true }
        let response = await harness.send("GET", path, headers: AppHarness.upgradeHeaders)
        #expect(response.status == 404, "\(path)")
        #expect(try APIErrorBody.decode(json(response), at: .root).code == "not_found")
    }

    @Test func theDebugEchoStaysAtTheRootOnly() async throws {
        let harness = try AppHarness { $0.debugEndpoints = true }
        #expect(await harness.send("GET", "/debug/ws-echo", headers: AppHarness.upgradeHeaders).status == 101)
        #expect(await harness.send("GET", "/api/debug/ws-echo", headers: AppHarness.upgradeHeaders).status == 404)
    }

    @Test func aWrongMethodUnderApiIs405WithAllow() async throws {
        let harness = try AppHarness()
        let response = await harness.send("DELETE", "/api/agent/messages")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, POST")
    }

    @Test("every route under /api needs the token too", arguments: apiRoutes.filter(\.requiresAuthorization))
    func authorizationUnderApi(route: ServerRoute) async throws {
        let harness = try AppHarness()
        let response = await harness.send(route.method, "/api" + Self.concretePath(route), authorization: "Bearer no")
        #expect(response.status == 401)
    }

    /// The same requests at both prefixes, in two fresh servers, answer the same statuses and bodies.
    @Test(arguments: ["", "/api"])
    func everyRouteAnswersUnderThePrefix(prefix: String) async throws {
        let harness = try AppHarness()
        #expect(await harness.send("GET", prefix + "/healthz", authorization: nil).status == 200)
        #expect(await harness.send("GET", prefix + "/agent/descriptor").status == 200)
        let upload = await harness.uploadMultipart(id: "u-1", bytes: [1, 2, 3], prefix: prefix)
        #expect(upload.status == 201)
        let receipt = await harness.submit("req-1", attachments: ["u-1"], prefix: prefix)
        #expect(receipt.status == 202)
        await harness.waitUntilAgentIdle()
        let page = try AgentRoomPage.decode(json(await harness.send("GET", prefix + "/agent/messages")), at: .root)
        #expect(page.messages.count == 3)
        let read = await harness.send(
            "POST", prefix + "/agent/read", json: #"{"cursor": "\#(page.messages[2].cursor.rawValue)"}"#)
        #expect(try AgentReadState.decode(json(read), at: .root).unread == 0)
        #expect(await harness.send("GET", prefix + "/agent/read").status == 200)
        #expect(await harness.send("GET", prefix + "/agent/uploads/u-1/original").bodyBytes == [1, 2, 3])
        #expect(await harness.send("GET", prefix + "/agent/stream", headers: AppHarness.upgradeHeaders).status == 101)
        let completion = await harness.send(
            "POST", prefix + "/v1/chat/completions",
            json: #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "Hallo"}]}"#)
        #expect(completion.status == 200)
        let rpc = await harness.send(
            "POST", prefix + "/v1/workspaces/rpc", json: #"{"method": "desktops.list", "callKey": null, "params": {}}"#)
        #expect(rpc.status == 200)
        let events = await harness.send(
            "GET", prefix + "/v1/workspaces/events?desktopId=desk-1&projectId=proj-app&sessionId=sess-42")
        #expect(events.status == 200)
    }

    @Test(arguments: ["", "/api"])
    func bodyLimitsAreTheSameUnderThePrefix(prefix: String) throws {
        let harness = try AppHarness()
        func limit(_ method: String, _ path: String, _ headers: [(String, String)] = []) -> Int {
            harness.app.bodyLimit(
                for: HTTPRequestHead(
                    method: method, target: prefix + path, minorVersion: 1, headers: HTTPHeaders(headers)))
        }
        #expect(limit("POST", "/agent/uploads", [("Content-Type", "text/plain")]) == 8 << 20)
        #expect(
            limit("POST", "/agent/uploads", [("Content-Type", "multipart/form-data; boundary=b")])
                == (8 << 20) + (64 << 10))
        #expect(limit("POST", "/v1/workspaces/rpc") == 2 << 20)
        #expect(limit("POST", "/agent/messages") == 1 << 20)
    }

    @Test func clientsWithAnApiBaseURLReachTheRoomOverRealSockets() async throws {
        var options = SybilServerOptions(token: "live")
        options.pace = .zero
        let server = try ReferenceServer(
            options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
        for base in ["\(server.baseURL.absoluteString)/api", "\(server.baseURL.absoluteString)/api/"] {
            let request = HTTPRequest(
                url: APIEndpoint.url(base: try #require(URL(string: base)), path: "agent/descriptor"),
                headers: HTTPHeaders([("Authorization", "Bearer live")]), timeout: .seconds(30))
            let response = try await DefaultHTTPClient.make().send(request)
            #expect(response.head.status == 200, "\(base)")
            let descriptor = try AgentRoomDescriptor.decode(try JSONReader().parse(await response.collect()), at: .root)
            #expect(descriptor.attachments?.limits == .v1)
        }
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer live")
        let socket = try await SocketWebSocket.connect(
            to: try #require(URL(string: "ws://127.0.0.1:\(server.http.port)/api/agent/stream")),
            options: WebSocketOptions(headers: headers), random: SeededRandomSource(seed: 3), clock: ManualClock())
        socket.close(code: 1000, reason: "")
        await server.shutdown()
    }
}
