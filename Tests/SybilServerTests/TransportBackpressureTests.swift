import Foundation
import SybilHTTP
import SybilServer
import SybilTesting
import Testing

/// Backpressure over live sockets: a producer that can outrun its client waits for room, and a
/// session that reads slower than its client stops the server from reading; in both, what the
/// server holds stays bounded (measured by the transport's own counters, not the process size).
@Suite("Transport backpressure over live sockets", .timeLimit(.minutes(2)))
struct TransportBackpressureTests {
    private static let block = 64 << 10
    private static let highWater = 256 << 10
    private static let inboxHighWater = 1 << 20

    private func start(clock: ManualClock = ManualClock()) throws -> HTTPServer {
        let configuration = HTTPServer.Configuration(
            maximumConnections: 8, idleTimeout: .seconds(60), requestTimeout: .seconds(10),
            uptime: { clock.now.offset })
        return try HTTPServer(configuration: configuration, handler: BackpressureTestHandler())
    }

    @Test func aStreamNobodyReadsSuspendsItsProducerWithTheQueueUnderTheHighWaterMark() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send("GET /produce HTTP/1.1\r\nHost: x\r\n\r\n")
        // The client reads nothing: once the kernel's buffers are full, the producer must wait.
        #expect(await ConditionWait.until { server.statistics.suspendedProducers == 1 })
        let peak = server.statistics.peakQueuedOutputBytes
        // At most one block (and its chunk framing) beyond the mark before the producer waits.
        #expect(peak <= Self.highWater + Self.block + 16, "peak \(peak)")
        client.disconnect()
        #expect(await ConditionWait.until { server.statistics.suspendedProducers == 0 })
        await server.shutdown()
    }

    @Test func aWebSocketSessionSendingToAClientThatDoesNotReadWaitsForRoom() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(Self.upgrade("/ws-produce"))
        #expect(await blocking { client.readResponse() }?.status == 101)
        #expect(await ConditionWait.until { server.statistics.suspendedProducers == 1 })
        let peak = server.statistics.peakQueuedOutputBytes
        #expect(peak <= Self.highWater + Self.block + 16, "peak \(peak)")
        client.disconnect()
        #expect(await ConditionWait.until { server.statistics.suspendedProducers == 0 })
        await server.shutdown()
    }

    @Test func aFloodToASessionThatDoesNotReadStopsReadingAndClosesWith1013TryAgainLater() async throws {
        let clock = ManualClock()
        let server = try start(clock: clock)
        let client = try RawClient(port: server.port)
        client.send(Self.upgrade("/ws-hold"))
        #expect(await blocking { client.readResponse() }?.status == 101)
        let message = WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 7, count: 4096))
            .encoded(maskingKey: [1, 2, 3, 4])
        // 2 MiB: twice the inbox bound; the send may block once the server stops reading and
        // fails once the client disconnects, which ends the sending thread. (The socket is
        // written from that thread and read from another: the kernel allows it, and the
        // client's buffer is used only by the reader.)
        let flood = [UInt8]((0..<512).lazy.flatMap { _ in message })
        let sending = Task { await blocking { client.send(flood) } }
        #expect(await ConditionWait.until { server.statistics.peakInboxWeight > Self.inboxHighWater })
        clock.advance(by: .seconds(10))
        server.checkDeadlines()
        let rest = await blocking { client.readToEnd() }
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 16)
        decoder.append(rest)
        let close = try decoder.nextFrame()
        #expect(close?.opcode == .close)
        let (code, reason) = try WebSocketCloseCode.parse(closePayload: close?.payload ?? [])
        #expect(code == 1013, "try again later: the server fell behind, the client broke no policy")
        #expect(reason == "server busy: messages from this connection waited too long")
        let weight = server.statistics.peakInboxWeight
        #expect(weight <= Self.inboxHighWater + 4096 + ServerWebSocket.messageOverhead, "peak inbox \(weight)")
        client.disconnect()
        await sending.value
        await server.shutdown()
    }

    private static func upgrade(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }
}

/// `/produce` streams 64 KiB blocks for as long as the client is there, waiting for room
/// before each; `/ws-produce` does the same with binary messages; `/ws-hold` never reads its
/// incoming messages.
private struct BackpressureTestHandler: HTTPHandler, HTTPRoute {
    func bodyLimit(for head: HTTPRequestHead) -> Int { 0 }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let block = [UInt8](repeating: 0x61, count: 64 << 10)
        let accept = WebSocketHandshake.acceptValue(for: request.headers["Sec-WebSocket-Key"] ?? "")
        switch request.path {
        case "/produce":
            return .eventStream { stream in
                while await stream.waitForRoom(), stream.write(block) {}
            }
        case "/ws-produce":
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: accept, maximumMessage: 1 << 16) { socket in
                    while await socket.waitForRoom(), socket.send(binary: block) {}
                })
        case "/ws-hold":
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: accept, maximumMessage: 1 << 16) { _ in
                    // Holds the connection without reading until the transport ends the session.
                    let (forever, continuation) = AsyncStream<Void>.makeStream()
                    for await _ in forever {}
                    continuation.finish()
                })
        default:
            return APIError.notFound("No route \(request.path).").response
        }
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        APIError(status: status, message: message).response
    }
}
