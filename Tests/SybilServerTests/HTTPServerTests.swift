import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

@Suite("HTTP server over live sockets", .timeLimit(.minutes(2)))
struct HTTPServerTests {
    private func start(
        _ handler: TransportTestHandler = TransportTestHandler(), clock: ManualClock = ManualClock(),
        maximumConnections: Int = 64
    ) throws -> HTTPServer {
        let configuration = HTTPServer.Configuration(
            maximumConnections: maximumConnections, idleTimeout: .seconds(60), requestTimeout: .seconds(10),
            uptime: { clock.now.offset })
        return try HTTPServer(configuration: configuration, handler: handler)
    }

    @Test func pipelinedRequestsAreAnsweredInOrderOnOneConnection() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nfirstGET /echo HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nthird")
        let responses = await blocking { (0..<3).compactMap { _ in client.readResponse() } }
        #expect(responses.map(\.status) == [200, 200, 200])
        #expect(responses.map { String(decoding: $0.body, as: UTF8.self) } == ["first", "", "third"])
        #expect(responses.map { $0.headers["x-method"] } == ["POST", "GET", "POST"])
        await server.shutdown()
    }

    @Test func chunkedRequestBodyIsReassembled() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n0\r\n\r\n")
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 200)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "Wikipedia")
        await server.shutdown()
    }

    @Test func headOver16KiBIsRefusedWith431AndTheConnectionCloses() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 17_000))\r\n\r\n")
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 431)
        #expect(response?.headers["connection"] == "close")
        let error = try APIErrorBody.decode(JSONReader().parse(response?.body ?? []), at: .root)
        #expect(error.code == "headers_too_large")
        #expect(error.message == "The request head is larger than 16384 bytes.")
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func bodyOverTheRouteLimitIsRefusedWith413BeforeItIsRead() async throws {
        let server = try start(TransportTestHandler(bodyLimitBytes: 1024))
        let atLimit = try RawClient(port: server.port)
        atLimit.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1024\r\n\r\n" + String(repeating: "b", count: 1024))
        #expect(await blocking { atLimit.readResponse() }?.status == 200)
        let over = try RawClient(port: server.port)
        over.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\n\r\n" + String(repeating: "b", count: 1025))
        let response = await blocking { over.readResponse() }
        #expect(response?.status == 413)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self).contains("1024 bytes") } == true)
        await server.shutdown()
    }

    @Test func aClientTricklingItsRequestIsCutOffWith408() async throws {
        let clock = ManualClock()
        let server = try start(clock: clock)
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n")
        // Another, complete request on a second connection still works meanwhile.
        let other = try RawClient(port: server.port)
        other.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { other.readResponse() }?.status == 200)
        clock.advance(by: .seconds(9))
        client.send("X-Slow: 1\r\n")
        clock.advance(by: .milliseconds(1_001))
        server.checkDeadlines()
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 408)
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func idleKeptAliveConnectionsCloseAfterTheIdleTimeout() async throws {
        let clock = ManualClock()
        let server = try start(clock: clock)
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.readResponse() }?.status == 200)
        clock.advance(by: .seconds(61))
        server.checkDeadlines()
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func connectionsBeyondTheLimitGet503WithRetryAfter() async throws {
        let handler = TransportTestHandler()
        let server = try start(handler, maximumConnections: 2)
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        first.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        second.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { first.readResponse() }?.status == 200)
        #expect(await blocking { second.readResponse() }?.status == 200)
        let third = try RawClient(port: server.port)
        third.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let refused = await blocking { third.readResponse() }
        #expect(refused?.status == 503)
        #expect(refused?.headers["retry-after"] == "1")
        await server.shutdown()
    }

    @Test func streamedResponseIsChunkedAndTheConnectionIsReusedAfterIt() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send("GET /stream?count=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let stream = await blocking { client.readResponse() }
        #expect(stream?.headers["content-type"] == "text/event-stream")
        #expect(
            stream.map { String(decoding: $0.body, as: UTF8.self) }
                == ": keep-alive\n\ndata: event 0\n\ndata: event 1\n\n")
        #expect(await blocking { client.readResponse() }?.status == 200)
        await server.shutdown()
    }

    @Test func aClientLeavingAStreamEndsItsProducer() async throws {
        let handler = TransportTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        client.send("GET /stream?forever=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.read(until: "data: event 3\n\n") } != nil)
        client.disconnect()
        #expect(await eventually { handler.endedStreams == 1 })
        await server.shutdown()
    }

    @Test func aClientThatStopsReadingIsCutOffOnceItsBacklogPasses16MiB() async throws {
        let handler = TransportTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        client.send("GET /flood HTTP/1.1\r\nHost: x\r\n\r\n")
        // The client reads nothing; the server must drop it rather than buffer without end.
        #expect(await eventually { handler.endedStreams == 1 })
        let received = await blocking { client.readToEnd() }
        #expect(received.count < 64 << 20)
        await server.shutdown()
    }

    @Test func webSocketUpgradeEchoesThroughTheSharedCodec() async throws {
        let server = try start()
        let url = URL(string: "ws://127.0.0.1:\(server.port)/ws")!
        let socket = try await SocketWebSocket.connect(
            to: url, options: WebSocketOptions(), random: SeededRandomSource(seed: 1), clock: ManualClock())
        try socket.send(text: "Grüße")
        try socket.send(binary: [0, 255])
        socket.close(code: 1000, reason: "bye")
        var received: [WebSocketIncoming] = []
        for try await message in socket.incoming { received.append(message) }
        #expect(received == [.text("Grüße"), .binary([0, 255]), .closed(code: 1000, reason: "")])
        await server.shutdown()
    }

    @Test func shutdownFinishesTheResponseInFlightAndRefusesNewConnections() async throws {
        let handler = TransportTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        client.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await eventually { handler.heldCount == 1 })
        let idle = try RawClient(port: server.port)
        async let stopped: Void = server.shutdown(grace: .seconds(30))
        #expect(await blocking { idle.readToEnd() }.isEmpty)
        handler.release()
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 200)
        #expect(response?.headers["connection"] == "close")
        await stopped
        #expect(throws: (any Error).self) { try RawClient(port: server.port) }
    }

    @Test func expectContinueIsAnsweredBeforeTheBodyIsSent() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = await blocking { client.readResponse() }
        #expect(interim?.status == 100)
        client.send("body")
        let response = await blocking { client.readResponse() }
        #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "body")
        await server.shutdown()
    }

    @Test func headAnswersTheHeadWithoutTheBody() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(
            "HEAD /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                + "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = await blocking { client.read(until: "\r\n\r\n") }
        #expect(head?.contains("Content-Length: 3") == true)
        // The next bytes are the second response, not a body for the HEAD.
        let next = await blocking { client.readResponse() }
        #expect(next?.status == 200)
        #expect(next?.headers["x-method"] == "GET")
        await server.shutdown()
    }

    @Test func shutdownEndsOpenStreamsWithTheirLastChunk() async throws {
        let handler = TransportTestHandler()
        let server = try start(handler)
        let client = try RawClient(port: server.port)
        client.send("GET /stream?forever=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.read(until: "data: event 1\n\n") } != nil)
        await server.shutdown(grace: .seconds(30))
        let rest = String(decoding: await blocking { client.readToEnd() }, as: UTF8.self)
        #expect(rest.hasSuffix("0\r\n\r\n"))
        #expect(handler.endedStreams == 1)
    }

    @Test func aMalformedRequestPipelinedAfterAValidOneIsRefusedAfterTheValidOneIsAnswered() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nfirst"
                + "GET /echo HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n")
        let responses = await blocking { (0..<2).compactMap { _ in client.readResponse() } }
        #expect(responses.map(\.status) == [200, 400])
        #expect(responses.first.map { String(decoding: $0.body, as: UTF8.self) } == "first")
        #expect(responses.last?.headers["connection"] == "close")
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func everyConnectionBeyondTheLimitAndItsMarginGets503() async throws {
        let server = try start(maximumConnections: 1)
        let first = try RawClient(port: server.port)
        first.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { first.readResponse() }?.status == 200)
        // More refused connections at once than the old silent-close margin of 64.
        var refused: [RawClient] = []
        for _ in 0..<80 { refused.append(try RawClient(port: server.port)) }
        let clients = refused
        let answers = await blocking {
            clients.map { client in
                client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
                return client.readResponse()
            }
        }
        #expect(answers.map { $0?.status } == Array(repeating: 503, count: 80))
        #expect(answers.allSatisfy { $0?.headers["retry-after"] == "1" })
        refused.removeAll()
        await server.shutdown()
    }

    @Test func headOnAnEventStreamSendsTheHeadAndNoBody() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send("HEAD /stream?count=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = await blocking { client.read(until: "\r\n\r\n") }
        #expect(head?.contains("Content-Type: text/event-stream") == true)
        // The next bytes start the second response, not a chunked body for the HEAD.
        let next = await blocking { client.read(count: 9) }
        #expect(next.map { String(decoding: $0, as: UTF8.self) } == "HTTP/1.1 ")
        await server.shutdown()
    }

    @Test func headWithUpgradeFieldsNeverSwitchesProtocols() async throws {
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(
            "HEAD /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
                + "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = await blocking { client.read(until: "\r\n\r\n") }
        #expect(head?.hasPrefix("HTTP/1.1 400 ") == true, "\(head ?? "nothing")")
        #expect(head?.contains("Upgrade: websocket") == false)
        // Still HTTP, and no body for the HEAD: the next bytes answer the GET.
        let next = await blocking { client.readResponse() }
        #expect(next?.headers["x-method"] == "GET")
        await server.shutdown()
    }

    @Test(
        "a bare-LF head or a TLS handshake is answered 400 at once, not 408 after the request timeout",
        arguments: [
            Array("GET /echo HTTP/1.1\nHost: x\n\n".utf8),
            [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + [UInt8](repeating: 7, count: 40),
        ])
    func hopelessHeadsAreRefusedAtOnce(bytes: [UInt8]) async throws {
        // The clock never moves: only an answer that does not wait for the timeout arrives.
        let server = try start()
        let client = try RawClient(port: server.port)
        client.send(bytes)
        let response = await blocking { client.readResponse() }
        #expect(response?.status == 400)
        #expect(response?.headers["connection"] == "close")
        #expect(await blocking { client.readToEnd() }.isEmpty)
        await server.shutdown()
    }

    @Test func randomBytesFromManyClientsNeverStopTheServer() async throws {
        var options = SybilServerOptions(token: "t")
        options.pace = .zero
        let server = try ReferenceServer(options: options)
        let random = SeededRandomSource(seed: 2024)
        let prefixes = [
            "", "GET / HTTP/1.1\r\n", "POST /v1/workspaces/rpc HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n",
            "POST /agent/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 40\r\n\r\n",
            "GET /agent/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        ]
        var clients: [RawClient] = []
        for index in 0..<100 {
            let client = try RawClient(port: server.http.port, receiveTimeout: 2)
            let noise = (0..<Int(random.next(below: 600))).map { _ in UInt8(truncatingIfNeeded: random.nextUInt64()) }
            client.send(Array(prefixes[index % prefixes.count].utf8) + noise)
            if index % 3 == 0 { client.shutdownWrite() }
            clients.append(client)
        }
        let probe = try RawClient(port: server.http.port)
        probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { probe.readResponse() }?.status == 200)
        clients.removeAll()
        await server.shutdown()
    }
}
