import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import Testing

/// Clients a server must survive, over real sockets, measured by the bytes the transport
/// holds for them (``TransportStatistics``), not by the process's memory: token-less
/// uploads, uploads pipelined behind an open event stream, and a half-close behind
/// pipelined requests.
@Suite("HTTP server against hostile clients", .timeLimit(.minutes(2)))
struct HostileClientLiveTests {
    private static let token = "hostile-token"

    private func startReference() throws -> ReferenceServer {
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        return try ReferenceServer(options: options, time: ServerTime(clock: ManualClock()) { AppHarness.epochBase })
    }

    @Test func tokenLessUploadsAreRefusedAtTheirHeadWithoutBufferingTheirBodies() async throws {
        let server = try startReference()
        let length = (8 << 20) - 1
        let body = [UInt8](repeating: 0x61, count: length)
        let head =
            "POST /agent/uploads HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
            + "X-Upload-Id: u-1\r\nX-File-Name: a.bin\r\nContent-Length: \(length)\r\n\r\n"
        let statuses = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    await blocking {
                        guard let client = try? RawClient(port: server.http.port) else { return nil }
                        client.send(Array(head.utf8) + body)
                        return client.readResponse()?.status
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == [401, 401, 401, 401])
        // Each connection held at most what one read brings in; 8 MiB each before.
        #expect(server.http.statistics.peakBufferedRequestBytes <= 4 * (64 << 10))
        await server.shutdown()
    }

    @Test func aTokenLessExpectContinueGetsTheFinalAnswerInsteadOfContinue() async throws {
        let server = try startReference()
        let client = try RawClient(port: server.http.port)
        client.send(
            "POST /agent/uploads HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Length: 8000000\r\nExpect: 100-continue\r\n\r\n")
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 401)
        #expect(response?.headers["www-authenticate"] == "Bearer")
        #expect(response?.headers["connection"] == "close")
        // The health route needs no token.
        let health = try RawClient(port: server.http.port)
        health.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { health.readResponse() }?.status == 200)
        await server.shutdown()
    }

    @Test func fivePipelinedRequestsThenAHalfCloseGetFiveAnswersThenTheClose() async throws {
        let server = try startReference()
        let client = try RawClient(port: server.http.port)
        client.send(String(repeating: "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", count: 5))
        client.shutdownWrite()
        let statuses = await blocking { (0..<5).compactMap { _ in client.readResponse()?.status } }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func anUploadPipelinedBehindAnOpenStreamIsNotReadWhileTheStreamLives() async throws {
        let handler = TransportTestHandler(bodyLimitBytes: 16 << 20)
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        let upload = Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(8 << 20)\r\n\r\n".utf8)
        client.send("GET /stream?forever=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        // The upload is sent from a thread of its own: it blocks once the server stops reading.
        Thread { client.send(upload + [UInt8](repeating: 0x61, count: 8 << 20)) }.start()
        // Fifty events later the server has had every chance to read the upload.
        #expect(await blocking { client.read(until: "data: event 50\n\n") } != nil)
        #expect(server.statistics.peakBufferedRequestBytes <= 2 * (64 << 10))
        client.disconnect()
        #expect(await eventually { handler.endedStreams == 1 })
        await server.shutdown()
    }
}
