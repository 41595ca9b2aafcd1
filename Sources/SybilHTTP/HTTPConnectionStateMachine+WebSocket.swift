extension HTTPConnectionStateMachine {
    /// The reason sent with 1013 (try again later) when the session leaves its inbox full too
    /// long: the server, not the client, fell behind.
    static let inboxStallReason = "server busy: messages from this connection waited too long"

    /// The session took messages weighing `weight` from its inbox: reading resumes once the
    /// inbox is at or below the low-water mark.
    mutating func webSocketConsumed(weight: Int, now: Duration, into actions: inout [Action]) {
        guard phase.isWebSocket else { return }
        inboxWeight = max(0, inboxWeight - weight)
        defer { updateInterest(&actions) }
        guard inboxStallDeadline != nil, inboxWeight <= limits.inboxLowWater else { return }
        inboxStallDeadline = nil
        // Frames read before reading stopped are decoded now.
        if input == .open { readFrames(now: now, into: &actions) }
    }

    /// The session sent a close frame; after a frame that broke RFC 6455 the close says so
    /// (1002 or 1007) whatever code the session chose.
    mutating func sessionClosed(code: UInt16, reason: String, now: Duration, into actions: inout [Action]) {
        guard phase.isWebSocket else { return }
        if let error = webSocketProtocolError {
            sendClose(code: error.code, reason: error.reason, now: now, into: &actions)
        } else {
            sendClose(code: code, reason: reason, now: now, into: &actions)
        }
        updateInterest(&actions)
    }

    /// The session returned: close with the code of the frame that broke RFC 6455, else the
    /// code the client sent, else 1000.
    mutating func sessionEnded(now: Duration, into actions: inout [Action]) {
        guard phase.isWebSocket else { return }
        if let error = webSocketProtocolError {
            sendClose(code: error.code, reason: error.reason, now: now, into: &actions)
        } else {
            sendClose(
                code: webSocketPeerClose?.code ?? WebSocketCloseCode.normal, reason: "", now: now, into: &actions)
        }
        updateInterest(&actions)
    }

    /// Decodes buffered frames until the inbox is full: pings are answered, messages
    /// delivered, the client's close frame delivered and echoed later (by the session's end
    /// or the linger deadline). A frame that breaks RFC 6455 ends reading the same way: the
    /// messages before it are the session's to take and answer, so its close (1002 or 1007)
    /// is sent when the session has taken them and ended, or at the linger deadline. Input
    /// after it is read and dropped, so waiting holds nothing more than the inbox already does.
    mutating func readFrames(now: Duration, into actions: inout [Action]) {
        do {
            while inboxStallDeadline == nil, let frame = try webSocketDecoder.nextFrame() {
                switch frame.opcode {
                case .ping:
                    write(
                        WebSocketFrame(opcode: .pong, payload: frame.payload).encoded(maskingKey: nil), into: &actions)
                case .pong:
                    continue
                case .close:
                    // A close frame that breaks RFC 6455 §5.5.1/§7.4 throws: answered 1002 or 1007.
                    let (code, reason) = try WebSocketCloseCode.parse(closePayload: frame.payload)
                    webSocketPeerClose = (code == WebSocketCloseCode.noStatus ? WebSocketCloseCode.normal : code, now)
                    discardInput()
                    actions.append(.deliver(.closed(code: code, reason: reason)))
                    return
                default:
                    let message: WebSocketIncoming
                    switch try webSocketAssembler.add(frame) {
                    case .text(let text): message = .text(text)
                    case .binary(let bytes): message = .binary(bytes)
                    default: continue
                    }
                    inboxWeight += ServerWebSocket.weight(of: message)
                    actions.append(.deliver(message))
                    if inboxWeight > limits.inboxHighWater {
                        // The session does not keep up: stop reading until it does.
                        inboxStallDeadline = now + limits.inboxStallTimeout
                    }
                }
            }
        } catch {
            discardInput()
            webSocketProtocolError = (error.closeCode, error.message, now)
            actions.append(.deliver(.closed(code: error.closeCode, reason: error.message)))
        }
    }

    /// A frame that broke RFC 6455, or the client's close frame, not answered within the
    /// linger time is answered now; an inbox still full at its deadline closes with 1013 (try
    /// again later): the session is overloaded, and the client may reconnect after a backoff.
    mutating func webSocketTick(now: Duration, into actions: inout [Action]) {
        guard !webSocketCloseSent else { return }
        if let error = webSocketProtocolError, now >= error.at + limits.lingerTime {
            sendClose(code: error.code, reason: error.reason, now: now, into: &actions)
        } else if let peerClose = webSocketPeerClose, now >= peerClose.at + limits.lingerTime {
            sendClose(code: peerClose.code, reason: "", now: now, into: &actions)
        } else if let deadline = inboxStallDeadline, now >= deadline {
            let code = WebSocketCloseCode.tryAgainLater
            actions.append(.deliver(.closed(code: code, reason: Self.inboxStallReason)))
            sendClose(code: code, reason: Self.inboxStallReason, now: now, into: &actions)
        }
    }

    /// Queues our close frame once (a code that must not be sent becomes 1002, the reason is
    /// cut to 120 bytes); the connection lingers once it is flushed.
    mutating func sendClose(code: UInt16, reason: String, now: Duration, into actions: inout [Action]) {
        guard !webSocketCloseSent, phase.isWebSocket else { return }
        webSocketCloseSent = true
        actions.append(.closeSession)
        let sendable = WebSocketCloseCode.mayBeSent(code) ? code : WebSocketCloseCode.protocolError
        let payload = WebSocketCloseCode.payload(
            code: sendable, reason: String(decoding: reason.utf8.prefix(120), as: UTF8.self))
        write(WebSocketFrame(opcode: .close, payload: payload).encoded(maskingKey: nil), into: &actions)
        if backlog == 0 { startLingering(now: now, into: &actions) }
    }
}
