import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

@testable import SybilServer

/// A request a handler answers at once (``HTTPHandler/immediateResponse(to:)``) is answered on
/// the event-loop thread without a task, in its connection's order; the reference server
/// answers `/healthz` that way unless a cold start has to be passed, and `/agent/read` while
/// its store is free; a route answered at once still has its token checked.
@Suite("Server: answers given at once on the event-loop thread", .timeLimit(.minutes(2)))
struct ImmediateResponseTests {
    /// `/now` is answered at once (and `handle` never sees it); everything else is
    /// ``TransportTestHandler``'s, on a task.
    final class ImmediateTestHandler: HTTPHandler, HTTPRoute {
        let tasks = TransportTestHandler()
        /// Requests for `/now` offered at once, and those that reached `handle`.
        let offered = Counter()
        let handled = Counter()

        func bodyLimit(for head: HTTPRequestHead) -> Int { tasks.bodyLimit(for: head) }

        func immediateResponse(to request: HTTPServerRequest) -> HTTPServerResponse? {
            guard request.path == "/now" else { return nil }
            offered.increment()
            return HTTPServerResponse(status: 200, body: .bytes(Array("now".utf8)))
        }

        func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
            if request.path == "/now" { handled.increment() }
            return await tasks.handle(request)
        }

        func refusal(status: Int, message: String) -> HTTPServerResponse {
            tasks.refusal(status: status, message: message)
        }
    }

    private func start(_ handler: ImmediateTestHandler) throws -> HTTPServer {
        let clock = ManualClock()
        return try HTTPServer(
            configuration: HTTPServer.Configuration(uptime: { clock.now.offset }), handler: handler)
    }

    @Test func anAnswerGivenAtOnceNeedsNoTask() async throws {
        let handler = ImmediateTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        client.send("GET /now HTTP/1.1\r\nHost: x\r\n\r\nHEAD /now HTTP/1.1\r\nHost: x\r\n\r\n")
        let get = await blocking { client.readResponse() }
        #expect(get?.status == 200)
        #expect(get.map { String(decoding: $0.body, as: UTF8.self) } == "now")
        // A HEAD gets the head alone.
        let head = await blocking { client.read(until: "\r\n\r\n") } ?? ""
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("content-length: 3"))
        // The same connection goes on: a request on a task after those answered at once.
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nlate")
        let echo = await blocking { client.readResponse() }
        #expect(echo.map { String(decoding: $0.body, as: UTF8.self) } == "late")
        #expect(handler.offered.value == 2)
        #expect(handler.handled.value == 0)
        await server.shutdown()
    }

    @Test func anAnswerGivenAtOnceWaitsForItsTurnOnTheConnection() async throws {
        let handler = ImmediateTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        // A held request on a task, then two that are answered at once, pipelined.
        client.send(
            "GET /hold HTTP/1.1\r\nHost: x\r\n\r\nGET /now HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /now HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(await eventually { handler.tasks.heldCount == 1 })
        // Not offered before the request ahead of them is answered.
        #expect(handler.offered.value == 0)
        handler.tasks.release()
        let responses = await blocking { (0..<3).compactMap { _ in client.readResponse() } }
        #expect(responses.map { String(decoding: $0.body, as: UTF8.self) } == ["released", "now", "now"])
        #expect(responses.last?.headers["connection"] == "close")
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(handler.offered.value == 2)
        #expect(handler.handled.value == 0)
        await server.shutdown()
    }

    @Test func healthIsAnsweredAtOnceWithoutAToken() async throws {
        let harness = try AppHarness()
        let response = harness.app.immediateResponse(to: HTTPServerRequest(method: "GET", target: "/healthz"))
        #expect(response?.status == 200)
        #expect(response?.bodyBytes == Array(#"{"status":"ok"}"#.utf8))
        #expect(
            harness.app.immediateResponse(to: HTTPServerRequest(method: "GET", target: "/api/healthz"))?.status == 200)
        // The Agent room's read state is read at once while its store is free; routes that
        // wait for a store are left to their task.
        let token = [("Authorization", "Bearer \(AppHarness.token)")]
        let read = HTTPServerRequest(method: "GET", target: "/agent/read", headers: token)
        #expect(harness.app.immediateResponse(to: read)?.bodyBytes == Array(#"{"readCursor":null,"unread":0}"#.utf8))
        #expect(
            harness.app.immediateResponse(
                to: HTTPServerRequest(method: "GET", target: "/agent/messages", headers: token))
                == nil)
    }

    @Test func healthDuringASimulatedColdStartIsLeftToItsTask() async throws {
        let harness = try AppHarness { $0.coldStart = .seconds(2) }
        #expect(harness.app.immediateResponse(to: HTTPServerRequest(method: "GET", target: "/healthz")) == nil)
        // The gate is passed by the task's answer, which says the service is starting.
        #expect(await harness.send("GET", "/healthz", authorization: nil).status == 503)
    }

    @Test func aRouteAnsweredAtOnceStillNeedsItsToken() async throws {
        let harness = try AppHarness()
        let app = harness.app.handler
        let table = RouteTable([
            Route(.agentReadGet, "GET", "/agent/read", immediate: { _, _, _ in HTTPServerResponse(status: 204) }) {
                _, _, _ in HTTPServerResponse(status: 500)
            }
        ])
        let handler = AuthorizingHandler(
            wrapped: RoutingHandler(table: table, surfaces: app.wrapped.surfaces, log: ServerLog { _ in }),
            authorization: app.authorization)
        let bare = HTTPServerRequest(method: "GET", target: "/agent/read")
        #expect(handler.immediateResponse(to: bare)?.status == 401)
        let wrong = HTTPServerRequest(method: "GET", target: "/agent/read", headers: [("Authorization", "Bearer no")])
        #expect(handler.immediateResponse(to: wrong)?.status == 401)
        let right = HTTPServerRequest(
            method: "GET", target: "/agent/read", headers: [("Authorization", "Bearer \(AppHarness.token)")])
        #expect(handler.immediateResponse(to: right)?.status == 204)
        // Unknown paths and methods are answered at once too (the head step answers them first).
        #expect(handler.immediateResponse(to: HTTPServerRequest(method: "GET", target: "/nowhere"))?.status == 404)
        #expect(handler.immediateResponse(to: HTTPServerRequest(method: "PUT", target: "/agent/read"))?.status == 405)
    }
}
