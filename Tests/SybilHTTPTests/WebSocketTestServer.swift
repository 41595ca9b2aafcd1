import Foundation
import SybilHTTP
import SybilTesting

/// A WebSocket server side for client tests, on top of the loopback HTTP server: it answers
/// the handshake (or a broken one), then runs the test's script with helpers to read the
/// client's (masked) frames and to write raw frames.
struct WebSocketPeer {
    let connection: LoopbackHTTPServer.Connection
    private var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 24)

    init(connection: LoopbackHTTPServer.Connection) {
        self.connection = connection
    }

    /// The next frame from the client, or `nil` when it closed the TCP connection.
    mutating func readFrame() -> WebSocketFrame? {
        while true {
            if let frame = try? decoder.nextFrame() { return frame }
            let bytes = connection.read()
            if bytes.isEmpty { return nil }
            decoder.append(bytes)
        }
    }

    /// Sends a frame (unmasked, as a server must).
    func send(_ frame: WebSocketFrame) {
        connection.write(frame.encoded(maskingKey: nil))
    }

    /// Tells the client which pong it got (`pong:PAYLOAD`, or `pong:none`) as a text message,
    /// then closes with 1000 and reads the client's close.
    mutating func reportPongAndClose(_ pong: WebSocketFrame?) {
        let said = pong.map { String(decoding: $0.payload, as: UTF8.self) } ?? "none"
        send(WebSocketFrame(opcode: .text, payload: Array("pong:\(said)".utf8)))
        send(WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: 1000, reason: "")))
        _ = readFrame()
    }

    /// Sends raw bytes.
    func sendRaw(_ bytes: [UInt8]) {
        connection.write(bytes)
    }

    /// Answers the handshake of `request`; `accept` overrides the Sec-WebSocket-Accept value.
    static func answer(
        _ request: LoopbackHTTPServer.Request, on connection: LoopbackHTTPServer.Connection, accept: String? = nil
    ) {
        let key = request.header("Sec-WebSocket-Key") ?? ""
        let value = accept ?? WebSocketHandshake.acceptValue(for: key)
        connection.write(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(value)\r\n\r\n"
        )
    }

    /// A server that answers the handshake and then runs `script`.
    static func server(_ script: @escaping @Sendable (inout WebSocketPeer, LoopbackHTTPServer.Request) -> Void) throws
        -> LoopbackHTTPServer
    {
        try LoopbackHTTPServer { request, connection in
            answer(request, on: connection)
            var peer = WebSocketPeer(connection: connection)
            script(&peer, request)
        }
    }
}

extension LoopbackHTTPServer {
    var webSocketURL: URL { URL(string: "ws://127.0.0.1:\(port)/agent/stream?after=c-1")! }
}
