#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilHTTP

    /// The client against a server that tries to make it hold everything: every byte between
    /// the socket and a consumer is bounded, reading pauses while the consumer is behind, and a
    /// refused stream is no longer read. Each peer floods at most `floodLimit` bytes, so a client
    /// that reads everything fails its test instead of running forever.
    @Suite("The client against a hostile server", .timeLimit(.minutes(2)))
    struct HostileServerTests {
        static let floodLimit = 64 << 20
        static let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 10)

        @Test func aConnectionWhoseBytesAreNotTakenStopsReadingAtItsInboxLimit() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\n\r\n")
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let connection = try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false)
            connection.write(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let paused = await ConditionWait.until { connection.isReadingPaused }
            #expect(paused, "the connection kept reading: \(connection.bufferedBytes) bytes held")
            #expect(connection.bufferedBytes >= SocketConnection.inboxLimit)
            #expect(connection.bufferedBytes <= SocketConnection.inboxLimit + SocketConnection.readSize)
            #expect(flood.sentEverything == nil, "the server could send everything: nothing slowed it")
            // Taking the bytes resumes reading, and every byte the server sent arrives.
            var received = 0
            while let chunk = try await connection.receive() {
                #expect(chunk.allSatisfy { $0 == UInt8(ascii: "x") || $0 == 0x0D || $0 == 0x0A || $0 < 0x80 })
                received += chunk.count
                #expect(connection.bufferedBytes <= SocketConnection.inboxLimit + SocketConnection.readSize)
            }
            #expect(flood.sentEverything == true)
            #expect(received == Self.floodLimit + "HTTP/1.1 200 OK\r\n\r\n".utf8.count)
        }

        @Test func piecesGatheredFromTheInboxKeepTheBodyWholeInOrderAndBounded() async throws {
            // 1 MiB in 1,000-byte writes: a consumer that falls behind gets the reads waiting in
            // the inbox as one piece. However the reads fall, the pieces are the body's bytes in
            // order, and none is larger than the gathering bound plus one read.
            let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n")
                var start = 0
                while start < body.count {
                    let end = min(start + 1000, body.count)
                    guard connection.write(Array(body[start..<end])) else { return }
                    start = end
                }
            }
            let response = try await SocketHTTPClient().send(HTTPRequest(url: server.url))
            var received: [UInt8] = []
            var largest = 0
            for try await piece in response.body {
                largest = max(largest, piece.count)
                received.append(contentsOf: piece)
            }
            #expect(received == body)
            #expect(largest <= SocketHTTPExchange.gatherLimit + SocketConnection.readSize)
        }

        @Test func aBodyReadOnlyInPartIsNotDownloadedFurther() async throws {
            // An answer that claims 2 GiB: the caller takes what it allows and drops the rest.
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n")
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let client = SocketHTTPClient(followRedirects: false)
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/agent/messages"))
            do {
                let response = try await client.send(HTTPRequest(url: url, timeout: .seconds(30)))
                let bytes = try await response.collect(limit: (1 << 20) + 1)
                #expect(bytes.count == (1 << 20) + 1)
            }
            // The response is gone: its connection closed, and the server's writes fail.
            let ended = await ConditionWait.until { flood.sentEverything != nil }
            #expect(ended)
            #expect(flood.sentEverything == false, "the client read all \(Self.floodLimit) bytes")
            #expect(flood.sent < Self.floodLimit / 2)
        }

        @Test func aRefusedWebSocketFrameStopsTheReading() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let server = try LoopbackHTTPServer { request, connection in
                WebSocketPeer.answer(request, on: connection)
                // A binary frame that claims 2 GiB, then the bytes keep coming.
                connection.write([0x82, 127, 0, 0, 0, 0, 0x80, 0, 0, 0])
                connection.flood(Self.block, limit: Self.floodLimit, into: flood)
            }
            let socket = try await SocketWebSocket.connect(
                to: server.webSocketURL, random: SeededRandomSource(seed: 3), clock: ManualClock())
            do {
                for try await _ in socket.incoming {}
                Issue.record("the oversized frame was accepted")
            } catch let WebSocketError.protocolViolation(violation) {
                #expect(violation.closeCode == WebSocketCloseCode.messageTooBig)
            }
            #expect(await ConditionWait.until { flood.sentEverything != nil })
            #expect(flood.sentEverything == false, "the client read all \(Self.floodLimit) bytes after refusing")
            #expect(flood.sent < Self.floodLimit / 2)
        }

        @Test func webSocketMessagesNobodyTakesStopTheReadingAtTheQueueLimit() async throws {
            let flood = LoopbackHTTPServer.Flood()
            let message = WebSocketFrame(opcode: .text, payload: [UInt8](repeating: 0x61, count: 16 << 10)).encoded(
                maskingKey: nil)
            let server = try LoopbackHTTPServer { request, connection in
                WebSocketPeer.answer(request, on: connection)
                connection.flood(message, limit: Self.floodLimit, into: flood)
            }
            let socket = try await SocketWebSocket.connect(
                to: server.webSocketURL, random: SeededRandomSource(seed: 4), clock: ManualClock())
            let paused = await ConditionWait.until { socket.isReadingPaused }
            #expect(paused, "the socket kept reading: \(socket.bufferedBytes) bytes held")
            let bound =
                SocketWebSocket<ManualClock>.incomingLimit + SocketConnection.inboxLimit + SocketConnection.readSize
            #expect(socket.bufferedBytes <= bound)
            #expect(flood.sentEverything == nil, "the server could send everything: nothing slowed it")
            // Taking messages lets the rest arrive, each whole.
            var taken = 0
            for try await incoming in socket.incoming {
                #expect(incoming == .text(String(repeating: "a", count: 16 << 10)))
                taken += 1
                if taken == 200 { break }
            }
            socket.close(code: WebSocketCloseCode.normal, reason: "")
        }
    }
#endif
