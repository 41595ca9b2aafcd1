/// The rules of one server connection as a value: keep-alive, pipelined requests answered in
/// order (while a response is in progress, input is read only until the next request's head),
/// answers decided by a request's head (its body never buffered), 100-continue, refusals,
/// HEAD, streamed and WebSocket responses, the WebSocket close handshake, lingering close, the
/// head, body and idle timeouts, the output cut-off, the bounded WebSocket inbox and the
/// shutdown drain.
///
/// It makes no system call, starts no task and reads no clock: every input carries the time,
/// and every decision comes out as an ``Action`` the event loop carries out in order (and
/// ``nextDeadline`` says when it wants ``tick(now:into:)`` next). Writes are accounted for in
/// ``backlog`` until the loop reports them sent with ``flushed(remaining:now:into:)``.
struct HTTPConnectionStateMachine {
    /// Limits and timeouts.
    struct Limits: Sendable {
        /// A request's head must arrive whole within this time of its first byte (408
        /// otherwise). Its body has no total deadline: it is held to ``bodyIdleTimeout`` and
        /// ``minimumBodyRate`` instead, so a slow link that keeps sending is never cut off.
        var requestTimeout: Duration
        /// A connection with nothing in progress is closed after this long without input.
        var idleTimeout: Duration
        /// A body that receives no byte for this long is refused (408), as nginx's
        /// `client_body_timeout`.
        var bodyIdleTimeout = Duration.seconds(30)
        /// Once ``bodyRateGrace`` has passed since its head, a body must have averaged at least
        /// this many bytes per second (408 otherwise): each byte received buys `1 / rate`
        /// seconds more, as Apache's `mod_reqtimeout` `MinRate`.
        var minimumBodyRate = 1_024
        /// How long a body may take before ``minimumBodyRate`` applies.
        var bodyRateGrace = Duration.seconds(10)
        /// A request answered from its head (``HTTPRoute/headResponse(for:)``) whose declared
        /// body is at most this long keeps its connection: the body is read and dropped. A
        /// longer or chunked one is never read: the connection closes after the answer.
        var maximumDrainedBody = 64 << 10
        /// After our side is done, input is read and discarded this long before closing.
        var lingerTime = Duration.seconds(2)
        /// A client with more than this unsent and still sent more does not read: cut off.
        var maximumBacklog = 16 << 20
        /// Incoming WebSocket messages waiting for the session, by weight (payload bytes plus
        /// ``ServerWebSocket/messageOverhead`` each): reading stops above this.
        var inboxHighWater = 1 << 20
        /// Reading resumes once the session has taken the inbox down to this weight.
        var inboxLowWater = 256 << 10
        /// An inbox still full this long after reading stopped closes the connection (1013,
        /// try again later).
        var inboxStallTimeout = Duration.seconds(10)
    }

    /// What the loop must do, in order.
    enum Action {
        /// Run `route` for `request` (resolved from its head) and report its answer with
        /// ``responded(_:now:into:)``.
        case dispatch(HTTPServerRequest, any HTTPRoute)
        /// Ask the handler for its refusal response and report it at once.
        case refuse(status: Int, message: String)
        /// Queue `bytes` for sending.
        case write([UInt8])
        /// Run `producer` against a live stream; its writes come back through ``produced(_:)``
        /// and its end through ``streamEnded(now:into:)``.
        case startStream(@Sendable (HTTPResponseStream) async -> Void)
        /// Run `producer` against a closed stream (HEAD): it releases what it set up.
        case discardStream(@Sendable (HTTPResponseStream) async -> Void)
        /// Run `session` on a WebSocket; its frames come back through ``produced(_:)``.
        case startWebSocket(@Sendable (ServerWebSocket) async -> Void)
        /// Hand `message` to the session.
        case deliver(WebSocketIncoming)
        /// Our close frame is queued: drop the session's later sends.
        case closeSession
        /// The stream or session is over: close it and cancel its task.
        case stopWork
        /// Everything is sent: shut down our writing half.
        case shutdownWriting
        /// Close the connection; no further input is accepted.
        case close
        /// Watch the connection for input, or stop.
        case readInterest(Bool)
    }

    let limits: Limits
    var phase = Phase.reading
    var input = Input.open
    var reading = Reading.idle
    /// Bytes written and not yet reported sent.
    var backlog = 0
    /// Incoming WebSocket messages delivered and not yet taken by the session, by weight.
    var inboxWeight = 0
    var parser: HTTPRequestParser
    /// The routes the parser's body-limit question resolved, for their heads' events.
    let resolvedRoutes: ResolvedRoutes
    var queue: [Queued] = []
    /// The server is shutting down: no more keep-alive.
    var draining = false
    var lastActivity: Duration
    var webSocketDecoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 20)
    var webSocketAssembler = WebSocketMessageAssembler(maximumMessage: 1 << 20)
    /// Our close frame is queued: once flushed, the connection lingers.
    var webSocketCloseSent = false
    /// The client's close frame: the code to echo and when it arrived.
    var webSocketPeerClose: (code: UInt16, at: Duration)?
    /// A frame broke RFC 6455: the close code and reason owed, and when it arrived.
    var webSocketProtocolError: (code: UInt16, reason: String, at: Duration)?
    /// When a full inbox closes the connection; `nil` while the inbox has room.
    var inboxStallDeadline: Duration?
    private var readInterest = true
    /// The parser's events for one read, kept empty between reads so its storage is reused.
    var parsedEvents: [HTTPRequestParser.Event] = []

    /// A connection accepted at `now`, whose requests' heads `route` resolves (once each).
    init(
        limits: Limits, maximumHeadBytes: Int, route: @escaping @Sendable (HTTPRequestHead) -> any HTTPRoute,
        now: Duration
    ) {
        self.limits = limits
        let resolved = ResolvedRoutes(route)
        resolvedRoutes = resolved
        // The parser asks for a head's body limit as it reads the head, before this machine
        // takes the head's event: the route is resolved there, once, and handed on.
        parser = HTTPRequestParser(maximumHeadBytes: maximumHeadBytes) { head in
            resolved.resolve(head).bodyLimit(for: head)
        }
        lastActivity = now
    }

    /// The request whose body is arriving, when one is.
    var partial: Partial? {
        if case .body(let partial) = reading { return partial }
        return nil
    }

    /// Whether the loop should read from the connection now. While a response is handled or
    /// streamed, input is read only until the next request's head is complete (a body being
    /// dropped is read on): its body, and the requests after it, wait in the peer's socket
    /// until the response ends, instead of in memory for as long as a stream lives.
    var wantsInput: Bool {
        guard input != .ended, inboxStallDeadline == nil else { return false }
        switch phase {
        case .closed: return false
        case .handling, .streaming: return queue.isEmpty && (partial?.discarding ?? true)
        case .reading, .webSocket, .lingering: return true
        }
    }

    /// Whether nothing of a request is waiting or in progress.
    var isIdle: Bool {
        guard phase.isReading, queue.isEmpty, parser.isIdle, backlog == 0, case .idle = reading else { return false }
        return true
    }

    /// Request bytes read and held: the body being collected, the requests read ahead and
    /// waiting for their turn, and what the parser holds.
    var bufferedRequestBytes: Int {
        var held = parser.bufferedByteCount + (partial?.body.count ?? 0)
        for case .request(let request, _) in queue { held += request.body.count }
        return held
    }

    /// When ``tick(now:into:)`` has something to do next (`nil`: only other inputs matter).
    var nextDeadline: Duration? {
        switch phase {
        case .lingering(let deadline):
            return deadline
        case .reading:
            switch reading {
            case .body(let partial): return partial.deadline(limits)
            case .head(let started): return started + limits.requestTimeout
            case .idle:
                guard isIdle else { return nil }
                return draining ? lastActivity : lastActivity + limits.idleTimeout
            }
        case .webSocket:
            guard !webSocketCloseSent else { return nil }
            let echo = (webSocketProtocolError?.at ?? webSocketPeerClose?.at).map { $0 + limits.lingerTime }
            switch (echo, inboxStallDeadline) {
            case (let echo?, let stall?): return min(echo, stall)
            case (let echo, let stall): return echo ?? stall
            }
        case .handling, .streaming, .closed:
            return nil
        }
    }

    /// ``bufferedRequestBytes`` and ``nextDeadline`` together, for the loop after each step.
    /// `mutating` although it changes nothing: called through the loop's connection object it
    /// then reads the machine in place, where the two getters copied the whole machine (and
    /// retained and released everything it holds) on every request.
    mutating func settledState() -> (bufferedRequestBytes: Int, nextDeadline: Duration?) {
        (bufferedRequestBytes, nextDeadline)
    }

    /// ``wantsInput``, read in place by the loop between reads (`mutating` for the reason
    /// ``settledState()`` gives).
    mutating func wantsInputNow() -> Bool { wantsInput }

    // MARK: Inputs

    /// Bytes arrived at `now`.
    mutating func bytesRead(_ bytes: ArraySlice<UInt8>, now: Duration, into actions: inout [Action]) {
        guard !phase.isClosed else { return }
        lastActivity = now
        defer { updateInterest(&actions) }
        guard input == .open else { return }
        switch phase {
        case .lingering, .closed:
            return
        case .webSocket:
            webSocketDecoder.append(bytes)
            readFrames(now: now, into: &actions)
        case .reading, .handling, .streaming:
            parse(bytes, now: now, into: &actions)
        }
    }

    /// The peer closed its sending half (read returned 0).
    mutating func peerHalfClosed(now: Duration, into actions: inout [Action]) {
        guard !phase.isClosed else { return }
        input = .ended
        defer { updateInterest(&actions) }
        switch phase {
        case .reading:
            if queue.isEmpty && backlog == 0 { close(into: &actions) }
        case .handling(var response):
            // The requests already read are still answered, in order; the last of them closes.
            if queue.isEmpty {
                response.keepAlive = false
                phase = .handling(response)
            }
        case .lingering, .streaming, .webSocket:
            close(into: &actions)
        case .closed:
            return
        }
    }

    /// Reading or writing failed: the connection is gone.
    mutating func failed(into actions: inout [Action]) {
        close(into: &actions)
    }

    /// The loop sent what it could; `remaining` bytes are still unsent.
    mutating func flushed(remaining: Int, now: Duration, into actions: inout [Action]) {
        guard !phase.isClosed else { return }
        backlog = remaining
        defer { updateInterest(&actions) }
        guard remaining == 0 else { return }
        switch phase {
        case .handling(let response) where response.complete:
            startLingering(now: now, into: &actions)
        case .webSocket where webSocketCloseSent:
            startLingering(now: now, into: &actions)
        case .reading:
            advance(now: now, into: &actions)
        default:
            return
        }
    }

    /// The stream producer or WebSocket session wrote `bytes` (already framed).
    mutating func produced(_ bytes: [UInt8], into actions: inout [Action]) {
        switch phase {
        case .streaming: write(bytes, into: &actions)
        case .webSocket where !webSocketCloseSent: write(bytes, into: &actions)
        default: return
        }
    }

    /// The stream producer or WebSocket session offered more output while the backlog was
    /// above the limit (it does not wait for room and the client does not read): cut the
    /// client off, as ``write(_:into:)`` does when the loop itself sees the backlog.
    mutating func producerOverran(into actions: inout [Action]) {
        guard phase.isStreaming || phase.isWebSocket else { return }
        close(into: &actions)
    }

    /// The stream producer returned: the last chunk ends the response.
    mutating func streamEnded(now: Duration, into actions: inout [Action]) {
        guard case .streaming(let response) = phase else { return }
        write(HTTPResponseWriter.lastChunk, into: &actions)
        finishResponse(response, now: now, into: &actions)
        updateInterest(&actions)
    }

    /// The time is `now`: timeouts and deadlines that have come act.
    mutating func tick(now: Duration, into actions: inout [Action]) {
        defer { updateInterest(&actions) }
        switch phase {
        case .lingering(let deadline):
            if now >= deadline { close(into: &actions) }
        case .reading:
            switch reading {
            case .body(let current):
                guard now >= current.deadline(limits) else { return }
                reading = .idle
                input = .discarding
                // A body being dropped was answered already: nothing more to say.
                if current.discarding {
                    close(into: &actions)
                    return
                }
                let message =
                    now >= current.lastProgress + limits.bodyIdleTimeout
                    ? "The request body made no progress for \(limits.bodyIdleTimeout)."
                    : "The request body arrived slower than \(limits.minimumBodyRate) bytes per second."
                queue.append(.refusal(status: 408, message: message))
                advance(now: now, into: &actions)
            case .head(let started):
                guard now >= started + limits.requestTimeout else { return }
                reading = .idle
                input = .discarding
                queue.append(
                    .refusal(
                        status: 408, message: "The request head was not received within \(limits.requestTimeout)."))
                advance(now: now, into: &actions)
            case .idle:
                if isIdle && (draining || now >= lastActivity + limits.idleTimeout) { close(into: &actions) }
            }
        case .webSocket:
            webSocketTick(now: now, into: &actions)
        case .handling, .streaming, .closed:
            return
        }
    }

    /// The server is shutting down: no more keep-alive, streams end, WebSockets close with
    /// 1001, idle connections close now; a response in progress may finish.
    mutating func shutdown(now: Duration, into actions: inout [Action]) {
        guard !draining else { return }
        draining = true
        defer { updateInterest(&actions) }
        switch phase {
        case .streaming(var response):
            response.keepAlive = false
            phase = .streaming(response)
            actions.append(.stopWork)
        case .webSocket:
            sendClose(code: WebSocketCloseCode.goingAway, reason: "server shutting down", now: now, into: &actions)
        case .reading:
            if isIdle { close(into: &actions) }
        case .lingering:
            close(into: &actions)
        case .handling(var response):
            response.keepAlive = false
            phase = .handling(response)
        case .closed:
            return
        }
    }

    // MARK: Shared steps

    mutating func write(_ bytes: [UInt8], into actions: inout [Action]) {
        guard !bytes.isEmpty else { return }
        switch phase {
        case .lingering, .closed: return
        default: break
        }
        // A client that lets more than the limit pile up and still is sent more does not
        // read: cut it off. One large write on its own (a big download) is allowed.
        if backlog > limits.maximumBacklog {
            close(into: &actions)
            return
        }
        backlog += bytes.count
        actions.append(.write(bytes))
    }

    mutating func startLingering(now: Duration, into actions: inout [Action]) {
        if phase.isStreaming || phase.isWebSocket { actions.append(.stopWork) }
        phase = .lingering(deadline: now + limits.lingerTime)
        actions.append(.shutdownWriting)
        if input == .ended || draining { close(into: &actions) }
    }

    mutating func close(into actions: inout [Action]) {
        guard !phase.isClosed else { return }
        if phase.isStreaming || phase.isWebSocket { actions.append(.stopWork) }
        phase = .closed
        actions.append(.close)
    }

    mutating func updateInterest(_ actions: inout [Action]) {
        guard !phase.isClosed, wantsInput != readInterest else { return }
        readInterest = wantsInput
        actions.append(.readInterest(readInterest))
    }
}
