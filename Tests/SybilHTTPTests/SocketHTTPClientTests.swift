#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import Glibc
    import SybilHTTP
    import SybilTesting
    import Synchronization
    import Testing

    @Suite("Socket HTTP client", .timeLimit(.minutes(2)))
    struct SocketHTTPClientTests {
        private func request(_ server: LoopbackHTTPServer, _ path: String, method: String = "GET") -> HTTPRequest {
            var headers = HTTPHeaders()
            headers.set("Authorization", "Bearer secret")
            return HTTPRequest(
                method: method, url: APIEndpoint.url(base: server.url, path: path), headers: headers,
                body: method == "POST" ? Array("{}".utf8) : nil, timeout: .seconds(10))
        }

        /// A 101 to a request that did not ask to upgrade fails it at once, naming the fault: the
        /// connection speaks another protocol now (it was skipped like a 100 and the final head
        /// waited for until the timeout).
        @Test func aSwitchingProtocolsNobodyAskedForFailsTheRequest() async throws {
            let server = try LoopbackHTTPServer(keepsConnectionsOpen: true) { _, connection in
                connection.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n")
            }
            await #expect(
                throws: HTTPTransportError(
                    "the server's response is malformed: "
                        + "the server switched protocols (101) though the request did not ask to upgrade")
            ) { _ = try await SocketHTTPClient().send(request(server, "a")) }
        }

        @Test func aSameOriginRedirectKeepsTheCredentials() async throws {
            let server = try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /old ") {
                    connection.write("HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n")
                } else {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nnew")
                }
            }
            let response = try await SocketHTTPClient().send(request(server, "old"))
            #expect(response.head.status == 200)
            #expect(try await response.collect() == Array("new".utf8))
            #expect(server.received.map(\.requestLine) == ["GET /old HTTP/1.1", "GET /new HTTP/1.1"])
            #expect(server.received.last?.header("Authorization") == "Bearer secret")
        }

        @Test func aRedirectToAnotherOriginDropsTheCredentials() async throws {
            let other = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
            let target = other.url.absoluteString
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(
                    "HTTP/1.1 307 Temporary Redirect\r\nLocation: \(target)/x\r\nContent-Length: 0\r\n\r\n")
            }
            var first = request(server, "old")
            first.headers.set("Cookie", "session=1")
            first.headers.set("X-Kept", "yes")
            let response = try await SocketHTTPClient().send(first)
            #expect(response.head.status == 200)
            let arrived = try #require(other.received.first)
            #expect(arrived.header("Authorization") == nil, "the token never travels to another origin")
            #expect(arrived.header("Cookie") == nil)
            #expect(arrived.header("X-Kept") == "yes")
        }

        @Test func a303TurnsAPostIntoAGetWithoutBody() async throws {
            let server = try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("POST ") {
                    connection.write("HTTP/1.1 303 See Other\r\nLocation: /result\r\nContent-Length: 0\r\n\r\n")
                } else {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                }
            }
            _ = try await SocketHTTPClient().send(request(server, "submit", method: "POST"))
            #expect(server.received.map(\.requestLine) == ["POST /submit HTTP/1.1", "GET /result HTTP/1.1"])
            #expect(server.received.last?.body == [])
        }

        @Test func redirectsStopAtTheLimitAndWhenNotFollowed() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n")
            }
            let looped = try await SocketHTTPClient().send(request(server, "start"))
            #expect(looped.head.status == 302, "the last redirect is the answer")
            #expect(server.received.count == SocketHTTPClient.maximumRedirects + 1)
            let direct = try await SocketHTTPClient(followRedirects: false).send(request(server, "start"))
            #expect(direct.head.status == 302)
            #expect(server.received.count == SocketHTTPClient.maximumRedirects + 2)
        }

        @Test func aRedirectFromHTTPSToHTTPIsNotFollowed() throws {
            let from = HTTPRequest(url: URL(string: "https://example.com/a")!)
            let head = HTTPResponseHead(status: 302, headers: HTTPHeaders([("Location", "http://example.com/b")]))
            #expect(SocketHTTPClient.redirect(from: from, head: head) == nil)
            let secure = HTTPResponseHead(status: 302, headers: HTTPHeaders([("Location", "https://example.com/b")]))
            #expect(SocketHTTPClient.redirect(from: from, head: secure)?.url.absoluteString == "https://example.com/b")
        }

        @Test func aHeaderThatWouldInjectALineIsRefusedBeforeConnecting() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            }
            var injected = request(server, "x")
            injected.headers.set("X-Note", "a\r\nAuthorization: Bearer other")
            await #expect(throws: HTTPTransportError.self) { try await SocketHTTPClient().send(injected) }
            #expect(server.received.isEmpty)
        }

        /// The head is written byte for byte as HTTP/1.1 asks: the caller's fields in order, its
        /// framing fields (in any case) replaced by the client's own, a default `User-Agent` only
        /// when the caller has none, and `Content-Length` for every body (0 for a bodiless POST).
        @Test func theHeadCarriesTheCallersFieldsAndTheClientsOwnFraming() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 204 No Content\r\n\r\n")
            }
            var headers = HTTPHeaders()
            headers.append("X-First", "1")
            headers.append("content-LENGTH", "99")
            headers.append("HOST", "elsewhere.example")
            headers.append("connection", "close")
            headers.append("Transfer-encoding", "chunked")
            headers.append("X-Last", "two words")
            let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/a%20b/c?q=1&r=%C3%A9"))
            _ = try await SocketHTTPClient().send(
                HTTPRequest(method: "POST", url: url, headers: headers, body: Array("{}".utf8), timeout: .seconds(10)))
            #expect(
                server.received.map(\.head) == [
                    "POST /a%20b/c?q=1&r=%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-First: 1\r\n"
                        + "X-Last: two words\r\nUser-Agent: Sybil\r\nContent-Length: 2"
                ])
            #expect(server.received.map(\.body) == [Array("{}".utf8)])

            var own = HTTPHeaders()
            own.append("user-agent", "Tool/1")
            _ = try await SocketHTTPClient().send(
                HTTPRequest(method: "POST", url: url, headers: own, body: nil, timeout: .seconds(10)))
            #expect(
                server.received.last?.head
                    == "POST /a%20b/c?q=1&r=%C3%A9 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                    + "user-agent: Tool/1\r\nContent-Length: 0")
        }

        /// A method or a field name that is not a token is refused before anything is sent,
        /// naming it.
        @Test func aMethodOrFieldNameThatIsNotATokenIsRefusedBeforeConnecting() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            }
            var badMethod = request(server, "x")
            badMethod.method = "GE T"
            await #expect(throws: HTTPTransportError("the method \"GE T\" is not a token")) {
                try await SocketHTTPClient().send(badMethod)
            }
            var badName = request(server, "x")
            badName.headers.append("X:Y", "1")
            await #expect(throws: HTTPTransportError("the header name \"X:Y\" is not a token")) {
                try await SocketHTTPClient().send(badName)
            }
            #expect(server.received.isEmpty)
        }

        @Test func noHeadWithinTheTimeoutIsATimeout() async throws {
            let release = DispatchSemaphore(value: 0)
            let server = try LoopbackHTTPServer { _, _ in release.wait() }
            defer { release.signal() }
            var silent = request(server, "slow")
            silent.timeout = .milliseconds(300)
            await #expect(throws: HTTPTimeout(after: .milliseconds(300))) {
                try await SocketHTTPClient().send(silent)
            }
        }

        /// A connect that never completed sent nothing: it is ``HTTPRequestNotSent``, as a
        /// refused one is, never the ``HTTPTimeout`` of a request that may have been sent.
        @Test func noConnectionWithinTheConnectTimeoutIsNotSent() async throws {
            let full = try FullBacklogPort()
            let post = HTTPRequest(
                method: "POST", url: APIEndpoint.url(base: full.url, path: "v1/chat/completions"),
                body: Array("{}".utf8), timeout: .seconds(60))
            await #expect {
                try await SocketHTTPClient(connectTimeout: .milliseconds(50)).send(post)
            } throws: { error in
                (error as? HTTPRequestNotSent)?.description == "cannot connect to \(full.host):\(full.port):"
                    + " no connection within 0.05 seconds"
            }
            withExtendedLifetime(full) {}
        }

        @Test func theRequestTimeoutBoundsConnectingWhenItIsShorter() async throws {
            let full = try FullBacklogPort()
            let get = HTTPRequest(url: APIEndpoint.url(base: full.url, path: "v1/models"), timeout: .milliseconds(50))
            await #expect(throws: HTTPRequestNotSent.self) { try await SocketHTTPClient().send(get) }
            withExtendedLifetime(full) {}
        }

        @Test func aMalformedResponseNamesWhatIsWrong() async throws {
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 12345678901234567890\r\n\r\n")
            }
            await #expect {
                try await SocketHTTPClient().send(request(server, "x"))
            } throws: { error in
                String(describing: error).contains("Content-Length")
            }
        }

        @Test func cancellingTheBodyClosesTheConnection() async throws {
            let closed = DispatchSemaphore(value: 0)
            let server = try LoopbackHTTPServer { _, connection in
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: a\n\n")
                while !connection.read().isEmpty {}  // until the client closes
                closed.signal()
            }
            let response = try await SocketHTTPClient().send(request(server, "events"))
            let reader = Task {
                var received = 0
                for try await chunk in response.body { received += chunk.count }
                return received
            }
            reader.cancel()
            _ = try? await reader.value
            let sawClose = await Task.detached { closed.wait(timeout: .now() + 30) == .success }.value
            #expect(sawClose, "the server saw the connection close")
        }
    }
#endif
