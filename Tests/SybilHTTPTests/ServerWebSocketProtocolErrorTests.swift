import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

/// A frame that breaks RFC 6455 over a real socket: the messages that came before it in the
/// same read are the session's to take and answer, so the echo of a valid message goes out
/// before the server's 1002 close, as Autobahn|Testsuite's cases 3.2 to 5.15 expect.
@Suite("Server WebSocket: a protocol error after valid messages", .timeLimit(.minutes(1)))
struct ServerWebSocketProtocolErrorTests {
    @Test func theMessageBeforeABadFrameIsEchoedBeforeThe1002Close() async throws {
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: EchoHandler())
        let client = try RawClient(port: server.port)
        client.send(
            "GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        let status = await blocking { client.readResponse()?.status }
        #expect(status == 101)
        // A valid text message and, in the same write, one with RSV2 set (Autobahn case 3.2).
        let valid = WebSocketFrame(opcode: .text, payload: Array("hello".utf8)).encoded(maskingKey: [1, 2, 3, 4])
        var bad = WebSocketFrame(opcode: .text, payload: Array("bad".utf8)).encoded(maskingKey: [5, 6, 7, 8])
        bad[0] |= 0x20
        client.send(valid + bad)
        let frames = await blocking { readFrames(client) }
        #expect(frames.first?.opcode == 0x1)
        #expect(frames.first.map { String(decoding: $0.payload, as: UTF8.self) } == "hello")
        #expect(frames.dropFirst().first?.opcode == 0x8)
        #expect(frames.dropFirst().first.map { Array($0.payload.prefix(2)) } == [0x03, 0xEA])
        #expect(frames.count == 2, "the echo, then the close, then nothing")
        await server.shutdown(grace: .zero)
    }
}

/// `/echo` upgrades and sends every message back as it came, as `/debug/ws-echo` does.
private struct EchoHandler: HTTPHandler, HTTPRoute {
    func bodyLimit(for head: HTTPRequestHead) -> Int { 0 }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let accept = try? WebSocketHandshake.accept(method: request.method, headers: request.headers) else {
            return HTTPServerResponse(status: 400, body: .bytes([]))
        }
        return HTTPServerResponse(
            status: 101,
            body: .webSocket(accept: accept, maximumMessage: 1 << 16) { socket in
                for await message in socket.incoming {
                    switch message {
                    case .text(let text): socket.send(text: text)
                    case .binary(let bytes): socket.send(binary: bytes)
                    case .closed: return
                    }
                }
            })
    }
}

/// The unmasked frames the server sends (payloads under 126 bytes) until it closes the
/// connection, up to and including its close frame.
private func readFrames(_ client: RawClient) -> [(opcode: UInt8, payload: [UInt8])] {
    var frames: [(opcode: UInt8, payload: [UInt8])] = []
    while let header = client.read(count: 2) {
        let length = Int(header[1] & 0x7F)
        guard length < 126, let payload = length == 0 ? [] : client.read(count: length) else { break }
        frames.append((header[0] & 0x0F, payload))
        if header[0] & 0x0F == 0x8 { break }
    }
    if !frames.isEmpty, !client.readToEnd().isEmpty { frames.append((0xFF, [])) }
    return frames
}
