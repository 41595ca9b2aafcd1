#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilHTTP

    /// Keep-alive in the socket client: a connection is reused only after a response read to
    /// its framed end, and a request is sent twice only when it cannot have reached the server.
    @Suite("Socket HTTP client keep-alive", .timeLimit(.minutes(2)))
    struct SocketKeepAliveTests {
        private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

        private func request(_ server: LoopbackHTTPServer, _ path: String, method: String = "GET") -> HTTPRequest {
            HTTPRequest(
                method: method, url: APIEndpoint.url(base: server.url, path: path), headers: HTTPHeaders(),
                body: method == "POST" ? Array("{}".utf8) : nil, timeout: .seconds(10))
        }

        @Test func sequentialRequestsToOneServerShareOneConnection() async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { request, connection in
                if request.requestLine.hasPrefix("GET /chunked ") {
                    connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
                } else {
                    connection.write(Self.ok)
                }
            }
            let client = SocketHTTPClient()
            for path in ["a", "chunked", "b"] {
                let response = try await client.send(request(server, path))
                #expect(try await response.collect() == Array("ok".utf8))
            }
            let post = try await client.send(request(server, "c", method: "POST"))
            #expect(try await post.collect() == Array("ok".utf8))
            #expect(server.acceptedConnections == 1)
            #expect(server.received.count == 4)
            #expect(server.received.allSatisfy { $0.header("Connection") == nil })
        }

        @Test func aResponseWithoutBodyFreesItsConnectionUnread() async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, connection in
                connection.write("HTTP/1.1 204 No Content\r\n\r\n")
            }
            let client = SocketHTTPClient()
            _ = try await client.send(request(server, "a"))
            _ = try await client.send(request(server, "b"))
            #expect(server.acceptedConnections == 1)
        }

        @Test func aDroppedBodyClosesItsConnection() async throws {
            // The server keeps the first connection open; a client that reused it would send
            // its second request there and the server would never accept another.
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { request, connection in
                if request.requestLine.hasPrefix("GET /big ") {
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + String(repeating: "x", count: 10))
                } else {
                    connection.write(Self.ok)
                }
            }
            let client = SocketHTTPClient()
            do {
                let big = try await client.send(request(server, "big"))
                var iterator = big.body.makeAsyncIterator()
                #expect(try await iterator.next() != nil)
            }
            let small = try await client.send(request(server, "small"))
            #expect(try await small.collect() == Array("ok".utf8))
            #expect(server.acceptedConnections == 2)
        }

        @Test(arguments: [
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
            "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
            // RFC 9112 §6.3: both framing fields; read by the codings, then the connection closes.
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        ])
        func aResponseThatDoesNotAllowReuseClosesItsConnection(answer: String) async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, connection in
                connection.write(answer)
            }
            let client = SocketHTTPClient()
            for path in ["a", "b"] {
                #expect(try await client.send(request(server, path)).collect() == Array("ok".utf8))
            }
            #expect(server.acceptedConnections == 2)
        }

        @Test func aBodyReadToTheConnectionsEndIsNotReused() async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { request, connection in
                if request.requestLine.hasPrefix("GET /a ") {
                    connection.write("HTTP/1.1 200 OK\r\n\r\nok")
                    connection.closeAfterResponse()
                } else {
                    connection.write(Self.ok)
                }
            }
            let client = SocketHTTPClient()
            #expect(try await client.send(request(server, "a")).collect() == Array("ok".utf8))
            #expect(try await client.send(request(server, "b")).collect() == Array("ok".utf8))
            #expect(server.acceptedConnections == 2)
        }

        /// The server closes the kept connection as the next request arrives, without an answer.
        private func closingSecondRequest() throws -> LoopbackHTTPServer {
            let count = Locked(0)
            return try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, connection in
                let index = count.withLock { count -> Int in
                    defer { count += 1 }
                    return count
                }
                if index == 1 {
                    connection.closeAfterResponse()
                } else {
                    connection.write(Self.ok)
                }
            }
        }

        @Test func aGetOnAConnectionTheServerClosedIsSentOnceMoreOnANewOne() async throws {
            let server = try closingSecondRequest()
            let client = SocketHTTPClient()
            #expect(try await client.send(request(server, "a")).collect() == Array("ok".utf8))
            #expect(try await client.send(request(server, "b")).collect() == Array("ok".utf8))
            #expect(server.received.map(\.requestLine) == ["GET /a HTTP/1.1", "GET /b HTTP/1.1", "GET /b HTTP/1.1"])
            #expect(server.acceptedConnections == 2)
        }

        @Test func aPostThatMayHaveReachedTheServerIsNeverSentTwice() async throws {
            let server = try closingSecondRequest()
            let client = SocketHTTPClient()
            #expect(try await client.send(request(server, "a")).collect() == Array("ok".utf8))
            await #expect(throws: (any Error).self) {
                try await client.send(request(server, "submit", method: "POST"))
            }
            #expect(server.received.map(\.requestLine) == ["GET /a HTTP/1.1", "POST /submit HTTP/1.1"])
            #expect(server.acceptedConnections == 1)
        }

        @Test func anIdleConnectionIsReusedUpToItsLifetimeOnly() async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, connection in
                connection.write(Self.ok)
            }
            let clock = ManualClock()
            let client = SocketHTTPClient(idleClock: clock)
            _ = try await client.send(request(server, "a")).collect()
            clock.advance(by: SocketConnectionPool.idleLifetime - .milliseconds(1))
            _ = try await client.send(request(server, "b")).collect()
            #expect(server.acceptedConnections == 1)
            clock.advance(by: SocketConnectionPool.idleLifetime)
            _ = try await client.send(request(server, "c")).collect()
            #expect(server.acceptedConnections == 2)
        }

        @Test func aPoolKeepsAtMostItsLimitOfIdleConnectionsPerOrigin() async throws {
            // The listener's backlog completes the connections; nothing needs to answer them.
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, _ in }
            let pool = SocketConnectionPool(clock: ManualClock())
            let origin = SocketConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: Int(server.port))
            var connections: [SocketConnection] = []
            for _ in 0...SocketConnectionPool.maximumIdlePerOrigin {
                connections.append(
                    try await SocketConnection.connect(host: "127.0.0.1", port: Int(server.port), tls: false))
            }
            for connection in connections.dropLast() { pool.release(connection, to: origin) }
            #expect(pool.idleCount(origin) == SocketConnectionPool.maximumIdlePerOrigin)
            pool.release(connections[SocketConnectionPool.maximumIdlePerOrigin], to: origin)
            #expect(pool.idleCount(origin) == SocketConnectionPool.maximumIdlePerOrigin)
            #expect(!connections[0].isIdleAndOpen, "the longest idle was closed")
            #expect(pool.take(origin) === connections[SocketConnectionPool.maximumIdlePerOrigin])
            for connection in connections { connection.shutdown() }
        }
    }
#endif
