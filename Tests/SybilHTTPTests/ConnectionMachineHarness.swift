@testable import SybilHTTP

/// Drives one ``HTTPConnectionStateMachine`` by hand with a time that moves only when a test
/// says so, and renders its actions as short strings: `dispatch GET /a`, `refuse 408`,
/// `write HTTP/1.1 200 OK` (the first line of a response), `write ws close 1000`, `read off`…
struct ConnectionMachineHarness {
    typealias Machine = HTTPConnectionStateMachine
    var machine: Machine
    var now = Duration.zero
    /// Everything written so far, as text.
    var written = ""

    init(
        limits: Machine.Limits = Machine.Limits(requestTimeout: .seconds(10), idleTimeout: .seconds(60)),
        bodyLimit: Int = 1024,
        headResponse: @escaping @Sendable (HTTPRequestHead) -> HTTPServerResponse? = { _ in nil }
    ) {
        let route = HarnessRoute(limit: bodyLimit, answer: headResponse)
        machine = Machine(limits: limits, maximumHeadBytes: 16 << 10, route: { _ in route }, now: .zero)
    }

    mutating func read(_ text: String) -> [String] { read(Array(text.utf8)) }

    mutating func read(_ bytes: [UInt8]) -> [String] {
        run { $0.bytesRead(bytes[...], now: $1, into: &$2) }
    }

    mutating func respond(_ response: HTTPServerResponse) -> [String] {
        run { $0.responded(response, now: $1, into: &$2) }
    }

    mutating func respond(status: Int = 200, body: String = "") -> [String] {
        respond(HTTPServerResponse(status: status, body: .bytes(Array(body.utf8))))
    }

    /// Answers the refusal the machine asked for, as the loop does (with a JSON body, as the
    /// server's handlers answer one).
    mutating func refuse(status: Int) -> [String] {
        respond(.json(.object(["error": .object(["message": .string("refused")])]), status: status))
    }

    /// The loop sent everything (or left `remaining`).
    mutating func flushed(remaining: Int = 0) -> [String] {
        run { $0.flushed(remaining: remaining, now: $1, into: &$2) }
    }

    mutating func tick(at time: Duration) -> [String] {
        now = time
        return run { $0.tick(now: $1, into: &$2) }
    }

    mutating func halfClose() -> [String] { run { $0.peerHalfClosed(now: $1, into: &$2) } }

    mutating func shutdown() -> [String] { run { $0.shutdown(now: $1, into: &$2) } }

    mutating func produced(_ bytes: [UInt8]) -> [String] {
        run { machine, _, actions in machine.produced(bytes, into: &actions) }
    }

    mutating func streamEnded() -> [String] { run { $0.streamEnded(now: $1, into: &$2) } }

    mutating func overran() -> [String] { run { machine, _, actions in machine.producerOverran(into: &actions) } }

    mutating func sessionEnded() -> [String] { run { $0.sessionEnded(now: $1, into: &$2) } }

    mutating func sessionClosed(code: UInt16) -> [String] {
        run { $0.sessionClosed(code: code, reason: "", now: $1, into: &$2) }
    }

    mutating func consumed(_ weight: Int) -> [String] {
        run { $0.webSocketConsumed(weight: weight, now: $1, into: &$2) }
    }

    /// Upgrades the connection to a WebSocket whose messages may be `maximumMessage` long.
    mutating func upgrade(maximumMessage: Int = 1 << 16) -> [String] {
        _ = read("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n")
        let actions = respond(
            HTTPServerResponse(status: 101, body: .webSocket(accept: "a", maximumMessage: maximumMessage) { _ in }))
        _ = flushed()
        return actions
    }

    /// A masked client frame.
    static func frame(_ opcode: WebSocketFrame.Opcode, _ payload: [UInt8]) -> [UInt8] {
        WebSocketFrame(opcode: opcode, payload: payload).encoded(maskingKey: [1, 2, 3, 4])
    }

    private mutating func run(_ body: (inout Machine, Duration, inout [Machine.Action]) -> Void) -> [String] {
        var actions: [Machine.Action] = []
        body(&machine, now, &actions)
        return actions.map { describe($0) }
    }

    private mutating func describe(_ action: Machine.Action) -> String {
        switch action {
        case .dispatch(let request, _): return "dispatch \(request.method) \(request.head.target)"
        case .refuse(let status, _): return "refuse \(status)"
        case .write(let bytes):
            if bytes.starts(with: Array("HTTP/1.1 ".utf8)) || bytes.allSatisfy({ $0 < 0x80 && $0 >= 0x0A }) {
                let text = String(decoding: bytes, as: UTF8.self)
                written += text
                return "write " + (text.components(separatedBy: "\r\n").first ?? "")
            }
            var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 24)
            decoder.append(bytes)
            guard let frame = try? decoder.nextFrame() else { return "write \(bytes.count) bytes" }
            if frame.opcode == .close, frame.payload.count >= 2 {
                return "write ws close \(UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]))"
            }
            return "write ws \(frame.opcode) \(frame.payload.count)"
        case .startStream: return "startStream"
        case .discardStream: return "discardStream"
        case .startWebSocket: return "startWebSocket"
        case .deliver(let message):
            switch message {
            case .text(let text): return "deliver text \(text.utf8.count)"
            case .binary(let bytes): return "deliver binary \(bytes.count)"
            case .closed(let code, _): return "deliver closed \(code)"
            }
        case .closeSession: return "closeSession"
        case .stopWork: return "stopWork"
        case .shutdownWriting: return "shutdownWriting"
        case .close: return "close"
        case .readInterest(let on): return on ? "read on" : "read off"
        }
    }
}

/// The harness's route: a fixed body limit and an optional answer from the head; the machine
/// never runs a handler itself.
private struct HarnessRoute: HTTPRoute {
    let limit: Int
    let answer: @Sendable (HTTPRequestHead) -> HTTPServerResponse?

    func bodyLimit(for head: HTTPRequestHead) -> Int { limit }

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? { answer(head) }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse { HTTPServerResponse(status: 500) }
}
