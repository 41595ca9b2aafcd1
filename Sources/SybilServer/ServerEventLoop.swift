import SybilNet
import SybilWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What handler tasks ask of the loop; applied on the loop thread in order.
enum LoopCommand: Sendable {
    case respond(UInt64, HTTPServerResponse)
    case write(UInt64, [UInt8])
    case endStream(UInt64)
    case webSocket(UInt64, ServerWebSocket.Outgoing)
    case sessionEnded(UInt64)
    case shutdown(grace: Duration)
}

/// The single-threaded event loop behind ``HTTPServer``: accepts, reads, parses, dispatches
/// complete requests to handler tasks, writes their responses in order, streams, speaks
/// WebSocket, and enforces the limits and timeouts. Everything but ``post(_:)`` runs on the
/// loop thread; `@unchecked Sendable` because the thread is its only user.
final class ServerEventLoop: @unchecked Sendable {
    private let configuration: HTTPServer.Configuration
    private let handler: any HTTPHandler
    private let poller: EventPoller
    private let listener: Int32
    private let commands = Mutex<[LoopCommand]>([])
    private var connections: [UInt64: ServerConnection] = [:]
    private var nextID: UInt64 = 1
    private var drainDeadline: Duration?
    private var lastSweep = Duration.zero
    private var listenerPausedAt: Duration?
    private var readBuffer = [UInt8](repeating: 0, count: 64 << 10)
    private static let listenerToken: UInt64 = 0
    private static let lingerTime = Duration.seconds(2)
    private static let maximumPendingOutput = 16 << 20

    init(configuration: HTTPServer.Configuration, handler: any HTTPHandler, listener: Int32) throws(ServerError) {
        self.configuration = configuration
        self.handler = handler
        self.listener = listener
        poller = try EventPoller()
    }

    /// Queues `command` for the loop and wakes it; any thread.
    func post(_ command: LoopCommand) {
        let wasEmpty = commands.withLock { queue in
            queue.append(command)
            return queue.count == 1
        }
        if wasEmpty { poller.wake() }
    }

    /// Runs until a shutdown has drained every connection.
    func run() {
        poller.add(listener, token: Self.listenerToken, readable: true, writable: false)
        while true {
            let ready = poller.wait(timeoutMilliseconds: 25)
            for readiness in ready {
                if readiness.token == Self.listenerToken {
                    acceptPending()
                } else if let connection = connections[readiness.token] {
                    service(connection, readiness)
                }
            }
            for command in commands.withLock({ queue in
                defer { queue.removeAll() }
                return queue
            }) {
                apply(command)
            }
            let now = configuration.uptime()
            if now - lastSweep >= .milliseconds(25) {
                lastSweep = now
                sweep(now)
            }
            if let drainDeadline, connections.isEmpty || now >= drainDeadline { break }
        }
        for connection in Array(connections.values) { close(connection) }
    }

    // MARK: Accepting

    private func acceptPending() {
        defer {
            // Out of descriptors: the listener stays readable, so stop watching it for a moment
            // instead of spinning; the sweep watches it again.
            if errno == EMFILE || errno == ENFILE, listenerPausedAt == nil {
                listenerPausedAt = configuration.uptime()
                poller.modify(listener, token: Self.listenerToken, readable: false, writable: false)
            }
        }
        while let descriptor = ListeningSocket.accept(listener) {
            let id = nextID
            nextID += 1
            let parser = HTTPRequestParser(maximumHeadBytes: configuration.maximumHeadBytes) { [handler] head in
                handler.bodyLimit(for: head)
            }
            let connection = ServerConnection(
                id: id, descriptor: descriptor, parser: parser, now: configuration.uptime())
            connections[id] = connection
            poller.add(descriptor, token: id, readable: true, writable: false)
            if connections.count > configuration.maximumConnections {
                // Every connection beyond the limit is answered, never dropped silently: a
                // refused one reads nothing and lingers at most `lingerTime`, and running out of
                // descriptors pauses accepting (above), so the refused ones stay bounded too.
                connection.queue.append(
                    .refusal(status: 503, message: "The server is at its limit of connections; retry shortly."))
                connection.discardInput = true
                advance(connection)
            }
        }
    }

    // MARK: Readiness

    private func service(_ connection: ServerConnection, _ readiness: EventPoller.Readiness) {
        if readiness.writable { flush(connection) }
        guard connections[connection.id] != nil else { return }
        if readiness.readable || readiness.hungUp {
            if connection.watchingReadable {
                receive(connection)
            } else if readiness.hungUp {
                close(connection)
            }
        }
    }

    private func receive(_ connection: ServerConnection) {
        for _ in 0..<4 {
            let count = readBuffer.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                connection.lastActivity = configuration.uptime()
                consume(connection, count: count)
                guard connections[connection.id] != nil, connection.wantsInput else { break }
                if count < readBuffer.count { break }
            } else if count == 0 {
                peerClosedInput(connection)
                break
            } else {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { close(connection) }
                break
            }
        }
        updateInterest(connection)
    }

    private func consume(_ connection: ServerConnection, count: Int) {
        if connection.discardInput { return }
        switch connection.phase {
        case .lingering:
            return
        case .webSocket(let socket, _):
            connection.webSocketDecoder.append(readBuffer[..<count])
            readFrames(connection, socket)
        case .reading, .handling, .streaming:
            if connection.requestStarted == nil { connection.requestStarted = configuration.uptime() }
            do {
                // The requests before a malformed one are answered first, in order; then the
                // refusal, and the connection closes.
                var events: [HTTPRequestParser.Event] = []
                var parseError: HTTPParseError?
                do {
                    try connection.parser.feed(readBuffer[..<count], into: &events)
                } catch {
                    parseError = error
                }
                for event in events { try take(event, connection) }
                if let parseError { throw parseError }
                if connection.parser.isIdle { connection.requestStarted = nil }
            } catch let error as HTTPParseError {
                connection.partial = nil
                connection.queue.append(.refusal(status: error.status, message: error.description))
                connection.discardInput = true
            } catch {
                // A body consumer refused the request: answer, and read no more of it.
                connection.partial = nil
                connection.queue.append(
                    .refused((error as? HTTPBodyRefusal)?.response ?? handler.refusal(status: 400, message: "\(error)"))
                )
                connection.discardInput = true
            }
            advance(connection)
        }
    }

    /// Applies one parser event to the request being read: a body piece goes to the handler's
    /// consumer when it offered one (moved out while it works, so its buffers are never
    /// copied), else into the collected body.
    private func take(_ event: HTTPRequestParser.Event, _ connection: ServerConnection) throws(HTTPBodyRefusal) {
        switch event {
        case .head(let head):
            connection.partial = ServerConnection.Partial(head: head, consumer: handler.bodyConsumer(for: head))
            if head.headers["Expect"]?.lowercased() == "100-continue", case .reading = connection.phase,
                connection.queue.isEmpty
            {
                write(connection, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
        case .body(let bytes):
            guard var partial = connection.partial else { return }
            connection.partial = nil
            if var consumer = partial.consumer {
                partial.consumer = nil
                try consumer.consume(bytes)
                partial.consumer = consumer
            } else {
                partial.body.append(contentsOf: bytes)
            }
            connection.partial = partial
        case .end:
            guard var partial = connection.partial else { return }
            connection.partial = nil
            if var consumer = partial.consumer {
                partial.consumer = nil
                try consumer.finish()
                partial.consumer = consumer
            }
            connection.queue.append(
                .request(HTTPServerRequest(head: partial.head, body: partial.body, consumedBody: partial.consumer)))
        }
    }

    private func peerClosedInput(_ connection: ServerConnection) {
        connection.inputEnded = true
        switch connection.phase {
        case .reading:
            if connection.queue.isEmpty && connection.pendingOutput == 0 { close(connection) }
        case .handling:
            connection.keepAliveCurrent = false
        case .lingering, .streaming, .webSocket:
            close(connection)
        }
    }

    // MARK: Requests and responses

    /// Dispatches the next queued request when the connection is between responses.
    private func advance(_ connection: ServerConnection) {
        guard case .reading = connection.phase, !connection.queue.isEmpty else {
            if case .reading = connection.phase, connection.inputEnded, connection.pendingOutput == 0 {
                close(connection)
            }
            return
        }
        let next = connection.queue.removeFirst()
        switch next {
        case .refusal(let status, let message):
            connection.keepAliveCurrent = false
            connection.isHeadRequest = false
            connection.phase = .handling
            respond(connection, handler.refusal(status: status, message: message))
        case .refused(let response):
            connection.keepAliveCurrent = false
            connection.isHeadRequest = false
            connection.phase = .handling
            respond(connection, response)
        case .request(let request):
            connection.phase = .handling
            connection.keepAliveCurrent =
                request.head.keepAlive && drainDeadline == nil
                && !(connection.inputEnded && connection.queue.isEmpty)
            connection.isHeadRequest = request.method == "HEAD"
            let id = connection.id
            let handler = handler
            Task { [weak self] in
                let response = await handler.handle(request)
                self?.post(.respond(id, response))
            }
        }
    }

    private func apply(_ command: LoopCommand) {
        switch command {
        case .respond(let id, let response):
            guard let connection = connections[id], case .handling = connection.phase else { return }
            respond(connection, response)
        case .write(let id, let bytes):
            guard let connection = connections[id] else { return }
            switch connection.phase {
            case .streaming, .webSocket: write(connection, bytes)
            default: return
            }
        case .endStream(let id):
            guard let connection = connections[id], case .streaming = connection.phase else { return }
            write(connection, HTTPResponseWriter.lastChunk)
            finishResponse(connection)
        case .webSocket(let id, let outgoing):
            guard let connection = connections[id], case .webSocket = connection.phase else { return }
            switch outgoing {
            case .frame(let bytes): write(connection, bytes)
            case .close(let code, let reason): sendClose(connection, code: code, reason: reason)
            }
        case .sessionEnded(let id):
            guard let connection = connections[id], case .webSocket = connection.phase else { return }
            sendClose(connection, code: connection.webSocketPeerClose?.code ?? WebSocketCloseCode.normal, reason: "")
        case .shutdown(let grace):
            beginDrain(grace: grace)
        }
    }

    private func respond(_ connection: ServerConnection, _ response: HTTPServerResponse) {
        var headers = response.headers
        let id = connection.id
        switch response.body {
        case .bytes(let body):
            headers.set("Content-Length", String(body.count))
            if !connection.keepAliveCurrent { headers.set("Connection", "close") }
            var bytes = HTTPResponseWriter.head(status: response.status, headers: headers)
            if !connection.isHeadRequest { bytes.append(contentsOf: body) }
            write(connection, bytes)
            finishResponse(connection)
        case .stream(let producer):
            headers.set("Transfer-Encoding", "chunked")
            if !connection.keepAliveCurrent { headers.set("Connection", "close") }
            write(connection, HTTPResponseWriter.head(status: response.status, headers: headers))
            if connection.isHeadRequest {
                // The head a GET would get, and no body: the producer runs against a closed
                // stream so whatever it set up is released, and writes nothing.
                let closed = HTTPResponseStream { _ in }
                closed.markClosed()
                Task { await producer(closed) }.cancel()
                finishResponse(connection)
                return
            }
            let stream = HTTPResponseStream { [weak self] bytes in
                self?.post(.write(id, HTTPResponseWriter.chunk(bytes)))
            }
            let task = Task { [weak self] in
                await producer(stream)
                self?.post(.endStream(id))
            }
            connection.phase = .streaming(stream, task)
        case .webSocket where connection.isHeadRequest:
            // An upgrade needs GET (RFC 6455 §4.1); a HEAD never switches protocols.
            respond(
                connection,
                handler.refusal(status: 400, message: "A WebSocket upgrade must be a GET request, not HEAD."))
            return
        case .webSocket(let accept, let maximumMessage, let session):
            headers.set("Upgrade", "websocket")
            headers.set("Connection", "Upgrade")
            headers.set("Sec-WebSocket-Accept", accept)
            write(connection, HTTPResponseWriter.head(status: 101, headers: headers))
            connection.queue.removeAll()
            connection.webSocketDecoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: maximumMessage)
            connection.webSocketAssembler = WebSocketMessageAssembler(maximumMessage: maximumMessage)
            let socket = ServerWebSocket { [weak self] outgoing in self?.post(.webSocket(id, outgoing)) }
            let task = Task { [weak self] in
                await session(socket)
                self?.post(.sessionEnded(id))
            }
            connection.phase = .webSocket(socket, task)
            if drainDeadline != nil { sendClose(connection, code: WebSocketCloseCode.goingAway, reason: "") }
        }
        updateInterest(connection)
    }

    /// After a whole response: the next request, or the end of the connection.
    private func finishResponse(_ connection: ServerConnection) {
        if connection.keepAliveCurrent {
            connection.phase = .reading
            advance(connection)
        } else {
            connection.phase = .handling
            connection.closeAfterFlush = true
            if connection.pendingOutput == 0 { startLingering(connection) }
        }
    }

    // MARK: WebSocket

    private func readFrames(_ connection: ServerConnection, _ socket: ServerWebSocket) {
        do {
            while let frame = try connection.webSocketDecoder.nextFrame() {
                switch frame.opcode {
                case .ping:
                    write(connection, WebSocketFrame(opcode: .pong, payload: frame.payload).encoded(maskingKey: nil))
                case .pong:
                    continue
                case .close:
                    // The session sees the close, may finish what it was sending, and its
                    // end (or the sweep, if it lingers) sends our close frame. A close frame
                    // that breaks RFC 6455 §5.5.1/§7.4 throws: it is answered 1002 or 1007 below.
                    let (code, reason) = try WebSocketCloseCode.parse(closePayload: frame.payload)
                    connection.webSocketPeerClose = (
                        code == 1005 ? WebSocketCloseCode.normal : code, configuration.uptime()
                    )
                    connection.discardInput = true
                    socket.receive(.closed(code: code, reason: reason))
                    return
                default:
                    if let event = try connection.webSocketAssembler.add(frame) {
                        switch event {
                        case .text(let text): socket.receive(.text(text))
                        case .binary(let bytes): socket.receive(.binary(bytes))
                        default: continue
                        }
                    }
                }
            }
        } catch {
            socket.receive(.closed(code: error.closeCode, reason: error.message))
            sendClose(connection, code: error.closeCode, reason: error.message)
        }
    }

    private func sendClose(_ connection: ServerConnection, code: UInt16, reason: String) {
        guard !connection.webSocketCloseSent else { return }
        connection.webSocketCloseSent = true
        if case .webSocket(let socket, _) = connection.phase { socket.close(code: code, reason: reason) }
        let sendable = WebSocketCloseCode.mayBeSent(code) ? code : WebSocketCloseCode.protocolError
        let payload = WebSocketCloseCode.payload(
            code: sendable, reason: String(decoding: reason.utf8.prefix(120), as: UTF8.self))
        write(connection, WebSocketFrame(opcode: .close, payload: payload).encoded(maskingKey: nil))
        connection.closeAfterFlush = true
        if connection.pendingOutput == 0 { startLingering(connection) }
    }

    // MARK: Output

    private func write(_ connection: ServerConnection, _ bytes: [UInt8]) {
        guard !bytes.isEmpty, connections[connection.id] != nil else { return }
        if case .lingering = connection.phase { return }
        // A client that lets more than the limit pile up and still is sent more does not read:
        // cut it off. One large write on its own (a big download or message) is allowed.
        if connection.pendingOutput > Self.maximumPendingOutput {
            close(connection)
            return
        }
        connection.enqueue(bytes)
        flush(connection)
    }

    private func flush(_ connection: ServerConnection) {
        while connection.pendingOutput > 0 {
            let sent = connection.output.withUnsafeBytes { buffer in
                ListeningSocket.send(
                    connection.descriptor, UnsafeRawBufferPointer(rebasing: buffer[connection.outputOffset...]))
            }
            guard let sent else {
                close(connection)
                return
            }
            if sent == 0 { break }
            connection.outputOffset += sent
        }
        if connection.pendingOutput == 0 {
            connection.output.removeAll(keepingCapacity: connection.output.capacity <= 1 << 20)
            connection.outputOffset = 0
            if connection.closeAfterFlush {
                if case .lingering = connection.phase {} else { startLingering(connection) }
                return
            }
        }
        updateInterest(connection)
    }

    private func startLingering(_ connection: ServerConnection) {
        cancelWork(connection)
        connection.phase = .lingering(deadline: configuration.uptime() + Self.lingerTime)
        shutdown(connection.descriptor, Int32(SHUT_WR))
        if connection.inputEnded || drainDeadline != nil {
            close(connection)
        } else {
            updateInterest(connection)
        }
    }

    private func updateInterest(_ connection: ServerConnection) {
        guard connections[connection.id] != nil else { return }
        let readable = connection.wantsInput
        let writable = connection.pendingOutput > 0
        guard readable != connection.watchingReadable || writable != connection.watchingWritable else { return }
        connection.watchingReadable = readable
        connection.watchingWritable = writable
        poller.modify(connection.descriptor, token: connection.id, readable: readable, writable: writable)
    }

    private func cancelWork(_ connection: ServerConnection) {
        switch connection.phase {
        case .streaming(let stream, let task):
            stream.markClosed()
            task.cancel()
        case .webSocket(let socket, let task):
            socket.receive(.closed(code: 1006, reason: "the connection ended"))
            socket.markDisconnected()
            task.cancel()
        default:
            break
        }
    }

    private func close(_ connection: ServerConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        cancelWork(connection)
        poller.remove(connection.descriptor)
        closeDescriptor(connection.descriptor)
    }

    // MARK: Timeouts and shutdown

    private func sweep(_ now: Duration) {
        if let paused = listenerPausedAt, now - paused >= .milliseconds(100), drainDeadline == nil {
            listenerPausedAt = nil
            poller.modify(listener, token: Self.listenerToken, readable: true, writable: false)
        }
        for connection in Array(connections.values) {
            switch connection.phase {
            case .lingering(let deadline):
                if now >= deadline { close(connection) }
            case .reading:
                if let started = connection.requestStarted, now - started > configuration.requestTimeout {
                    connection.requestStarted = nil
                    connection.partial = nil
                    connection.discardInput = true
                    connection.queue.append(
                        .refusal(
                            status: 408,
                            message: "The request was not received within \(configuration.requestTimeout)."))
                    advance(connection)
                } else if connection.isIdle
                    && (drainDeadline != nil || now - connection.lastActivity > configuration.idleTimeout)
                {
                    close(connection)
                }
            case .webSocket:
                if let peerClose = connection.webSocketPeerClose, now - peerClose.at > Self.lingerTime {
                    sendClose(connection, code: peerClose.code, reason: "")
                }
            case .handling, .streaming:
                continue
            }
        }
    }

    private func beginDrain(grace: Duration) {
        guard drainDeadline == nil else { return }
        drainDeadline = configuration.uptime() + grace
        poller.remove(listener)
        closeDescriptor(listener)
        for connection in Array(connections.values) {
            connection.keepAliveCurrent = false
            switch connection.phase {
            case .streaming(let stream, let task):
                stream.markClosed()
                task.cancel()
            case .webSocket:
                sendClose(connection, code: WebSocketCloseCode.goingAway, reason: "server shutting down")
            case .reading:
                if connection.isIdle { close(connection) }
            case .lingering:
                close(connection)
            case .handling:
                continue
            }
        }
    }
}

#if canImport(Glibc)
    private func closeDescriptor(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#else
    private func closeDescriptor(_ descriptor: Int32) { _ = Darwin.close(descriptor) }
#endif
