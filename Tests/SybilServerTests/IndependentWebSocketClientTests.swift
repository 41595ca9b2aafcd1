import Foundation
import SybilServer
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
        if: PythonPeer.python3 != nil,
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
        let python = try #require(PythonPeer.python3)
        let (status, output) = await blocking { () -> (Int32, String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, "ws://127.0.0.1:\(server.http.port)", "peer-token"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            do { try process.run() } catch { return (-1, "\(error)") }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        #expect(status == 0, "\(output)")
        #expect(output == "ok\n")
        await server.shutdown()
    }
}

/// Finds a python3 that can import the `websockets` package.
enum PythonPeer {
    static let python3: String? = {
        let candidates = ["/root/.pyenv/shims/python3", "/usr/local/bin/python3", "/usr/bin/python3"]
        return candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: path)
            probe.arguments = ["-c", "import websockets.asyncio.client"]
            probe.standardError = FileHandle(forWritingAtPath: "/dev/null")
            guard (try? probe.run()) != nil else { return false }
            probe.waitUntilExit()
            return probe.terminationStatus == 0
        }
    }()
}

/// Posts an Agent room message over HTTP (before a peer connects); returns the status.
func submitOverHTTP(_ server: ReferenceServer, requestId: String) async -> Int {
    let client = try? RawClient(port: server.http.port)
    let body = #"{"requestId": "\#(requestId)", "text": "hi", "createdAt": 1}"#
    client?.send(
        "POST /agent/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.options.token)\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
    return await blocking { client?.readResponse()?.status ?? 0 }
}
