import Foundation
import SybilHTTP
import SybilServer
import SybilTesting
import Testing

/// The server judges a client's close frame by RFC 6455 §5.5.1 and §7.4 through the same codec
/// as the client (``WebSocketCloseCode/parse(closePayload:)``): a valid code is echoed, a
/// broken close frame is answered 1002 (1007 for a reason that is not UTF-8).
@Suite("Server WebSocket close validation over live sockets", .timeLimit(.minutes(2)))
struct WebSocketCloseValidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var payload: [UInt8]
        var answer: UInt16
        var testDescription: String { "\(name) → \(answer)" }

        static func code(_ code: UInt16, answer: UInt16) -> Case {
            Case(name: "code \(code)", payload: WebSocketCloseCode.payload(code: code, reason: "bye"), answer: answer)
        }
    }

    static let refused: [Case] =
        [
            Case(name: "a 1-byte payload", payload: [0x03], answer: 1002),
            Case(name: "a reason that is not UTF-8", payload: [0x03, 0xE8, 0xC3, 0x28], answer: 1007),
            Case(name: "a truncated UTF-8 reason", payload: [0x03, 0xE8, 0xE2, 0x82], answer: 1007),
        ]
        + ([0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16]).map {
            Case.code($0, answer: 1002)
        }

    static let echoed: [Case] =
        ([1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4503, 4999]
        as [UInt16]).map { Case.code($0, answer: $0) } + [Case(name: "an empty payload", payload: [], answer: 1000)]

    @Test("a broken close frame is answered with 1002 or 1007, not echoed", arguments: refused)
    func brokenCloseFramesAreRefused(_ example: Case) async throws {
        #expect(try await closeAnswer(to: example.payload) == example.answer)
    }

    @Test("a close frame with a code that may be sent is echoed", arguments: echoed)
    func validCloseCodesAreEchoed(_ example: Case) async throws {
        #expect(try await closeAnswer(to: example.payload) == example.answer)
    }

    /// Opens a WebSocket to the echo route over a raw socket, sends a masked close frame with
    /// `payload`, and returns the code of the server's close frame (nil if none arrived).
    private func closeAnswer(to payload: [UInt8]) async throws -> UInt16? {
        let clock = ManualClock()
        let configuration = HTTPServer.Configuration(
            maximumConnections: 8, idleTimeout: .seconds(60), requestTimeout: .seconds(10),
            uptime: { clock.now.offset })
        let server = try HTTPServer(configuration: configuration, handler: TransportTestHandler())
        let client = try RawClient(port: server.port)
        let received = await blocking {
            client.send(
                "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            guard client.readResponse()?.status == 101 else { return [UInt8]() }
            client.send(WebSocketFrame(opcode: .close, payload: payload).encoded(maskingKey: [0x11, 0x22, 0x33, 0x44]))
            return client.readToEnd()
        }
        await server.shutdown()
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 16)
        decoder.append(received)
        while let frame = try decoder.nextFrame() {
            guard frame.opcode == .close else { continue }
            guard frame.payload.count >= 2 else { return nil }
            return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
        }
        return nil
    }
}
