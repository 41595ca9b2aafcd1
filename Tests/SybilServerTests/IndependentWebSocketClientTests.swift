import Foundation
import SybilServer
import SybilTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The server's WebSocket side against an independent implementation: Python's `websockets`
/// library (installed by scripts/test). Skipped, saying why, when python3 or the library is
/// missing; the Swift client tests cover the same protocol.
@Suite(
    "Reference server against an independent WebSocket client",
    .enabled(
        if: websocketsPython != nil,
        "python3 with the websockets package is needed (scripts/test installs it with pip)"))
struct IndependentWebSocketClientTests {
    @Test func echoLimitsUTF8AndTheAgentStreamHoldForAnIndependentClient() async throws {
        var options = SybilServerOptions(token: "peer-token")
        options.pace = .zero
        options.debugEndpoints = true
        let server = try ReferenceServer(options: options)
        let submitted = await submitOverHTTP(server, requestId: "peer-1")
        #expect(submitted == 202)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Peers/websockets_client.py").path
        let python = try #require(websocketsPython)
        let (status, output) = await blocking {
            ChildProcess.run(python, [script, "ws://127.0.0.1:\(server.http.port)", "peer-token"])
        }
        #expect(status == 0, "\(output)")
        #expect(output == "ok\n")
        await server.shutdown()
    }
}

/// A python3 with the `websockets` package, looked up once.
let websocketsPython = PythonPeer.python3(importing: "websockets.asyncio.client")

/// Posts an Agent room message over HTTP (before a peer connects); returns the status.
func submitOverHTTP(_ server: ReferenceServer, requestId: String) async -> Int {
    let client = try? RawClient(port: server.http.port)
    let body = #"{"requestId": "\#(requestId)", "text": "hi", "createdAt": 1}"#
    client?.send(
        "POST /agent/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.options.token)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    return await blocking { client?.readResponse()?.status ?? 0 }
}
