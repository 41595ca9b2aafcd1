import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilTesting
import Testing

/// The Agent room stream against the reference server's transport over loopback: what the
/// client makes of a close the server really sends.
@Suite("Agent room stream over loopback", .timeLimit(.minutes(2)))
struct AgentRoomStreamLoopbackTests {
    typealias F = AgentRoomFixtures

    /// The server's inbox bound for one WebSocket (``ServerWebSocketInbox``).
    private static let inboxHighWater = 1 << 20

    /// A server that stops taking a connection's messages closes it as busy, not as a failed
    /// sign-in: the client keeps its token, shows no sign-in error and waits the policy's
    /// backoff before it connects again.
    @Test func aServerThatDidNotKeepUpClosesAsBusyAndTheTokenIsKept() async throws {
        let serverClock = ManualClock()
        let server = try HTTPServer(
            configuration: HTTPServer.Configuration(
                maximumConnections: 8, idleTimeout: .seconds(60), uptime: { serverClock.now.offset }),
            handler: UnreadRoomHandler())
        let refresher = RoomTokenRefresher()
        let clock = ManualClock()
        let stream = AgentRoomStream(
            base: try AgentAPIBase(string: "\(server.baseURL.absoluteString)/api/"),
            tokens: F.tokens(refresher: refresher),
            connector: FloodingConnector(
                inner: AgentRoomStreamSocketConnector(clock: ManualClock(), random: SeededRandomSource(seed: 7))),
            clock: clock, random: SeededRandomSource(seed: 3))
        var updates = stream.updates(replayFrom: { nil }).makeAsyncIterator()
        #expect(await updates.next() == .connected(after: nil))
        // The client sent twice what the server holds for a session that does not read.
        #expect(await ConditionWait.until { server.statistics.peakInboxWeight > Self.inboxHighWater })
        serverClock.advance(by: .seconds(10))
        server.checkDeadlines()
        var policy = ReconnectPolicy()
        let delay = policy.connectionDropped(uptime: .zero, random: SeededRandomSource(seed: 3)).delay
        #expect(
            await updates.next()
                == .disconnected(
                    .serverBusy("server busy: messages from this connection waited too long"), retryIn: delay))
        #expect(refresher.count == 0, "a busy server is no reason to renew the token")
        await server.shutdown()
    }
}

/// Connects with the live connector, then sends 2 MiB of 4 KiB binary messages (queued: the
/// sends never wait for the server).
private struct FloodingConnector: AgentRoomStreamConnector {
    let inner: AgentRoomStreamSocketConnector<ManualClock>

    func connect(to url: URL, headers: HTTPHeaders) async throws(AgentRoomStreamConnectError)
        -> any WebSocketConnection
    {
        let socket = try await inner.connect(to: url, headers: headers)
        let message = [UInt8](repeating: 7, count: 4096)
        for _ in 0..<512 { try? socket.send(binary: message) }
        return socket
    }
}

/// Upgrades `agent/stream` to a session that holds the connection and never takes a message;
/// every other request is answered 404.
private struct UnreadRoomHandler: HTTPHandler, HTTPRoute {
    func bodyLimit(for head: HTTPRequestHead) -> Int { 0 }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard request.path == "/api/agent/stream" else { return HTTPServerResponse(status: 404, body: .bytes([])) }
        let accept = WebSocketHandshake.acceptValue(for: request.headers["Sec-WebSocket-Key"] ?? "")
        return HTTPServerResponse(
            status: 101,
            body: .webSocket(accept: accept, maximumMessage: 1 << 16) { _ in
                // Holds the connection without reading until the transport ends the session.
                let (forever, continuation) = AsyncStream<Void>.makeStream()
                for await _ in forever {}
                continuation.finish()
            })
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }
}
