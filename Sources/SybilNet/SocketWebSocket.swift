#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore
    import SybilWire

    /// An RFC 6455 client over ``SocketConnection`` (TCP, TLS for `wss:`): validated opening
    /// handshake, masked frames, fragmented messages reassembled, pings answered and keepalive
    /// pings sent, the closing handshake with codes (application codes such as 4503 included),
    /// strict UTF-8 for text, a maximum message size, and a clear error for every violation.
    public final class SocketWebSocket<C: Clock>: WebSocketConnection where C.Duration == Duration {
        public let incoming: AsyncThrowingStream<WebSocketIncoming, any Error>

        private let socket: SocketConnection
        private let random: any RandomSource
        private let state = Locked(State())
        private let continuation: AsyncThrowingStream<WebSocketIncoming, any Error>.Continuation
        private let tasks = Locked<[Task<Void, Never>]>([])

        private struct State {
            var closeSent = false
            var finished = false
        }

        /// Opens a connection to `url` (`ws:` or `wss:`).
        public static func connect(
            to url: URL, options: WebSocketOptions = WebSocketOptions(), random: any RandomSource, clock: C
        ) async throws -> SocketWebSocket {
            guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss", let host = url.host else {
                throw WebSocketError.invalidURL(url.absoluteString)
            }
            let port = url.port ?? (scheme == "wss" ? 443 : 80)
            let socket = try await SocketConnection.connect(
                host: host, port: port, tls: scheme == "wss", trustedCertificatesFile: options.trustedCertificatesFile)
            let handshake = WebSocketHandshake(random: random)
            socket.write(Array(handshake.requestHead(for: url, headers: options.headers).utf8))
            var iterator = socket.inbound.makeAsyncIterator()
            var received: [UInt8] = []
            let terminator = Array("\r\n\r\n".utf8)
            var headEnd: Range<Int>?
            while headEnd == nil {
                guard let chunk = try await iterator.next() else {
                    throw WebSocketError.handshake("the server closed the connection before answering")
                }
                received += chunk
                headEnd = received.firstRange(of: terminator)
                if headEnd == nil, received.count > 16 << 10 {
                    socket.shutdown()
                    throw WebSocketError.handshake("the answer's head is longer than 16 KiB")
                }
            }
            let head = String(decoding: received[..<headEnd!.lowerBound], as: UTF8.self)
            do {
                try handshake.validate(responseHead: head)
            } catch {
                socket.shutdown()
                throw WebSocketError.handshake(error.description)
            }
            let connection = SocketWebSocket(socket: socket, random: random)
            connection.start(
                leftover: Array(received[headEnd!.upperBound...]), rest: iterator, options: options, clock: clock)
            return connection
        }

        private init(socket: SocketConnection, random: any RandomSource) {
            self.socket = socket
            self.random = random
            (incoming, continuation) = AsyncThrowingStream<WebSocketIncoming, any Error>.makeStream()
        }

        deinit {
            for task in tasks.withLock({ $0 }) { task.cancel() }
            socket.shutdown()
        }

        public func send(text: String) throws {
            try sendFrame(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
        }

        public func send(binary: [UInt8]) throws {
            try sendFrame(WebSocketFrame(opcode: .binary, payload: binary))
        }

        public func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
            let first = state.withLock { state -> Bool in
                defer { state.closeSent = true }
                return !state.closeSent && !state.finished
            }
            guard first else { return }
            write(WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: code, reason: reason)))
        }

        private func sendFrame(_ frame: WebSocketFrame) throws {
            let open = state.withLock { !$0.closeSent && !$0.finished }
            guard open else { throw WebSocketError.closed }
            write(frame)
        }

        private func write(_ frame: WebSocketFrame) {
            let key = random.nextUInt64()
            let mask = [UInt8(key & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key >> 16 & 0xFF), UInt8(key >> 24 & 0xFF)]
            socket.write(frame.encoded(maskingKey: mask))
        }

        private func start(
            leftover: [UInt8], rest: sending AsyncThrowingStream<[UInt8], any Error>.AsyncIterator,
            options: WebSocketOptions,
            clock: C
        ) {
            // The reader holds the connection only while it works on received bytes, never
            // while it waits: a socket its owner dropped is closed by `deinit`.
            let reader = Task { [weak self] in
                var iterator = rest
                var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: options.maximumMessage)
                var assembler = WebSocketMessageAssembler(maximumMessage: options.maximumMessage)
                decoder.append(leftover)
                while true {
                    guard let connection = self, !connection.process(&decoder, &assembler) else { return }
                    let next: [UInt8]?
                    do {
                        next = try await iterator.next()
                    } catch {
                        self?.finish(throwing: WebSocketError.connectionLost(String(describing: error)))
                        return
                    }
                    guard let bytes = next else {
                        self?.finish(throwing: WebSocketError.connectionLost("closed without a closing handshake"))
                        return
                    }
                    decoder.append(bytes)
                }
            }
            let keepalive = Task { [weak self] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: options.pingInterval) } catch { return }
                    guard let self, state.withLock({ !$0.closeSent && !$0.finished }) else { return }
                    write(WebSocketFrame(opcode: .ping, payload: []))
                }
            }
            tasks.withLock { $0 = [reader, keepalive] }
        }

        /// Handles the complete frames in `decoder`; returns whether the connection is over.
        private func process(_ decoder: inout WebSocketFrameDecoder, _ assembler: inout WebSocketMessageAssembler)
            -> Bool
        {
            do {
                while let frame = try decoder.nextFrame() {
                    if let event = try assembler.add(frame), handle(event) { return true }
                }
                return false
            } catch {
                write(
                    WebSocketFrame(
                        opcode: .close, payload: WebSocketCloseCode.payload(code: error.closeCode, reason: "")))
                state.withLock { $0.closeSent = true }
                finish(throwing: WebSocketError.protocolViolation(error))
                return true
            }
        }

        /// Handles one event; returns whether the connection is over.
        private func handle(_ event: WebSocketEvent) -> Bool {
            switch event {
            case .text(let text): continuation.yield(.text(text))
            case .binary(let bytes): continuation.yield(.binary(bytes))
            case .ping(let payload): write(WebSocketFrame(opcode: .pong, payload: payload))
            case .pong: break
            case .close(let code, let reason):
                let answer = state.withLock { state -> Bool in
                    defer { state.closeSent = true }
                    return !state.closeSent
                }
                if answer {
                    let payload = code == 1005 ? [] : WebSocketCloseCode.payload(code: code, reason: "")
                    write(WebSocketFrame(opcode: .close, payload: payload))
                }
                continuation.yield(.closed(code: code, reason: reason))
                finish(throwing: nil)
                return true
            }
            return false
        }

        private func finish(throwing error: (any Error)?) {
            let first = state.withLock { state -> Bool in
                defer { state.finished = true }
                return !state.finished
            }
            guard first else { return }
            if let error { continuation.finish(throwing: error) } else { continuation.finish() }
            socket.shutdown()
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }
#endif
