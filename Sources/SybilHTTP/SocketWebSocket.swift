#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilCore

    /// An RFC 6455 client over ``SocketConnection`` (TCP, TLS for `wss:`): validated opening
    /// handshake, masked frames, fragmented messages reassembled, pings answered and keepalive
    /// pings sent, the closing handshake with codes (application codes such as 4503 included),
    /// strict UTF-8 for text, a maximum message size, and a clear error for every violation.
    ///
    /// Frames are decoded by the consumer of ``incoming`` as it asks for the next message, on
    /// its own task: a message reaches it with one hand-off from the socket's I/O thread, and
    /// pings and the peer's close are answered as they are read. Between two asks nothing is
    /// decoded, except at each keepalive tick, which decodes what the socket already holds
    /// (answering its pings) and keeps the messages for the consumer.
    ///
    /// Bounded against any server: what the consumer has not asked for waits in the socket's
    /// inbox, and while that is full the socket is not read, so TCP slows the server; a
    /// keepalive tick keeps at most ``incomingLimit`` bytes of messages (one larger message
    /// alone is allowed up to the maximum message size). Once a frame is refused the socket is
    /// no longer read at all. Cancelling a task that waits for a message closes the connection.
    public final class SocketWebSocket<C: Clock>: WebSocketConnection where C.Duration == Duration {
        /// The bytes of decoded messages a keepalive tick keeps for the consumer.
        public static var incomingLimit: Int { 1 << 20 }

        public let incoming: AsyncThrowingStream<WebSocketIncoming, any Error>

        private let session: SocketWebSocketSession

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
            // The answer's head is read by the responses' head decoder as bytes arrive: a head
            // that is malformed or longer than 16 KiB is refused as soon as it shows.
            var received: [UInt8] = []
            var decoder = WebSocketHandshake.responseHeadDecoder()
            while true {
                let chunk: [UInt8]?
                do {
                    chunk = try await socket.receive()
                } catch {
                    socket.shutdown()
                    throw error
                }
                guard let chunk else {
                    socket.shutdown()
                    throw WebSocketError.handshake("the server closed the connection before answering")
                }
                received += chunk
                do {
                    if try handshake.readResponse(&received, with: &decoder) { break }
                } catch {
                    socket.shutdown()
                    throw WebSocketError.handshake(error.description)
                }
            }
            let connection = SocketWebSocket(
                session: SocketWebSocketSession(
                    socket: socket, random: random, maximumMessage: options.maximumMessage,
                    incomingLimit: incomingLimit, leftover: received))
            connection.startKeepalive(interval: options.pingInterval, clock: clock)
            return connection
        }

        /// The connection's own I/O thread as a task executor. A consumer of ``incoming`` that
        /// runs under `withTaskExecutorPreference(socket.executor)` decodes its messages on the
        /// thread that read their bytes and is resumed there without waking another thread: one
        /// wake-up per message, where a consumer on the cooperative pool has two (the I/O thread,
        /// then a pool thread). Code run there must not block or run long, since this
        /// connection's reads and writes wait for it meanwhile; once the connection has ended,
        /// such a task runs on the global concurrent executor.
        public var executor: any TaskExecutor {
            session.socket
        }

        /// ``executor``: a consumer of ``incoming`` runs best on the connection's I/O thread.
        public var consumerExecutor: (any TaskExecutor)? {
            executor
        }

        /// Received bytes held for the consumer: messages a keepalive tick decoded and bytes in
        /// the socket's inbox (what the bounds limit).
        var bufferedBytes: Int {
            session.bufferedBytes
        }

        /// Whether the socket stopped reading because its inbox is full.
        var isReadingPaused: Bool {
            session.socket.isReadingPaused
        }

        /// Whether the socket's I/O thread has ended.
        var hasEnded: Bool {
            session.socket.hasEnded
        }

        /// Whether a consumer (or a keepalive tick) is decoding or waiting for bytes now.
        var isReading: Bool {
            session.isReading
        }

        private init(session: SocketWebSocketSession) {
            self.session = session
            // The stream holds the session, never this object: a connection its owner dropped
            // is closed by `deinit` even while a consumer still holds the stream.
            incoming = AsyncThrowingStream(unfolding: { [session] in try await session.next() })
        }

        deinit {
            session.cancelTasks()
            session.socket.shutdown()
        }

        public func send(text: String) throws {
            try session.send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
        }

        public func send(binary: [UInt8]) throws {
            try session.send(WebSocketFrame(opcode: .binary, payload: binary))
        }

        public func close(code: UInt16 = WebSocketCloseCode.normal, reason: String = "") {
            session.close(code: code, reason: reason)
        }

        private func startKeepalive(interval: Duration, clock: C) {
            let keepalive = Task { [weak session] in
                while !Task.isCancelled {
                    do { try await clock.sleep(for: interval) } catch { return }
                    guard let session, session.ping() else { return }
                    await session.decodeReceived()
                }
            }
            session.keep(keepalive)
        }
    }

    /// The state of one client connection shared by ``SocketWebSocket``, its ``incoming``
    /// stream and its keepalive task: the send side (masking, the close state) and the read
    /// side, which one party at a time holds (the consumer asking for a message, or a keepalive
    /// tick decoding what was received).
    final class SocketWebSocketSession: Sendable {
        let socket: SocketConnection
        private let random: any RandomSource
        private let incomingLimit: Int
        private let state = Locked(State())
        private let tasks = Locked<[Task<Void, Never>]>([])
        /// Held while one frame is handed to the socket, piece by piece.
        private let writing = Locked(())
        /// The frame decoder and message assembler: touched only by the holder of the read
        /// side (`State.reading`), whose turns the state lock orders.
        nonisolated(unsafe) private var reader: Reader

        private struct Reader {
            var decoder: WebSocketFrameDecoder
            var assembler: WebSocketMessageAssembler
        }

        private struct State {
            var closeSent = false
            var finished = false
            /// Someone holds the read side.
            var reading = false
            /// Consumers waiting for the read side to be released.
            var waiting: [CheckedContinuation<Void, Never>] = []
            /// Messages a keepalive tick decoded, oldest first from `readyHead`.
            var ready: [WebSocketIncoming] = []
            var readyHead = 0
            var readyBytes = 0
            /// How the stream ends after the ready messages: cleanly (`nil`) or with an error.
            var end: (any Error)??
        }

        init(
            socket: SocketConnection, random: any RandomSource, maximumMessage: Int, incomingLimit: Int,
            leftover: [UInt8]
        ) {
            self.socket = socket
            self.random = random
            self.incomingLimit = incomingLimit
            var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: maximumMessage)
            decoder.append(leftover)
            reader = Reader(decoder: decoder, assembler: WebSocketMessageAssembler(maximumMessage: maximumMessage))
        }

        var bufferedBytes: Int {
            state.withLock { $0.readyBytes } + socket.bufferedBytes
        }

        var isReading: Bool {
            state.withLock { $0.reading }
        }

        func keep(_ task: Task<Void, Never>) {
            tasks.withLock { $0.append(task) }
        }

        func cancelTasks() {
            for task in tasks.withLock({ $0 }) { task.cancel() }
        }

        // MARK: Sending

        func send(_ frame: WebSocketFrame) throws {
            let open = state.withLock { !$0.closeSent && !$0.finished }
            guard open else { throw WebSocketError.closed }
            write(frame)
        }

        func close(code: UInt16, reason: String) {
            let first = state.withLock { state -> Bool in
                defer { state.closeSent = true }
                return !state.closeSent && !state.finished
            }
            guard first else { return }
            write(WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: code, reason: reason)))
        }

        /// Sends a keepalive ping; `false` once the connection is closing or over.
        func ping() -> Bool {
            guard state.withLock({ !$0.closeSent && !$0.finished }) else { return false }
            write(WebSocketFrame(opcode: .ping, payload: []))
            return true
        }

        /// Queues the frame as its header and its masked payload, sent by gathered writes: the
        /// payload is copied once (masked on the way), never joined to the header. A payload
        /// longer than ``maskPiece`` is masked and handed to the socket a piece at a time, so
        /// each piece is sent while it is still in the cache (and the peer can start reading)
        /// instead of masking all of it first; the pieces of one frame are written under
        /// `writing`, so no other frame comes between them.
        private func write(_ frame: WebSocketFrame) {
            let key = random.nextUInt64()
            let mask = [UInt8(key & 0xFF), UInt8(key >> 8 & 0xFF), UInt8(key >> 16 & 0xFF), UInt8(key >> 24 & 0xFF)]
            let header = frame.header(maskingKey: mask)
            let payload = frame.payload
            writing.withLock { _ in
                var start = 0
                repeat {
                    let end = min(start + Self.maskPiece, payload.count)
                    let piece = WebSocketFrame.masked(payload[start..<end], key: mask)
                    socket.write(gathering: start == 0 ? [header, piece] : [piece])
                    start = end
                } while start < payload.count
            }
        }

        /// The least payload still to come that the consumer tries to read from the socket
        /// itself (``SocketConnection/receiveDirect(into:)``) before waiting: a try that finds
        /// nothing costs a system call, worth it only for a large payload.
        static var directReadMinimum: Int { 1 << 15 }

        /// The most bytes the consumer reads from the socket itself before it goes through the
        /// I/O thread once (``SocketConnection/receive()``): the thread's queued writes (pongs,
        /// other tasks' sends) and jobs wait while the consumer runs there, so a peer that keeps
        /// the socket full cannot hold the thread for a whole 16 MiB message.
        static var directReadTurn: Int { 1 << 20 }

        /// The bytes of a payload masked and handed to the socket at a time: a multiple of 4,
        /// so every piece starts at the key's first byte. 256 KiB, an eighth of the L2 cache:
        /// still read back from the cache by the send, in a quarter of the system calls that
        /// 64 KiB pieces took.
        static var maskPiece: Int { 1 << 18 }

        // MARK: Receiving

        /// The next message for the consumer: one a keepalive tick kept, else decoded here from
        /// the socket's bytes; `nil` after the closing handshake. It and the functions it awaits
        /// run on the caller's executor (`nonisolated(nonsending)`): no executor switches
        /// around each call, which cost a consumer on the I/O thread a lookup of its
        /// preferred executor under a lock each.
        nonisolated(nonsending) func next() async throws -> WebSocketIncoming? {
            while true {
                let step = state.withLock { state -> Step in
                    if state.readyHead < state.ready.count {
                        let message = state.ready[state.readyHead]
                        state.ready[state.readyHead] = .closed(code: 0, reason: "")
                        state.readyHead += 1
                        state.readyBytes -= message.queuedBytes
                        if state.readyHead == state.ready.count {
                            state.ready.removeAll(keepingCapacity: true)
                            state.readyHead = 0
                        }
                        return .ready(message)
                    }
                    if let end = state.end { return .ended(end) }
                    if state.reading { return .busy }
                    state.reading = true
                    return .holding
                }
                switch step {
                case .ready(let message): return message
                case .ended(nil): return nil
                case .ended(let error?): throw error
                case .holding: return try await readHolding()
                case .busy:
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let free = state.withLock { state -> Bool in
                            guard state.reading else { return true }
                            state.waiting.append(continuation)
                            return false
                        }
                        if free { continuation.resume() }
                    }
                }
            }
        }

        private enum Step {
            case ready(WebSocketIncoming)
            case ended((any Error)?)
            case holding
            case busy
        }

        /// Decodes (reading the socket as needed) until a message is complete; the caller holds
        /// the read side, which is released on return.
        nonisolated(nonsending) private func readHolding() async throws -> WebSocketIncoming? {
            var end: (any Error)?? = nil
            defer { release(ending: end) }
            // Bytes read straight from the socket since the consumer last went through the thread.
            var readDirectly = 0
            while true {
                switch decodeNext() {
                case .message(let message):
                    return message
                case .closed(let message):
                    end = .some(nil)
                    return message
                case .failed(let error):
                    end = .some(error)
                    throw error
                case .needBytes:
                    break
                }
                // On the socket's own thread (a consumer on its executor), a large payload still
                // to come is read straight into its message: no copy out of a read buffer.
                if readDirectly < Self.directReadTurn, reader.decoder.payloadAwaited >= Self.directReadMinimum,
                    reader.decoder.readPayload({ target in
                        // No read goes past the turn's budget: one `recv` could otherwise take
                        // all the kernel holds.
                        let budget = min(target.count, Self.directReadTurn - readDirectly)
                        let count = socket.receiveDirect(
                            into: UnsafeMutableRawBufferPointer(rebasing: target[..<budget]))
                        readDirectly += count ?? 0
                        return count
                    })
                {
                    continue
                }
                readDirectly = 0
                let bytes: [UInt8]?
                do {
                    bytes = try await socket.receive()
                } catch is CancellationError {
                    end = .some(WebSocketError.connectionLost("the task waiting for a message was cancelled"))
                    throw CancellationError()
                } catch {
                    let lost = WebSocketError.connectionLost(String(describing: error))
                    end = .some(lost)
                    throw lost
                }
                guard let bytes else {
                    let lost = WebSocketError.connectionLost("closed without a closing handshake")
                    end = .some(lost)
                    throw lost
                }
                reader.decoder.append(bytes)
            }
        }

        /// At a keepalive tick: decodes the bytes the socket already holds (answering pings)
        /// and keeps the messages for the consumer, up to ``SocketWebSocket/incomingLimit``
        /// bytes; never waits for the socket. Nothing is done while the consumer reads.
        func decodeReceived() async {
            let holding = state.withLock { state -> Bool in
                guard !state.reading, state.end == nil else { return false }
                state.reading = true
                return true
            }
            guard holding else { return }
            var end: (any Error)?? = nil
            defer { release(ending: end) }
            while state.withLock({ $0.readyBytes < incomingLimit }) {
                switch decodeNext() {
                case .message(let message):
                    keepReady(message)
                    continue
                case .closed(let message):
                    keepReady(message)
                    end = .some(nil)
                    return
                case .failed(let error):
                    end = .some(error)
                    return
                case .needBytes:
                    break
                }
                // Only the read-side holder takes from the inbox: bytes there are taken at once.
                guard socket.bufferedBytes > 0 else { return }
                do {
                    guard let bytes = try await socket.receive() else { return }
                    reader.decoder.append(bytes)
                } catch {
                    return  // the consumer meets the failure on its next read
                }
            }
        }

        private func keepReady(_ message: WebSocketIncoming) {
            state.withLock { state in
                state.ready.append(message)
                state.readyBytes += message.queuedBytes
            }
        }

        /// Releases the read side, recording how the stream ends (closing the connection then),
        /// and wakes the consumers waiting for it.
        private func release(ending: (any Error)??) {
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                if let ending, state.end == nil {
                    state.end = ending
                    state.finished = true
                }
                state.reading = false
                defer { state.waiting = [] }
                return state.waiting
            }
            if ending != nil {
                socket.shutdown()
                cancelTasks()
            }
            for consumer in waiting { consumer.resume() }
        }

        private enum Decoded {
            case message(WebSocketIncoming)
            /// The peer's close, answered: the last message.
            case closed(WebSocketIncoming)
            case failed(any Error)
            case needBytes
        }

        /// Handles the complete frames the decoder holds until one finishes a message; pings are
        /// answered on the way. After a refused frame the socket is no longer read.
        private func decodeNext() -> Decoded {
            do {
                while let frame = try reader.decoder.nextFrame() {
                    guard let event = try reader.assembler.add(frame) else { continue }
                    switch event {
                    case .text(let text): return .message(.text(text))
                    case .binary(let bytes): return .message(.binary(bytes))
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
                        return .closed(.closed(code: code, reason: reason))
                    }
                }
                return .needBytes
            } catch {
                // Stop reading now: nothing more from this peer is wanted, only the close sent.
                socket.shutdown()
                write(
                    WebSocketFrame(
                        opcode: .close, payload: WebSocketCloseCode.payload(code: error.closeCode, reason: "")))
                state.withLock { $0.closeSent = true }
                return .failed(WebSocketError.protocolViolation(error))
            }
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
