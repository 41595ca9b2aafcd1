extension HTTPConnectionStateMachine {
    /// The handler answered the request being handled (or a refusal was made).
    mutating func responded(_ response: HTTPServerResponse, now: Duration, into actions: inout [Action]) {
        guard case .handling(let current) = phase else { return }
        defer { updateInterest(&actions) }
        switch response.body {
        case .bytes(let body):
            // One buffer for head and body, the handler's headers read as they are.
            let bytes = HTTPResponseWriter.whole(
                status: response.status, headers: response.headers, body: body, keepAlive: current.keepAlive,
                includeBody: !current.isHead)
            write(bytes, into: &actions)
            finishResponse(current, now: now, into: &actions)
        case .stream(let producer):
            var headers = response.headers
            headers.set("Transfer-Encoding", "chunked")
            if !current.keepAlive { headers.set("Connection", "close") }
            write(HTTPResponseWriter.head(status: response.status, headers: headers), into: &actions)
            if current.isHead {
                // The head a GET would get, and no body.
                actions.append(.discardStream(producer))
                finishResponse(current, now: now, into: &actions)
                return
            }
            guard case .handling = phase else { return }
            phase = .streaming(current)
            actions.append(.startStream(producer))
        case .webSocket where current.isHead:
            // An upgrade needs GET (RFC 6455 §4.1); a HEAD never switches protocols.
            actions.append(.refuse(status: 400, message: "A WebSocket upgrade must be a GET request, not HEAD."))
        case .webSocket(let accept, let maximumMessage, let session):
            var headers = response.headers
            headers.set("Upgrade", "websocket")
            headers.set("Connection", "Upgrade")
            headers.set("Sec-WebSocket-Accept", accept)
            write(HTTPResponseWriter.head(status: 101, headers: headers), into: &actions)
            guard case .handling = phase else { return }
            queue.removeAll()
            reading = .idle
            webSocketDecoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: maximumMessage)
            webSocketAssembler = WebSocketMessageAssembler(maximumMessage: maximumMessage)
            phase = .webSocket
            actions.append(.startWebSocket(session))
            if draining {
                sendClose(code: WebSocketCloseCode.goingAway, reason: "", now: now, into: &actions)
            }
        }
    }

    /// The connection is one too many: it is answered 503 and nothing it sends is read.
    mutating func refuseConnection(message: String, now: Duration, into actions: inout [Action]) {
        queue.append(.refusal(status: 503, message: message))
        discardInput()
        advance(now: now, into: &actions)
        updateInterest(&actions)
    }

    /// What else arrives is read and dropped (unless nothing more will arrive anyway).
    mutating func discardInput() {
        if input == .open { input = .discarding }
    }

    /// Feeds request bytes to the parser: the requests before a malformed one are answered
    /// first, in order; then the refusal, and the connection closes.
    mutating func parse(_ bytes: ArraySlice<UInt8>, now: Duration, into actions: inout [Action]) {
        if case .idle = reading { reading = .head(started: now) }
        // The events buffer is the machine's, emptied and kept between reads.
        var events: [HTTPRequestParser.Event] = []
        swap(&events, &parsedEvents)
        defer {
            events.removeAll(keepingCapacity: true)
            swap(&events, &parsedEvents)
        }
        var parseError: HTTPParseError?
        do {
            try parser.feed(bytes, into: &events)
        } catch {
            parseError = error
        }
        for (index, event) in events.enumerated() {
            do {
                // A parse error after the last event is about that event's request: a head
                // the parser refuses (a declared length over the limit) gets no 100 Continue.
                let refusedByParser = parseError != nil && index == events.count - 1
                try take(event, refusedByParser: refusedByParser, now: now, into: &actions)
            } catch {
                // A body consumer or the head's answer refused the request: answer, and read
                // no more of it.
                reading = .idle
                queue.append(.refused(error.response))
                discardInput()
                parseError = nil
                break
            }
        }
        // Every head this read completed was taken above, or is dropped with the refusal.
        resolvedRoutes.clear()
        if let parseError {
            reading = .idle
            queue.append(.refusal(status: parseError.status, message: parseError.description))
            discardInput()
        } else if parser.isIdle, case .head = reading {
            reading = .idle
        }
        advance(now: now, into: &actions)
    }

    /// Applies one parser event to the request being read. A head the handler answers at once
    /// is queued with that answer, its body dropped as it arrives when it is declared short,
    /// else refused (thrown) so the connection closes after the answer. A body piece goes to
    /// the handler's consumer when it offered one (moved out while it works, so its buffers
    /// are never copied), else into the collected body.
    private mutating func take(
        _ event: HTTPRequestParser.Event, refusedByParser: Bool, now: Duration, into actions: inout [Action]
    ) throws(HTTPBodyRefusal) {
        switch event {
        case .head(let head):
            let route = resolvedRoutes.take(head)
            if let answer = route.headResponse(for: head) {
                guard !refusedByParser, let length = Self.declaredBodyLength(head), length <= limits.maximumDrainedBody
                else { throw HTTPBodyRefusal(response: answer) }
                queue.append(.answeredAtHead(answer, keepAlive: head.keepAlive, isHead: head.method == "HEAD"))
                reading = .body(Partial(head: head, route: route, discarding: true, now: now))
                return
            }
            reading = .body(Partial(head: head, route: route, consumer: route.bodyConsumer(for: head), now: now))
            if head.headers["Expect"]?.lowercased() == "100-continue", phase.isReading, queue.isEmpty,
                !refusedByParser
            {
                write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), into: &actions)
            }
        case .body(let bytes):
            guard case .body(var current) = reading else { return }
            // Moved out while it grows, so its buffer is never copied.
            reading = .idle
            current.bodyReceived += bytes.count
            current.lastProgress = now
            if current.discarding {
                // Answered already: the bytes are dropped.
            } else if var consumer = current.consumer {
                current.consumer = nil
                try consumer.consume(bytes)
                current.consumer = consumer
            } else {
                current.body.append(contentsOf: bytes)
            }
            reading = .body(current)
        case .end:
            // Whatever follows in the parser starts the next request's head.
            let finished = reading
            reading = .head(started: now)
            guard case .body(var current) = finished, !current.discarding else { return }
            if var consumer = current.consumer {
                current.consumer = nil
                try consumer.finish()
                current.consumer = consumer
            }
            queue.append(
                .request(
                    HTTPServerRequest(head: current.head, body: current.body, consumedBody: current.consumer),
                    current.route))
        }
    }

    /// Dispatches the next queued request when the connection is between responses.
    mutating func advance(now: Duration, into actions: inout [Action]) {
        guard phase.isReading else { return }
        guard !queue.isEmpty else {
            if input == .ended, backlog == 0 {
                close(into: &actions)
            } else if draining, isIdle {
                close(into: &actions)
            }
            return
        }
        let next = queue.removeFirst()
        // The last request before the peer's half-close closes the connection.
        let lastRequest = draining || (input == .ended && queue.isEmpty)
        switch next {
        case .refusal(let status, let message):
            phase = .handling(Response(keepAlive: false, isHead: false))
            actions.append(.refuse(status: status, message: message))
        case .refused(let response):
            phase = .handling(Response(keepAlive: false, isHead: false))
            responded(response, now: now, into: &actions)
        case .answeredAtHead(let response, let keepAlive, let isHead):
            phase = .handling(Response(keepAlive: keepAlive && !lastRequest, isHead: isHead))
            responded(response, now: now, into: &actions)
        case .request(let request, let route):
            phase = .handling(
                Response(keepAlive: request.head.keepAlive && !lastRequest, isHead: request.method == "HEAD"))
            actions.append(.dispatch(request, route))
        }
    }

    /// The body length `head` declares: 0 without one, `nil` when chunked (unknown).
    static func declaredBodyLength(_ head: HTTPRequestHead) -> Int? {
        var length = 0
        for field in head.headers.fields {
            if HTTPHeaders.isNamed(field.name, "transfer-encoding") { return nil }
            if HTTPHeaders.isNamed(field.name, "content-length") { length = Int(field.value) ?? Int.max }
        }
        return length
    }

    /// After the whole `response`: the next request, or the end of the connection.
    mutating func finishResponse(_ response: Response, now: Duration, into actions: inout [Action]) {
        // A write that cut the client off has closed the connection already.
        guard !phase.isClosed else { return }
        if phase.isStreaming { actions.append(.stopWork) }
        if response.keepAlive {
            phase = .reading
            // Input was not read while the response was in progress: the request being read
            // is timed from now.
            switch reading {
            case .head: reading = .head(started: now)
            case .body(var partial):
                reading = .idle
                partial.restartClocks(now: now)
                reading = .body(partial)
            case .idle: break
            }
            advance(now: now, into: &actions)
        } else {
            var complete = response
            complete.complete = true
            phase = .handling(complete)
            if backlog == 0 { startLingering(now: now, into: &actions) }
        }
    }
}
