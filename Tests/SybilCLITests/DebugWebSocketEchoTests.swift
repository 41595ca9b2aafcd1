import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

@Suite("sybil debug ws-echo", .timeLimit(.minutes(2)))
struct DebugWebSocketEchoTests {
    /// What the server got back, in order.
    final class Echoes: Sendable {
        let frames = Locked<[WebSocketFrame]>([])
    }

    @Test func echoesTextAndBinaryUntilTheServerCloses() async throws {
        let echoes = Echoes()
        let server = try LoopbackHTTPServer { request, connection in
            let accept = WebSocketHandshake.acceptValue(for: request.header("Sec-WebSocket-Key") ?? "")
            connection.write(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
            )
            var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
            func next() -> WebSocketFrame? {
                while true {
                    if let frame = try? decoder.nextFrame() { return frame }
                    let bytes = connection.read()
                    if bytes.isEmpty { return nil }
                    decoder.append(bytes)
                }
            }
            connection.write(WebSocketFrame(opcode: .text, payload: Array("eins".utf8)).encoded(maskingKey: nil))
            connection.write(WebSocketFrame(opcode: .binary, payload: [1, 2, 3]).encoded(maskingKey: nil))
            for _ in 0..<2 { if let frame = next() { echoes.frames.withLock { $0.append(frame) } } }
            connection.write(
                WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: 1000, reason: "done")).encoded(
                    maskingKey: nil))
            _ = next()
        }
        let test = TestIO()
        #expect(await test.run("debug", "ws-echo", "ws://127.0.0.1:\(server.port)/debug/ws-echo") == 0)
        #expect(
            echoes.frames.withLock { $0 } == [
                WebSocketFrame(opcode: .text, payload: Array("eins".utf8)),
                WebSocketFrame(opcode: .binary, payload: [1, 2, 3]),
            ])
        #expect(test.stderr == "text 4 bytes\nbinary 3 bytes\nclosed 1000 done\n")
    }

    @Test func usageErrors() async {
        for (arguments, message) in [
            (["debug", "ws-echo"], "needs a ws: or wss: URL, got ''"),
            (["debug", "ws-echo", "http://h/x"], "needs a ws: or wss: URL, got 'http://h/x'"),
            (
                ["debug", "ws-echo", "--max-message", "0", "ws://h/"],
                "--max-message needs a whole number from 1 to 1073741824, got '0'"
            ),
        ] {
            let test = TestIO()
            #expect(await test.run(arguments) == 64)
            #expect(test.stderr == "sybil debug ws-echo: \(message)\nRun 'sybil debug ws-echo --help' for usage.\n")
        }
    }

    @Test func anUnreachableServerExits69() async throws {
        let port: UInt16
        do { port = try LoopbackHTTPServer { _, _ in }.port }
        let test = TestIO()
        #expect(await test.run("debug", "ws-echo", "ws://127.0.0.1:\(port)/") == 69)
        #expect(test.stderr.hasPrefix("sybil: cannot open ws://127.0.0.1:\(port)/: "))
    }
}
