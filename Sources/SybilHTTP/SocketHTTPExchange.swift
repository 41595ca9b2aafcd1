#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore

    /// One request and its response on a connection (``SocketHTTPClient``), new or kept idle
    /// by the client's ``SocketConnectionPool``: the request written at once, the response read and parsed only as its consumer asks for it
    /// (the head by ``response()``, then the body chunk by chunk), so a server that sends faster
    /// than its answer is used is slowed by TCP: between the socket and the consumer at most the
    /// connection's bounded inbox and one read's events are held. A watchdog ends the exchange
    /// when the server stays silent for the request's timeout while the consumer waits. The
    /// connection goes back to the pool when an HTTP/1.1 response without `Connection: close`
    /// was received to its framed end (Content-Length, chunked, or no body) and its head did not
    /// carry both Transfer-Encoding and Content-Length (RFC 9112 §6.3); it is closed when
    /// the response fails, times out, ends with the connection, or its consumer goes away before
    /// its end (cancelled, or the body dropped).
    final class SocketHTTPExchange: Sendable {
        private let connection: SocketConnection
        private let timeout: Duration
        private let state: Locked<State>
        private let pool: SocketConnectionPool
        private let origin: SocketConnectionPool.Origin
        /// The connection carried an earlier response.
        let reusedConnection: Bool
        /// The connection's ``SocketConnection/sentBytes`` before this request was queued.
        private let sentBefore: Int

        private struct State {
            var parser: HTTPResponseParser
            /// Parsed events not yet handed on, from `nextEvent`.
            var events: [HTTPResponseParser.Event] = []
            var nextEvent = 0
            /// The parse error found after `events`: handed on once they are.
            var parseError: HTTPResponseParser.ParseError?
            /// Since when a consumer waits for the server; `nil` while nobody waits.
            var waitingSince: ContinuousClock.Instant?
            var finished = false
            /// Why the exchange was ended early (a timeout, a cancellation).
            var failure: (any Error)?
            var watchdog: Task<Void, Never>?
            /// A byte of the response arrived.
            var receivedAny = false
            /// The response began `HTTP/1.1 ` (an older server closes after each response).
            var isHTTP11 = false
            /// The parser found the response's end in its framing, not at the connection's end.
            var completeByFraming = false
            /// The connection ended (closed or failed) before any byte of the response.
            var endedBeforeResponse = false
            /// The response's head says `Connection: close`.
            var closeAsked = false
            /// The array the last gathered reads were handed on in: refilled in place once its
            /// consumer let it go (see ``gathered(after:)``).
            var gathered: [UInt8] = []
        }

        /// The most received bytes one piece of the body gathers from reads that were already
        /// waiting in the connection's inbox (it ends with the read that reaches this).
        static let gatherLimit = 256 << 10

        private init(
            connection: SocketConnection, timeout: Duration, requestWasHead: Bool, pool: SocketConnectionPool,
            origin: SocketConnectionPool.Origin, reused: Bool
        ) {
            self.connection = connection
            self.timeout = timeout
            self.pool = pool
            self.origin = origin
            reusedConnection = reused
            sentBefore = connection.sentBytes
            state = Locked(State(parser: HTTPResponseParser(requestWasHead: requestWasHead)))
        }

        deinit {
            // The consumer dropped the body: nothing will read the rest.
            close()
        }

        /// Takes an idle connection to the request's origin from `pool` (unless `reuse` is
        /// false) or connects within `connectTimeout` (at most the request's timeout), writes
        /// `request` and starts the watchdog. A connection that cannot be made (refused, a name
        /// that does not resolve, TLS refused, or nothing within the connect timeout) throws
        /// ``HTTPRequestNotSent``: no byte of the request was written.
        static func start(
            _ request: HTTPRequest, pool: SocketConnectionPool, reuse: Bool = true, trustedCertificatesFile: String?,
            connectTimeout: Duration
        ) async throws -> SocketHTTPExchange {
            guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = request.url.host, !host.isEmpty
            else { throw HTTPTransportError("\(request.url.absoluteString) is not an http: or https: URL") }
            let bytes = try requestBytes(request, host: host)
            let origin = SocketConnectionPool.Origin(
                scheme: scheme, host: host.lowercased(), port: port(of: request.url))
            let reused = reuse ? pool.take(origin) : nil
            let connection: SocketConnection
            if let reused {
                connection = reused
            } else {
                do {
                    connection = try await connect(
                        host: host, port: origin.port, tls: scheme == "https",
                        trustedCertificatesFile: trustedCertificatesFile,
                        timeout: min(connectTimeout, request.timeout))
                } catch let error as HTTPRequestNotSent {
                    throw error  // the connect timeout: nothing was written either
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // No connection, so no byte of this request was written: callers may tell
                    // the person that nothing reached the server.
                    throw HTTPRequestNotSent(String(describing: error))
                }
            }
            let exchange = SocketHTTPExchange(
                connection: connection, timeout: request.timeout, requestWasHead: request.method == "HEAD", pool: pool,
                origin: origin, reused: reused != nil)
            connection.write(bytes)
            exchange.startWatchdog()
            return exchange
        }

        /// Whether the request may be sent again on a new connection after this exchange failed:
        /// only when its reused connection ended before any byte of a response (the server had
        /// closed it while idle), and only for `GET` and `HEAD` or when none of the request left
        /// this process, so a request that may have reached the server is never sent twice.
        func mayRetryOnNewConnection(method: String) -> Bool {
            guard reusedConnection, state.withLock({ $0.endedBeforeResponse && !$0.receivedAny }) else { return false }
            return method == "GET" || method == "HEAD" || connection.sentBytes == sentBefore
        }

        /// The URL's port, or the scheme's default.
        static func port(of url: URL) -> Int {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        }

        /// The response once its head arrived; the body streams as it is read. Throws
        /// ``HTTPTimeout`` when no head came within the timeout; cancelling the waiting
        /// task closes it all.
        func response() async throws -> HTTPStreamingResponse {
            switch try await nextEvent() {
            case .head(let status, let headers):
                // The stream's closure owns the exchange: dropping the body closes it.
                let next: @Sendable () async throws -> [UInt8]? = { [self] in try await nextBodyChunk() }
                return HTTPStreamingResponse(
                    head: HTTPResponseHead(status: status, headers: headers), body: AsyncThrowingStream(unfolding: next)
                )
            case .body, .end:
                throw HTTPTransportError("the server's response is malformed: a body before its head")
            case nil:
                throw HTTPTransportError("the server closed the connection before a response")
            }
        }

        /// Closes the connection; a body still streaming ends.
        func close() {
            finish(nil)
        }

        /// The next piece of the body, `nil` at its end.
        private func nextBodyChunk() async throws -> [UInt8]? {
            while true {
                switch try await nextEvent() {
                case .body(let bytes): if !bytes.isEmpty { return bytes }
                case .end, nil:
                    finish(nil)
                    return nil
                case .head: continue
                }
            }
        }

        /// The next parsed event, reading from the connection only when none is left; `nil`
        /// when the exchange was closed after a complete response.
        private func nextEvent() async throws -> HTTPResponseParser.Event? {
            while true {
                let ready = try state.withLock { state throws -> HTTPResponseParser.Event?? in
                    if state.nextEvent < state.events.count {
                        defer { state.nextEvent += 1 }
                        return .some(state.events[state.nextEvent])
                    }
                    if let error = state.parseError {
                        state.parseError = nil
                        throw HTTPTransportError("the server's response is malformed: \(error.description)")
                    }
                    if let failure = state.failure { throw failure }
                    if state.finished { return .some(nil) }
                    state.events.removeAll(keepingCapacity: true)
                    state.nextEvent = 0
                    state.waitingSince = ContinuousClock.now
                    return nil
                }
                if let ready { return ready }
                var chunk: [UInt8]?
                do {
                    chunk = try await connection.receive()
                    if let first = chunk { chunk = gathered(after: first) }
                } catch {
                    let failure = state.withLock { state in
                        if state.failure == nil, !state.receivedAny, !(error is CancellationError) {
                            state.endedBeforeResponse = true
                        }
                        return state.failure
                    }
                    let reason = failure ?? error
                    finish(reason)
                    throw reason
                }
                let complete = state.withLock { state -> Bool in
                    state.waitingSince = nil
                    guard state.failure == nil else { return false }
                    if let chunk, !state.receivedAny {
                        state.receivedAny = true
                        state.isHTTP11 = chunk.starts(with: Self.http11StatusLine)
                    } else if chunk == nil, !state.receivedAny {
                        state.endedBeforeResponse = true
                    }
                    do throws(HTTPResponseParser.ParseError) {
                        if let chunk {
                            let first = state.events.count
                            defer {
                                for case .head(_, let headers) in state.events[first...]
                                where headers.listContains("Connection", token: "close") {
                                    state.closeAsked = true
                                }
                            }
                            try state.parser.feed(chunk, into: &state.events)
                            if state.parser.isComplete {
                                state.completeByFraming = true
                                return true
                            }
                        } else {
                            try state.parser.finish(into: &state.events)
                            if state.events.isEmpty { state.finished = true }
                        }
                    } catch {
                        // What the bytes held before the error is handed on first.
                        state.parseError = error
                    }
                    return false
                }
                // The whole response is in: the connection owes this exchange nothing more, so
                // it is freed now (what was parsed is still handed on in order).
                if complete { finish(nil) }
            }
        }

        /// `first` and the reads that were already waiting behind it in the connection's inbox
        /// (up to ``gatherLimit``), as one piece. A consumer that fell behind then parses, and
        /// hands on, one piece per turn instead of one per read: each turn costs wake-ups (its
        /// consumer, the connection's I/O thread resumed when the inbox drains), which in a fast
        /// stream of small events cost more than the one copy made here. A consumer that keeps
        /// up finds the inbox empty and gets each read as it is, uncopied. Bytes never wait
        /// here for more: only reads already received are gathered, taken from the inbox in one
        /// turn of the connection's lock (the connection's end or failure stays for the next
        /// receive to report).
        private func gathered(after first: [UInt8]) -> [UInt8] {
            let waiting = connection.takeReceived(whileUnder: Self.gatherLimit - first.count)
            guard !waiting.isEmpty else { return first }
            var bytes: [UInt8] = []
            state.withLock { swap(&bytes, &$0.gathered) }
            // In place when the last piece's consumer let it go; else a new array.
            bytes.removeAll(keepingCapacity: true)
            bytes.reserveCapacity(Self.gatherLimit + SocketConnection.readSize)
            bytes.append(contentsOf: first)
            for next in waiting { bytes.append(contentsOf: next) }
            state.withLock { $0.gathered = bytes }
            return bytes
        }

        /// Ends the exchange with ``HTTPTimeout`` when the server stays silent for the
        /// timeout while a consumer waits; a consumer that is slow to ask costs nothing.
        private func startWatchdog() {
            let timeout = timeout
            let watchdog = Task { [weak self] in
                while !Task.isCancelled {
                    // The exchange is held only while the deadline is read, never while
                    // sleeping: a dropped body closes it at once.
                    guard let step = self?.watchdogStep(timeout: timeout) else { return }
                    // The live network's silence timeout: real time, as URLSession's (tests
                    // drive it against a real peer; no rule decides by it).
                    switch step {
                    case .sleep(let deadline): try? await Task.sleep(until: deadline, clock: .continuous)  // real clock
                    case .expired:
                        self?.finish(HTTPTimeout(after: timeout))
                        return
                    }
                }
            }
            let finished = state.withLock { state in
                state.watchdog = watchdog
                return state.finished
            }
            if finished { watchdog.cancel() }
        }

        private enum WatchdogStep {
            case sleep(until: ContinuousClock.Instant)
            case expired
        }

        private func watchdogStep(timeout: Duration) -> WatchdogStep? {
            state.withLock { state in
                guard !state.finished else { return nil }
                let now = ContinuousClock.now
                guard let since = state.waitingSince else { return .sleep(until: now.advanced(by: timeout)) }
                let deadline = since.advanced(by: timeout)
                return now >= deadline ? .expired : .sleep(until: deadline)
            }
        }

        /// The error for a connection to `host:port` not made within `timeout`: nothing of the
        /// request was written, so it is ``HTTPRequestNotSent`` (not a timeout of the request,
        /// which may have reached the server).
        static func connectTimedOut(host: String, port: Int, after timeout: Duration) -> HTTPRequestNotSent {
            HTTPRequestNotSent("cannot connect to \(host):\(port): no connection within \(timeout)")
        }

        private static let http11StatusLine = Array("HTTP/1.1 ".utf8)

        /// Ends the exchange once: a waiting consumer gets `error` (or the clean end), the
        /// watchdog stops, and the connection goes back to the pool when the response was
        /// complete and allows it, else closes.
        private func finish(_ error: (any Error)?) {
            let ending = state.withLock { state -> (watchdog: Task<Void, Never>?, reusable: Bool)? in
                guard !state.finished else { return nil }
                state.finished = true
                if state.failure == nil { state.failure = error }
                defer { state.watchdog = nil }
                let reusable =
                    state.failure == nil && state.completeByFraming && state.isHTTP11 && !state.closeAsked
                    && !state.parser.connectionMustClose
                return (state.watchdog, reusable)
            }
            guard let ending else { return }
            ending.watchdog?.cancel()
            if ending.reusable {
                pool.release(connection, to: origin)
            } else {
                connection.shutdown()
            }
        }

        // MARK: The request

        /// The request head and body as bytes. Header names must be tokens and values may not
        /// hold CR, LF or NUL (no header injection); framing headers are the client's own.
        static func requestBytes(_ request: HTTPRequest, host: String) throws -> [UInt8] {
            let method = request.method
            guard !method.isEmpty, method.utf8.allSatisfy(HTTPHeaders.isTokenByte) else {
                throw HTTPTransportError("the method \(method.debugDescription) is not a token")
            }
            var target = request.url.path(percentEncoded: true)
            if target.isEmpty { target = "/" }
            if let query = request.url.query(percentEncoded: true) { target += "?" + query }
            guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw HTTPTransportError(
                    "the request target \(target.debugDescription) holds white space or a control byte")
            }
            let port = port(of: request.url)
            let defaultPort = request.url.scheme.map { HTTPHeaders.sameName($0, "https") } == true ? 443 : 80
            var head: [UInt8] = []
            head.reserveCapacity(256 + (request.body?.count ?? 0))
            head += method.utf8
            head.append(0x20)
            head += target.utf8
            head += " HTTP/1.1\r\nHost: ".utf8
            if host.utf8.contains(UInt8(ascii: ":")) {
                head.append(UInt8(ascii: "["))
                head += host.utf8
                head.append(UInt8(ascii: "]"))
            } else {
                head += host.utf8
            }
            if port != defaultPort {
                head.append(UInt8(ascii: ":"))
                head += String(port).utf8
            }
            head += "\r\n".utf8
            var hasUserAgent = false
            for field in request.headers {
                guard !field.name.isEmpty, field.name.utf8.allSatisfy(HTTPHeaders.isTokenByte) else {
                    throw HTTPTransportError("the header name \(field.name.debugDescription) is not a token")
                }
                guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                    throw HTTPTransportError("the value of the header \(field.name) holds CR, LF or NUL")
                }
                if isOwnField(field.name) { continue }
                if HTTPHeaders.isNamed(field.name, "User-Agent") { hasUserAgent = true }
                head += field.name.utf8
                head += ": ".utf8
                head += field.value.utf8
                head += "\r\n".utf8
            }
            if !hasUserAgent { head += "User-Agent: Sybil\r\n".utf8 }
            if let body = request.body {
                head += "Content-Length: ".utf8
                head += String(body.count).utf8
                head += "\r\n".utf8
            } else if method == "POST" || method == "PUT" || method == "PATCH" {
                head += "Content-Length: 0\r\n".utf8
            }
            head += "\r\n".utf8
            if let body = request.body { head += body }
            return head
        }

        /// Whether `name` is a framing field the client writes itself (`Host`, `Content-Length`,
        /// `Connection`, `Transfer-Encoding`), in any case: the caller's is left out.
        private static func isOwnField(_ name: String) -> Bool {
            HTTPHeaders.isNamed(name, "Host") || HTTPHeaders.isNamed(name, "Content-Length")
                || HTTPHeaders.isNamed(name, "Connection") || HTTPHeaders.isNamed(name, "Transfer-Encoding")
        }

        // MARK: Connecting

        /// ``SocketConnection/connect(host:port:tls:trustedCertificatesFile:)`` within
        /// `timeout`, else ``HTTPRequestNotSent`` saying so (the connection was never made, so
        /// nothing was sent); a connection that arrives after the caller gave up is closed.
        private static func connect(
            host: String, port: Int, tls: Bool, trustedCertificatesFile: String?, timeout: Duration
        ) async throws -> SocketConnection {
            let outcome = Locked<CheckedContinuation<SocketConnection, any Error>?>(nil)
            let settle: @Sendable (Result<SocketConnection, any Error>) -> Bool = { result in
                guard let continuation = outcome.withLock({ $0.take() }) else { return false }
                continuation.resume(with: result)
                return true
            }
            let tasks = Locked<[Task<Void, Never>]>([])
            defer { for task in tasks.withLock({ $0 }) { task.cancel() } }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    outcome.withLock { $0 = continuation }
                    let connecting = Task {
                        do {
                            let connection = try await SocketConnection.connect(
                                host: host, port: port, tls: tls, trustedCertificatesFile: trustedCertificatesFile)
                            if !settle(.success(connection)) { connection.shutdown() }
                        } catch {
                            _ = settle(.failure(error))
                        }
                    }
                    let timer = Task {
                        // The live connect timeout, in real time like URLSession's.
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }  // real clock
                        _ = settle(.failure(connectTimedOut(host: host, port: port, after: timeout)))
                    }
                    tasks.withLock { $0 = [connecting, timer] }
                    if Task.isCancelled { _ = settle(.failure(CancellationError())) }
                }
            } onCancel: {
                _ = settle(.failure(CancellationError()))
            }
        }
    }
#endif
