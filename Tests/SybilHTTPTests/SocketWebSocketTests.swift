import Foundation
import SybilCore
import SybilTesting
import Testing

@testable import SybilHTTP

@Suite("WebSocket client over a loopback server", .timeLimit(.minutes(2)))
struct SocketWebSocketTests {
    private func connect(
        _ server: LoopbackHTTPServer, clock: ManualClock = ManualClock(), options: WebSocketOptions = WebSocketOptions()
    )
        async throws -> SocketWebSocket<ManualClock>
    {
        try await SocketWebSocket.connect(
            to: server.webSocketURL, options: options, random: SeededRandomSource(seed: 5), clock: clock)
    }

    /// Everything received until the stream ends, and how it ended.
    private func drain(_ socket: SocketWebSocket<ManualClock>) async -> ([WebSocketIncoming], (any Error)?) {
        var received: [WebSocketIncoming] = []
        do {
            for try await item in socket.incoming { received.append(item) }
            return (received, nil)
        } catch {
            return (received, error)
        }
    }

    @Test func handshakeEchoAndNormalClose() async throws {
        let server = try WebSocketPeer.server { peer, _ in echoUntilClose(&peer) }
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer t0k3n")
        let socket = try await connect(server, options: WebSocketOptions(headers: headers))
        try socket.send(text: "Grüße")
        try socket.send(binary: [0, 1, 2, 255])
        socket.close(code: 1000, reason: "bye")
        let (received, error) = await drain(socket)
        #expect(error == nil)
        #expect(received == [.text("Grüße"), .binary([0, 1, 2, 255]), .closed(code: 1000, reason: "bye")])
        let request = try #require(server.received.first)
        #expect(request.requestLine == "GET /agent/stream?after=c-1 HTTP/1.1")
        #expect(request.header("Upgrade") == "websocket")
        #expect(request.header("Sec-WebSocket-Version") == "13")
        #expect(request.header("Authorization") == "Bearer t0k3n")
        #expect(throws: WebSocketError.closed) { try socket.send(text: "late") }
    }

    /// Writes sent from the caller's thread while nothing is queued, a large one only partly
    /// taken by the socket (its rest queued for the I/O thread from where the socket stopped),
    /// and small ones queued behind it: every byte arrives once, in order.
    @Test func largeAndSmallMessagesSentBackToBackArriveWholeAndInOrder() async throws {
        let server = try WebSocketPeer.server { peer, _ in echoUntilClose(&peer) }
        let socket = try await connect(server, options: WebSocketOptions(maximumMessage: 8 << 20))
        let messages: [[UInt8]] = [3 << 20, 1, 70_001, 5 << 20, 0, 16 << 10].enumerated().map { index, size in
            (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) }
        }
        for message in messages { try socket.send(binary: message) }
        var iterator = socket.incoming.makeAsyncIterator()
        for (index, message) in messages.enumerated() {
            let echoed = try await iterator.next()
            #expect(echoed == .binary(message), "message \(index)")
        }
        socket.close(code: 1000, reason: "")
        #expect(try await iterator.next() == .closed(code: 1000, reason: ""))
    }

    /// A large frame is masked and handed to the socket in pieces: two tasks sending large
    /// messages at once never get a piece of one frame between the pieces of another (the
    /// server would meet a broken frame and close): every message arrives whole, each task's
    /// in its order.
    @Test func largeMessagesSentFromTwoTasksAtOnceArriveWhole() async throws {
        let server = try WebSocketPeer.server { peer, _ in echoUntilClose(&peer) }
        let socket = try await connect(server, options: WebSocketOptions(maximumMessage: 1 << 20))
        let perTask = 6
        func message(task: Int, index: Int) -> [UInt8] {
            let size = 3 * SocketWebSocketSession.maskPiece + 4_099 * (index + 1)
            return (0..<size).map { UInt8(truncatingIfNeeded: $0 &* (task + 3) &+ index) }
        }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<2 {
                group.addTask {
                    for index in 0..<perTask { try? socket.send(binary: message(task: task, index: index)) }
                }
            }
        }
        var next = [0, 0]
        var iterator = socket.incoming.makeAsyncIterator()
        for _ in 0..<(2 * perTask) {
            guard case .binary(let echoed)? = try await iterator.next() else {
                Issue.record("the stream ended before every echo came")
                return
            }
            let task = (0..<2).first { next[$0] < perTask && echoed == message(task: $0, index: next[$0]) }
            guard let task else {
                Issue.record("an echo of \(echoed.count) bytes is no task's next message")
                return
            }
            next[task] += 1
        }
        #expect(next == [perTask, perTask])
        socket.close(code: 1000, reason: "")
        #expect(try await iterator.next() == .closed(code: 1000, reason: ""))
    }

    /// A consumer on the connection's own executor runs on its I/O thread, which resumes it
    /// with the bytes it read: messages of every size arrive whole and in order, and the
    /// closing handshake ends the stream there as it does on the cooperative pool.
    @Test func aConsumerOnTheConnectionsExecutorRunsOnItsIOThread() async throws {
        let server = try WebSocketPeer.server { peer, _ in echoUntilClose(&peer) }
        let socket = try await connect(server, options: WebSocketOptions(maximumMessage: 8 << 20))
        let messages: [[UInt8]] = [1, 16 << 10, 3 << 20, 0, 70_001].enumerated().map { index, size in
            (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ index) }
        }
        let (received, threads, error) = await withTaskExecutorPreference(socket.executor) {
            var received: [WebSocketIncoming] = []
            var threads: Set<String> = []
            var iterator = socket.incoming.makeAsyncIterator()
            // The body starts on the calling thread and moves to the preferred executor at a
            // suspension resumed through it; an echo already waiting in the inbox needs none, so
            // on a busy machine every message could otherwise be read without leaving the
            // calling thread. `Task.yield()` does not move it reliably (its continuation runs on
            // the global executor, which under load resumed the body there), so it waits once
            // for a continuation resumed by a task on the connection's executor, as the
            // connection's reads resume it.
            await withCheckedContinuation { (hop: CheckedContinuation<Void, Never>) in
                Task(executorPreference: socket.executor) { hop.resume() }
            }
            do {
                for message in messages {
                    try socket.send(binary: message)
                    if let echoed = try await iterator.next() { received.append(echoed) }
                    threads.insert(currentThreadName())
                }
                socket.close(code: 1000, reason: "")
                while let item = try await iterator.next() { received.append(item) }
                return (received, threads, (any Error)?.none)
            } catch {
                return (received, threads, error)
            }
        }
        #expect(error == nil)
        #expect(received == messages.map { .binary($0) } + [.closed(code: 1000, reason: "")])
        // The I/O thread names itself with `ThreadName`: Foundation's setter sometimes lost the
        // name on a busy machine, and the thread kept its creator's (`oot.default-qos`).
        #expect(threads == ["sybil-socket"])
    }

    /// Once the socket's I/O thread has ended, a task that prefers the connection's executor
    /// still runs: its jobs go to the global concurrent executor instead of a thread that is gone.
    @Test func theConnectionsExecutorHandsJobsOnAfterItsThreadEnded() async throws {
        let server = try WebSocketPeer.server { peer, _ in
            peer.send(WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: 1001, reason: "")))
            _ = peer.readFrame()
        }
        let socket = try await connect(server)
        let (received, _) = await drain(socket)
        #expect(received == [.closed(code: 1001, reason: "")])
        #expect(await ConditionWait.until(limit: .seconds(30)) { socket.hasEnded })
        let name = await withTaskExecutorPreference(socket.executor) {
            // A task preferring the executor starts with a job enqueued on it; it resumes this
            // one. Were the job kept for the thread that is gone, neither would ever run.
            await withCheckedContinuation { (hop: CheckedContinuation<Void, Never>) in
                Task(executorPreference: socket.executor) { hop.resume() }
            }
            return currentThreadName()
        }
        #expect(name != "sybil-socket")
    }

    @Test func fragmentedMessagesWithAPingBetweenAndTheAnsweringPong() async throws {
        let server = try WebSocketPeer.server { peer, _ in
            peer.send(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)))
            peer.send(WebSocketFrame(opcode: .ping, payload: Array("p1".utf8)))
            peer.send(WebSocketFrame(fin: true, opcode: .continuation, payload: Array("lo".utf8)))
            let pong = peer.readFrame()
            peer.reportPongAndClose(pong)
        }
        let socket = try await connect(server)
        let (received, error) = await drain(socket)
        #expect(error == nil)
        #expect(received == [.text("Hello"), .text("pong:p1"), .closed(code: 1000, reason: "")])
    }

    /// Frames are decoded as the consumer asks; one that is not asking still has the server's
    /// pings answered at each keepalive tick, which keeps the messages it decodes for later.
    @Test func aKeepaliveTickAnswersPingsWhileTheConsumerIsNotReading() async throws {
        let answered = Locked(false)
        let server = try WebSocketPeer.server { peer, _ in
            _ = peer.readFrame()  // the client's "go": the frames below wait in its socket
            peer.send(WebSocketFrame(opcode: .text, payload: Array("before".utf8)))
            peer.send(WebSocketFrame(opcode: .ping, payload: Array("p1".utf8)))
            var pong: WebSocketFrame?
            while let frame = peer.readFrame() {  // the tick's own keepalive ping comes first
                if frame.opcode == .pong {
                    pong = frame
                    break
                }
            }
            answered.withLock { $0 = pong != nil }
            peer.reportPongAndClose(pong)
        }
        let clock = ManualClock()
        let socket = try await connect(server, clock: clock)
        // The server sends its frames on a message of ours, not on a tick's ping (a tick pings
        // first and then decodes, so frames sent in answer to its ping could arrive before or
        // after that decoding). Both (8 and 4 bytes) then wait in the socket: nobody asks for
        // them, and no tick has come yet.
        try socket.send(text: "go")
        #expect(await ConditionWait.until(limit: .seconds(30)) { socket.bufferedBytes >= 12 })
        #expect(!answered.withLock { $0 })
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(20))
        #expect(await ConditionWait.until(limit: .seconds(30)) { answered.withLock { $0 } })
        let (received, error) = await drain(socket)
        #expect(error == nil)
        #expect(received == [.text("before"), .text("pong:p1"), .closed(code: 1000, reason: "")])
    }

    /// Frames are decoded by the task that asks for a message: cancelling it while it waits
    /// for bytes closes the connection, and nothing more can be sent.
    @Test func cancellingATaskWaitingForAMessageClosesTheConnection() async throws {
        let closed = DispatchSemaphore(value: 0)
        let server = try WebSocketPeer.server { peer, _ in
            _ = peer.readFrame()  // nil once the client's TCP connection is gone
            closed.signal()
        }
        let socket = try await connect(server)
        let waiter = Task { () -> (any Error)? in
            var iterator = socket.incoming.makeAsyncIterator()
            do {
                _ = try await iterator.next()
                return nil
            } catch {
                return error
            }
        }
        #expect(await ConditionWait.until(limit: .seconds(30)) { socket.isReading })
        waiter.cancel()
        #expect(await waiter.value is CancellationError)
        #expect(closed.wait(timeout: .now() + 10) == .success, "the server saw the connection close")
        #expect(throws: WebSocketError.closed) { try socket.send(text: "late") }
    }

    @Test func theServersApplicationCloseCodeIsReportedAndEchoed() async throws {
        let server = try WebSocketPeer.server { peer, _ in
            peer.send(
                WebSocketFrame(
                    opcode: .close, payload: WebSocketCloseCode.payload(code: 4503, reason: "open proxy unavailable")))
            let echo = peer.readFrame()
            peer.sendRaw(Array("echo:\(echo.map { Int($0.payload[0]) << 8 | Int($0.payload[1]) } ?? -1)".utf8))
        }
        let socket = try await connect(server)
        let (received, _) = await drain(socket)
        #expect(received == [.closed(code: 4503, reason: "open proxy unavailable")])
    }

    struct Violation: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var code: UInt16
        var testDescription: String { name }
    }

    static let violationCases = [
        Violation(
            name: "invalid UTF-8", bytes: WebSocketFrame(opcode: .text, payload: [0xFF]).encoded(maskingKey: nil),
            code: 1007),
        Violation(
            name: "masked server frame",
            bytes: WebSocketFrame(opcode: .text, payload: Array("x".utf8)).encoded(maskingKey: [1, 2, 3, 4]), code: 1002
        ),
        Violation(name: "reserved opcode", bytes: [0x83, 0x00], code: 1002),
        Violation(
            name: "continuation without start",
            bytes: WebSocketFrame(opcode: .continuation, payload: []).encoded(maskingKey: nil), code: 1002),
        Violation(
            name: "too big",
            bytes: WebSocketFrame(opcode: .binary, payload: [UInt8](repeating: 0, count: 2_000)).encoded(
                maskingKey: nil), code: 1009),
    ]

    @Test("violations close the connection with their code", arguments: violationCases)
    func violations(violation: Violation) async throws {
        let bytes = violation.bytes
        let code = violation.code
        let server = try WebSocketPeer.server { peer, _ in
            peer.sendRaw(bytes)
            if let close = peer.readFrame(), close.opcode == .close {
                peer.send(WebSocketFrame(opcode: .text, payload: close.payload))  // tells nothing to a closed client
            }
        }
        let socket = try await connect(server, options: WebSocketOptions(maximumMessage: 1_000))
        let (_, error) = await drain(socket)
        guard case .protocolViolation(let found)? = error as? WebSocketError else {
            Issue.record("expected a protocol violation, got \(String(describing: error))")
            return
        }
        #expect(found.closeCode == code)
    }

    @Test func aWrongAcceptValueFailsTheHandshake() async throws {
        let server = try LoopbackHTTPServer { request, connection in
            WebSocketPeer.answer(request, on: connection, accept: "bm90IHRoZSByaWdodCB2YWx1ZQ==")
        }
        await #expect(throws: WebSocketError.self) { _ = try await connect(server) }
        let refused = try LoopbackHTTPServer { _, connection in
            connection.write("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
        }
        do {
            _ = try await connect(refused)
            Issue.record("connected despite a 401")
        } catch let error as WebSocketError {
            #expect(error == .handshake(#"the server did not switch protocols: "HTTP/1.1 401 Unauthorized""#))
        }
    }

    /// An answer whose lines end in a bare LF is refused as a malformed head (it used to be
    /// waited on for a CRLF CRLF that never came).
    @Test func anAnswerWithBareLineFeedsIsRefusedAsAMalformedHead() async throws {
        let server = try LoopbackHTTPServer { _, connection in
            connection.write("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\n\n")
        }
        do {
            _ = try await connect(server)
            Issue.record("connected despite a malformed answer")
        } catch let error as WebSocketError {
            #expect(
                error
                    == .handshake("the server's answer is not a valid HTTP/1.1 head: a bare LF in the response head"))
        }
    }

    @Test func keepalivePingsGoOutOnTheInjectedClock() async throws {
        let server = try WebSocketPeer.server { peer, _ in
            let ping = peer.readFrame()
            peer.send(
                WebSocketFrame(opcode: .text, payload: Array("got \(ping?.opcode == .ping ? "ping" : "other")".utf8)))
            peer.send(WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: 1001, reason: "")))
            _ = peer.readFrame()
        }
        let clock = ManualClock()
        let socket = try await connect(server, clock: clock, options: WebSocketOptions(pingInterval: .seconds(20)))
        #expect(await clock.waitForSleepers(count: 1))
        clock.advance(by: .seconds(20))
        let (received, _) = await drain(socket)
        #expect(received == [.text("got ping"), .closed(code: 1001, reason: "")])
    }

    @Test func aDroppedConnectionIsAnAbnormalClosure() async throws {
        let server = try WebSocketPeer.server { peer, _ in
            peer.send(WebSocketFrame(opcode: .text, payload: Array("bye".utf8)))
        }
        let socket = try await connect(server)
        let (received, error) = await drain(socket)
        #expect(received == [.text("bye")])
        guard case .connectionLost? = error as? WebSocketError else {
            Issue.record("expected connectionLost, got \(String(describing: error))")
            return
        }
    }

    @Test func requestHeadTakesTargetAndHostFromTheURL() {
        let handshake = WebSocketHandshake(key: "dGhlIHNhbXBsZSBub25jZQ==")
        let head = handshake.requestHead(for: URL(string: "wss://h:443/chat")!)
        #expect(
            head
                == "GET /chat HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        // A port other than the scheme's default is kept; no path is "/"; the query is kept.
        let other = handshake.requestHead(for: URL(string: "ws://h:444?x=1")!)
        #expect(other.hasPrefix("GET /?x=1 HTTP/1.1\r\nHost: h:444\r\n"))
        #expect(handshake.requestHead(for: URL(string: "ws://h:80/a")!).contains("\r\nHost: h\r\n"))
    }
}

@Suite("WebSocket client lifetime", .timeLimit(.minutes(2)))
struct SocketWebSocketLifetimeTests {
    @Test func droppingTheClientClosesTheConnection() async throws {
        let closed = DispatchSemaphore(value: 0)
        let server = try WebSocketPeer.server { peer, _ in
            _ = peer.readFrame()  // returns nil once the client's TCP connection is gone
            closed.signal()
        }
        do {
            _ = try await SocketWebSocket.connect(
                to: server.webSocketURL, random: SeededRandomSource(seed: 1), clock: ManualClock())
        }
        // Event-driven: the server thread signals when it sees the close (the bound only keeps a
        // regression from hanging the run).
        #expect(closed.wait(timeout: .now() + 10) == .success, "the server saw the connection close")
    }
}

/// The name of the thread running the caller.
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}

/// Sends every text and binary frame back, and answers a close with the same close.
private func echoUntilClose(_ peer: inout WebSocketPeer) {
    while let frame = peer.readFrame() {
        switch frame.opcode {
        case .text, .binary: peer.send(frame)
        case .close:
            peer.send(WebSocketFrame(opcode: .close, payload: frame.payload))
            return
        default: break
        }
    }
}
