#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore

    /// An RFC 6455 client over ``SocketConnection`` (TCP, TLS for `wss:`): validated opening
    /// handshake, masked frames, fragmented messages reassembled, pings answered and keepalive
    /// pings sent, the closing handshake with codes (application codes such as 4503 included),
    /// strict UTF-8 for text, a maximum message size, and a clear error for every violation.
    ///
    /// Bounded against any server: received messages wait for their consumer in a queue of at
    /// most ``incomingLimit`` bytes (one larger message alone is allowed up to the maximum
    /// message size), and while it is full the socket is not read, so TCP slows the server.
    /// Once a frame is refused the socket is no longer read at all.
    public final class SocketWebSocket<C: Clock>: WebSocketConnection where C.Duration == Duration {
        /// The bytes of received messages held for a consumer before reading pauses.
        public static var incomingLimit: Int { 1 << 20 }

        public let incoming: AsyncThrowingStream<WebSocketIncoming, any Error>

        private let socket: SocketConnection
        private let random: any RandomSource
        private let state = Locked(State())
        private let queue: BoundedMessageQueue<WebSocketIncoming>
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
            var received: [UInt8] = []
            var headEnd: Range<Int>?
            while headEnd == nil {
                let chunk: [UInt8]?
                do {
                    chunk = try await socket.receive()
                } catch {
                    socket.shutdown()
                    throw error
                }
                guard let chunk else {
                    throw WebSocketError.handshake("the server closed the connection before answering")
                }
                // Only the new bytes (and the three before them) can complete the blank line:
                // the head is searched once, however it is split.
                let searchFrom = max(0, received.count - 3)
                received += chunk
                headEnd = Self.blankLine(in: received, from: searchFrom)
                if headEnd == nil, received.count > Self.maximumHandshakeHead {
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
            connection.start(leftover: Array(received[headEnd!.upperBound...]), options: options, clock: clock)
            return connection
        }

        /// Received bytes held for the consumer: messages in the queue and bytes in the socket's
        /// inbox (what the bounds limit).
        var bufferedBytes: Int {
            queue.queuedBytes + socket.bufferedBytes
        }

        /// Whether the socket stopped reading because its inbox is full.
        var isReadingPaused: Bool {
            socket.isReadingPaused
        }

        /// The longest handshake answer head read.
        static var maximumHandshakeHead: Int { 16 << 10 }

        /// The first CR LF CR LF at or after `start`.
        static func blankLine(in bytes: [UInt8], from start: Int) -> Range<Int>? {
            var index = start
            while index + 4 <= bytes.count {
                if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A {
                    return index..<(index + 4)
                }
                index += 1
            }
            return nil
        }

        private init(socket: SocketConnection, random: any RandomSource) {
            self.socket = socket
            self.random = random
            queue = BoundedMessageQueue(limit: Self.incomingLimit)
            incoming = queue.stream
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

        /// Queues the frame as its header and its masked payload, sent by one gathered write:
        /// the payload is copied once (masked on the way), never joined to the header.
        private func write(_ frame: WebSocketFrame) {
            let key = random.nextUInt64()
            let mask = [UInt8(key & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key >> 16 & 0xFF), UInt8(key >> 24 & 0xFF)]
            socket.write(gathering: [frame.header(maskingKey: mask), WebSocketFrame.masked(frame.payload, key: mask)])
        }

        private func start(leftover: [UInt8], options: WebSocketOptions, clock: C) {
            // The reader holds the connection only while it works on received bytes, never
            // while it waits (for bytes, or for room in the queue): a socket its owner dropped
            // is closed by `deinit`.
            let reader = Task { [weak self, socket, queue] in
                var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: options.maximumMessage)
                var assembler = WebSocketMessageAssembler(maximumMessage: options.maximumMessage)
                decoder.append(leftover)
                while true {
                    guard let (messages, ending) = self?.process(&decoder, &assembler) else { return }
                    for message in messages {
                        guard await queue.push(message, cost: message.queuedBytes) else { return }
                    }
                    if let ending {
                        self?.finish(throwing: ending.error)
                        return
                    }
                    let next: [UInt8]?
                    do {
                        next = try await socket.receive()
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

        /// How the connection ended, once its last messages are handed on.
        private struct Ending {
            var error: (any Error)?
        }

        /// Handles the complete frames in `decoder`: the messages they finish, and the ending
        /// when the connection is over. After a refused frame the socket is no longer read.
        private func process(_ decoder: inout WebSocketFrameDecoder, _ assembler: inout WebSocketMessageAssembler)
            -> ([WebSocketIncoming], Ending?)
        {
            var messages: [WebSocketIncoming] = []
            do {
                while let frame = try decoder.nextFrame() {
                    if let event = try assembler.add(frame), let over = handle(event, into: &messages) {
                        return (messages, over)
                    }
                }
                return (messages, nil)
            } catch {
                // Stop reading now: nothing more from this peer is wanted, only the close sent.
                socket.shutdown()
                write(
                    WebSocketFrame(
                        opcode: .close, payload: WebSocketCloseCode.payload(code: error.closeCode, reason: "")))
                state.withLock { $0.closeSent = true }
                return (messages, Ending(error: WebSocketError.protocolViolation(error)))
            }
        }

        /// Handles one event; returns the ending when the connection is over.
        private func handle(_ event: WebSocketEvent, into messages: inout [WebSocketIncoming]) -> Ending? {
            switch event {
            case .text(let text): messages.append(.text(text))
            case .binary(let bytes): messages.append(.binary(bytes))
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
                messages.append(.closed(code: code, reason: reason))
                return Ending(error: nil)
            }
            return nil
        }

        private func finish(throwing error: (any Error)?) {
            let first = state.withLock { state -> Bool in
                defer { state.finished = true }
                return !state.finished
            }
            guard first else { return }
            queue.finish(throwing: error)
            socket.shutdown()
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }
    }
#endif

extension WebSocketIncoming {
    /// What the message costs a queue: its payload's bytes.
    var queuedBytes: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let bytes): bytes.count
        case .closed(_, let reason): reason.utf8.count
        }
    }
}
