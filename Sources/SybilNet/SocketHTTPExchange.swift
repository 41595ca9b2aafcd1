#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilWire
    import SybilCore

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// One request and its response on a connection of its own (``SocketHTTPClient``): the
    /// request written at once, the response parsed as it arrives, the head handed to the
    /// waiting caller and the body streamed on; a watchdog ends the exchange after a silence as
    /// long as the request's timeout. The connection is closed when the response ends, fails,
    /// or its consumer goes away.
    final class SocketHTTPExchange: Sendable {
        private let connection: SocketConnection
        private let timeout: Duration
        private let requestWasHead: Bool
        private let body: AsyncThrowingStream<[UInt8], any Error>
        private let bodyContinuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
        private let state: Locked<State>

        private struct State {
            var headWaiter: CheckedContinuation<HTTPStreamingResponse, any Error>?
            /// The head or the failure, when it came before anyone waited for it.
            var early: Result<HTTPStreamingResponse, any Error>?
            var headSeen = false
            var finished = false
            var lastActivity: ContinuousClock.Instant
            var tasks: [Task<Void, Never>] = []
        }

        private init(connection: SocketConnection, timeout: Duration, requestWasHead: Bool) {
            self.connection = connection
            self.timeout = timeout
            self.requestWasHead = requestWasHead
            (body, bodyContinuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            state = Locked(State(lastActivity: ContinuousClock.now))
        }

        /// Connects (within the request's timeout), writes `request` and starts reading.
        static func start(_ request: HTTPRequest, trustedCertificatesFile: String?) async throws -> SocketHTTPExchange {
            guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = request.url.host, !host.isEmpty
            else { throw HTTPTransportError("\(request.url.absoluteString) is not an http: or https: URL") }
            let bytes = try requestBytes(request, host: host)
            let connection = try await connect(
                host: host, port: port(of: request.url), tls: scheme == "https",
                trustedCertificatesFile: trustedCertificatesFile, timeout: request.timeout)
            let exchange = SocketHTTPExchange(
                connection: connection, timeout: request.timeout, requestWasHead: request.method == "HEAD")
            connection.write(bytes)
            exchange.startReading()
            return exchange
        }

        /// The URL's port, or the scheme's default.
        static func port(of url: URL) -> Int {
            url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        }

        /// The response once its head arrived; the body streams. Throws `URLError(.timedOut)`
        /// when no head came within the timeout; cancelling the waiting task closes it all.
        func response() async throws -> HTTPStreamingResponse {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let early = state.withLock { state -> Result<HTTPStreamingResponse, any Error>? in
                        if let early = state.early { return early }
                        state.headWaiter = continuation
                        return nil
                    }
                    if let early { continuation.resume(with: early) }
                }
            } onCancel: {
                fail(CancellationError())
            }
        }

        /// Closes the connection; a body still streaming ends.
        func close() {
            finish(nil)
        }

        private func startReading() {
            bodyContinuation.onTermination = { [weak self] termination in
                if case .cancelled = termination { self?.fail(CancellationError()) }
            }
            let reader = Task { [self] in
                var parser = HTTPResponseParser(requestWasHead: requestWasHead)
                var events: [HTTPResponseParser.Event] = []
                do {
                    for try await chunk in connection.inbound {
                        touch()
                        events.removeAll(keepingCapacity: true)
                        do throws(HTTPResponseParser.ParseError) {
                            try parser.feed(chunk, into: &events)
                        } catch {
                            // What the bytes held before the error is handed on first.
                            deliver(events)
                            throw error
                        }
                        if deliver(events) { return }
                    }
                    events.removeAll()
                    try parser.finish(into: &events)
                    deliver(events)
                } catch let error as HTTPResponseParser.ParseError {
                    fail(HTTPTransportError("the server's response is malformed: \(error.description)"))
                } catch {
                    fail(error)
                }
            }
            let watchdog = Task { [weak self, timeout] in
                while !Task.isCancelled {
                    guard let self, let last = self.lastActivity else { return }
                    let deadline = last.advanced(by: timeout)
                    if ContinuousClock.now >= deadline {
                        self.fail(URLError(.timedOut))
                        return
                    }
                    // The live network's silence timeout: real time, as URLSession's (tests drive
                    // it against a real peer; no rule decides by it).
                    try? await Task.sleep(until: deadline, clock: .continuous)
                }
            }
            let finished = state.withLock { state in
                state.tasks = [reader, watchdog]
                return state.finished
            }
            if finished {
                reader.cancel()
                watchdog.cancel()
            }
        }

        /// When the response last made progress; `nil` once the exchange is over.
        private var lastActivity: ContinuousClock.Instant? {
            state.withLock { $0.finished ? nil : $0.lastActivity }
        }

        private func touch() {
            state.withLock { $0.lastActivity = ContinuousClock.now }
        }

        /// Hands on parsed events; returns whether the response ended.
        @discardableResult
        private func deliver(_ events: [HTTPResponseParser.Event]) -> Bool {
            for event in events {
                switch event {
                case .head(let status, let headers):
                    let response = HTTPStreamingResponse(
                        head: HTTPResponseHead(status: status, headers: headers), body: body)
                    let waiter = state.withLock { state -> CheckedContinuation<HTTPStreamingResponse, any Error>? in
                        state.headSeen = true
                        guard let waiter = state.headWaiter else {
                            state.early = .success(response)
                            return nil
                        }
                        state.headWaiter = nil
                        return waiter
                    }
                    waiter?.resume(returning: response)
                case .body(let bytes):
                    bodyContinuation.yield(bytes)
                case .end:
                    finish(nil)
                    return true
                }
            }
            return false
        }

        private func fail(_ error: any Error) {
            finish(error)
        }

        /// Ends the exchange once: the head waiter or the body gets `error` (the body ends
        /// cleanly without one), the connection closes, the tasks stop.
        private func finish(_ error: (any Error)?) {
            let ending = state.withLock {
                state -> (CheckedContinuation<HTTPStreamingResponse, any Error>?, [Task<Void, Never>], Bool)? in
                guard !state.finished else { return nil }
                state.finished = true
                let waiter = state.headWaiter
                state.headWaiter = nil
                if !state.headSeen, waiter == nil {
                    state.early = .failure(error ?? HTTPTransportError("the exchange was closed before a response"))
                }
                let tasks = state.tasks
                state.tasks = []
                return (waiter, tasks, state.headSeen)
            }
            guard let (waiter, tasks, headSeen) = ending else { return }
            connection.shutdown()
            for task in tasks { task.cancel() }
            if let waiter {
                waiter.resume(throwing: error ?? HTTPTransportError("the exchange was closed before a response"))
            }
            if headSeen, let error { bodyContinuation.finish(throwing: error) } else { bodyContinuation.finish() }
        }

        // MARK: The request

        /// The request head and body as bytes. Header names must be tokens and values may not
        /// hold CR, LF or NUL (no header injection); framing headers are the client's own.
        static func requestBytes(_ request: HTTPRequest, host: String) throws -> [UInt8] {
            let method = request.method
            guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
                throw HTTPTransportError("the method \(method.debugDescription) is not a token")
            }
            var target = request.url.path(percentEncoded: true)
            if target.isEmpty { target = "/" }
            if let query = request.url.query(percentEncoded: true) { target += "?" + query }
            guard !target.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
                throw HTTPTransportError(
                    "the request target \(target.debugDescription) holds white space or a control byte")
            }
            let hostField = host.contains(":") ? "[\(host)]" : host
            let defaultPort = request.url.scheme?.lowercased() == "https" ? 443 : 80
            let port = port(of: request.url)
            var head = "\(method) \(target) HTTP/1.1\r\nHost: \(hostField)\(port == defaultPort ? "" : ":\(port)")\r\n"
            let ownFields = ["Host", "Content-Length", "Connection", "Transfer-Encoding"]
            var hasUserAgent = false
            for field in request.headers {
                guard !field.name.isEmpty, field.name.utf8.allSatisfy(isTokenByte) else {
                    throw HTTPTransportError("the header name \(field.name.debugDescription) is not a token")
                }
                guard !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                    throw HTTPTransportError("the value of the header \(field.name) holds CR, LF or NUL")
                }
                if ownFields.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) { continue }
                if field.name.caseInsensitiveCompare("User-Agent") == .orderedSame { hasUserAgent = true }
                head += "\(field.name): \(field.value)\r\n"
            }
            if !hasUserAgent { head += "User-Agent: Sybil\r\n" }
            if let body = request.body {
                head += "Content-Length: \(body.count)\r\n"
            } else if ["POST", "PUT", "PATCH"].contains(method) {
                head += "Content-Length: 0\r\n"
            }
            head += "Connection: close\r\n\r\n"
            return Array(head.utf8) + (request.body ?? [])
        }

        private static func isTokenByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }

        // MARK: Connecting

        /// ``SocketConnection/connect(host:port:tls:trustedCertificatesFile:)`` within
        /// `timeout`; a connection that arrives after the caller gave up is closed.
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
                        guard (try? await Task.sleep(for: timeout)) != nil else { return }
                        _ = settle(.failure(URLError(.timedOut)))
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
