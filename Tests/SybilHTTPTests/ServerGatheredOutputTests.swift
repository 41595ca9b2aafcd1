import Dispatch
import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

/// Output a producer posts in one turn of the server's event loop is gathered and sent with one
/// send per connection. Over real loopback sockets: frames and chunks posted back to back
/// arrive whole and in order, also when the connection is closed in the same turn (the bytes
/// before the close arrive, then the close), and a client that reads nothing until the
/// server's send would block loses nothing and receives nothing twice once it reads.
///
/// The same turn is made certain, not hoped for: a second connection's request holds the
/// loop thread in its route's ``HTTPRoute/headResponse(for:)`` while the producer posts, so
/// every post waits in the loop's mailbox and all of them are applied in the next turn.
@Suite("Server event loop: output gathered in one turn", .timeLimit(.minutes(2)))
struct ServerGatheredOutputTests {
    /// How a WebSocket session ends after its burst.
    enum Ending: String, CaseIterable, Sendable {
        /// `close(code: 1000, reason: "done")`, posted in the same turn as the burst.
        case close
        /// The session returns; the transport closes with 1000 and no reason.
        case `return`
    }

    /// Binary and text frames around the length encodings' edges (7-bit, 16-bit, 64-bit), some
    /// large enough that one send on loopback may not take them all.
    private static let burst: [WebSocketFrame] = {
        let sizes = [0, 1, 125, 126, 127, 4_096, 65_535, 65_536, 65_537, 300_000, 17, 1_000_000, 3]
        var frames = sizes.enumerated().map { index, size in
            WebSocketFrame(opcode: .binary, payload: pattern(index, size: size))
        }
        frames.insert(WebSocketFrame(opcode: .text, payload: Array("first of the turn".utf8)), at: 0)
        frames.insert(WebSocketFrame(opcode: .text, payload: Array(String(repeating: "ü", count: 200).utf8)), at: 7)
        frames.append(WebSocketFrame(opcode: .text, payload: Array("last of the turn".utf8)))
        return frames
    }()

    /// Stream chunks of many sizes (none empty: an empty chunk would end the body).
    private static let chunks: [[UInt8]] = [1, 2, 15, 16, 255, 4_096, 65_536, 100_000, 7, 1_000_000, 9].enumerated()
        .map { index, size in pattern(index, size: size) }

    /// Bytes that differ from frame to frame and along each frame, so a byte lost, repeated or
    /// moved is seen.
    static func pattern(_ index: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        for offset in 0..<size { bytes[offset] = UInt8(truncatingIfNeeded: index &* 131 &+ offset &* 7 &+ offset >> 8) }
        // The index leads, where the frame is long enough for it.
        for (position, byte) in withUnsafeBytes(of: UInt32(index).bigEndian, Array.init).enumerated()
        where position < size {
            bytes[position] = byte
        }
        return bytes
    }

    private static func upgrade(_ path: String) -> String {
        "GET \(path) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// Every frame in `bytes`, which must end exactly after the last one.
    private static func frames(_ bytes: [UInt8]) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 24)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        let whole = frames.reduce(0) { $0 + $1.encoded(maskingKey: nil).count }
        #expect(whole == bytes.count, "no bytes after the last whole frame")
        return frames
    }

    /// Holds the loop thread (through `gate`, from a second connection) while `post` runs and
    /// every task of the server has ended, so all the producer posted is applied in one turn.
    /// `posted` says when the producer made its last post; by default when every task of the
    /// server has ended (a task ends after its last post, the session's end posted too).
    private static func inOneTurn(
        _ server: HTTPServer, gate: LoopGate, posted: (@MainActor () -> Bool)? = nil, post: () -> Void
    ) async throws -> RawClient {
        let holder = try RawClient(port: server.port)
        holder.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await gate.changes.wait(until: { gate.isHolding }), "the loop thread is held")
        post()
        #expect(await ConditionWait.until(posted ?? { server.statistics.runningTasks == 0 }))
        gate.open()
        return holder
    }

    /// A server over a ``GatherHandler`` and a client that sent `request` (a WebSocket upgrade
    /// is answered `101` before this returns); `start` lets the handler's session go on.
    private static func rig(
        _ request: String, slow: SlowSession = SlowSession(), progress: BurstProgress = BurstProgress()
    ) async throws -> (gate: LoopGate, start: AsyncStream<Void>.Continuation, server: HTTPServer, client: RawClient) {
        let gate = LoopGate()
        let (go, start) = AsyncStream<Void>.makeStream()
        let server = try HTTPServer(
            configuration: HTTPServer.Configuration(),
            handler: GatherHandler(gate: gate, go: go, slow: slow, progress: progress))
        let client = try RawClient(port: server.port)
        client.send(request)
        if request.contains("Upgrade: websocket") {
            #expect(await blocking { client.readResponse() }?.status == 101)
        }
        return (gate, start, server, client)
    }

    /// Fails if a frame posted in the turn is lost, cut, repeated or moved, if the close
    /// frame overtakes them or is missing (the close applied in the same turn dropping or
    /// jumping the gathered bytes), or if anything follows the close.
    @Test(arguments: Ending.allCases)
    func framesPostedInOneTurnArriveWholeInOrderThenTheClose(ending: Ending) async throws {
        let (gate, start, server, client) = try await Self.rig(Self.upgrade("/ws-burst-\(ending.rawValue)"))
        defer { gate.open() }

        let holder = try await Self.inOneTurn(server, gate: gate) { start.yield() }
        let received = try Self.frames(await blocking { client.readToEnd() })

        let expectedCode: UInt16 = 1000
        let expectedReason = ending == .close ? "done" : ""
        #expect(received.count == Self.burst.count + 1, "every frame, then the close")
        #expect(Array(received.prefix(Self.burst.count)) == Self.burst)
        let close = try #require(received.last)
        #expect(close.opcode == .close)
        let (code, reason) = try WebSocketCloseCode.parse(closePayload: close.payload)
        #expect(code == expectedCode)
        #expect(reason == expectedReason)
        #expect(await blocking { holder.readResponse() }?.status == 204)
        await server.shutdown(grace: .zero)
    }

    /// Frames posted in one turn with nothing else for the connection in that turn leave with
    /// the gathered send alone. Fails if that send never happens (nothing else would send them
    /// before the session's close, which waits for the client to have read them: the read
    /// times out), or if a frame is lost, cut, repeated or moved.
    @Test func framesPostedInOneTurnWithoutACloseLeaveInThatTurn() async throws {
        let progress = BurstProgress()
        let (gate, start, server, client) = try await Self.rig(Self.upgrade("/ws-burst-hold"), progress: progress)
        defer { gate.open() }

        let holder = try await Self.inOneTurn(
            server, gate: gate, posted: { progress.isPosted }, post: { start.yield() })
        let size = Self.burst.reduce(0) { $0 + $1.encoded(maskingKey: nil).count }
        let burst = try #require(await blocking { client.read(count: size) }, "the whole burst, before any close")
        #expect(try Self.frames(burst) == Self.burst)

        // Only now the session closes; the close is all that follows.
        start.yield()
        let rest = try Self.frames(await blocking { client.readToEnd() })
        #expect(rest.count == 1)
        #expect(rest.first?.opcode == .close)
        #expect(try rest.first.map { try WebSocketCloseCode.parse(closePayload: $0.payload).reason } == "later")
        #expect(await blocking { holder.readResponse() }?.status == 204)
        await server.shutdown(grace: .zero)
    }

    /// Fails if a chunk posted in the turn is lost, cut, repeated or moved, if the last chunk
    /// comes before them, or if the connection (closed after the response, `Connection: close`,
    /// in the same turn) ends before every byte of the body arrived.
    @Test func chunksPostedInOneTurnArriveWholeInOrderBeforeTheConnectionCloses() async throws {
        let (gate, start, server, client) = try await Self.rig(
            "GET /stream-burst HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        defer { gate.open() }
        let head = try #require(await blocking { client.read(until: "\r\n\r\n") })
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.lowercased().contains("transfer-encoding: chunked"))

        let holder = try await Self.inOneTurn(server, gate: gate) { start.yield() }
        // Everything up to the server's end of the connection, then split at the chunk sizes.
        var rest = await blocking { client.readToEnd() }[...]
        var received: [[UInt8]] = []
        while let lineEnd = rest.firstRange(of: [13, 10]) {
            let size = try #require(Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16))
            rest = rest[lineEnd.upperBound...]
            try #require(rest.count >= size + 2, "chunk \(received.count) whole")
            received.append(Array(rest.prefix(size)))
            #expect(Array(rest.dropFirst(size).prefix(2)) == [13, 10])
            rest = rest.dropFirst(size + 2)
            if size == 0 { break }
        }
        #expect(received == Self.chunks + [[]], "every chunk in order, then the last chunk")
        #expect(rest.isEmpty, "nothing after the last chunk")
        #expect(await blocking { holder.readResponse() }?.status == 204)
        await server.shutdown(grace: .zero)
    }

    /// Fails if, with a client that read nothing until the server's send would block (bytes
    /// left queued after a send, and the session waiting for room), any frame is lost,
    /// repeated, cut or moved once the client reads, or the close (sent while bytes still wait
    /// for the socket) does not come after all of them.
    @Test func aClientThatReadsOnlyOnceTheSocketIsFullGetsEveryFrameOnce() async throws {
        let slow = SlowSession()
        let (_, _, server, client) = try await Self.rig(Self.upgrade("/ws-slow"), slow: slow)

        // The kernel refused bytes (the loop's queue stays non-empty after a send) and the
        // session waits for room: the socket is full and the client has read nothing.
        #expect(
            await ConditionWait.until {
                let statistics = server.statistics
                return statistics.queuedOutputBytes > 0 && statistics.suspendedProducers == 1
            })
        slow.stop()
        let received = try Self.frames(await blocking { client.readToEnd() })

        let sent = try #require(slow.sentCount)
        #expect(sent > 0)
        #expect(received.count == sent + 1, "every frame once, then the close")
        var mismatched: [Int] = []
        for (index, frame) in received.prefix(sent).enumerated()
        where frame.opcode != .binary || frame.payload != SlowSession.payload(index) {
            mismatched.append(index)
        }
        #expect(mismatched.isEmpty, "frames out of place: \(mismatched.prefix(10))")
        let close = try #require(received.last)
        #expect(close.opcode == .close)
        #expect(try WebSocketCloseCode.parse(closePayload: close.payload).code == 1000)
        await server.shutdown(grace: .zero)
    }
}

/// Holds the event-loop thread inside a route's head answer until the test opens it.
final class LoopGate: Sendable {
    private let holding = Locked(false)
    private let signalled = Locked(false)
    private let opened = DispatchSemaphore(value: 0)
    /// Notified once the loop thread is held.
    let changes = ChangeSignal()

    /// Whether the loop thread is held now.
    var isHolding: Bool { holding.withLock { $0 } }

    /// On the loop thread: blocks it until ``open()``.
    func hold() {
        holding.withLock { $0 = true }
        changes.notify()
        opened.wait()
        holding.withLock { $0 = false }
    }

    /// Lets the loop thread go, now or when it comes to be held; once (again is harmless).
    func open() {
        guard
            signalled.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        opened.signal()
    }
}

/// Whether the session of `/ws-burst-hold` made its last post of the burst.
final class BurstProgress: Sendable {
    private let posted = Locked(false)

    var isPosted: Bool { posted.withLock { $0 } }
    func markPosted() { posted.withLock { $0 = true } }
}

/// What the slow reader's session sent, and when it should stop.
final class SlowSession: Sendable {
    private struct State {
        var stopRequested = false
        var sent: Int?
    }

    private let state = Locked(State())

    /// Frames in one burst, posted back to back: at most 8 × 15 KiB, so two bursts in flight
    /// stay under the 256 KiB high-water mark and a waiting session means a full socket.
    static let perBurst = 8

    /// The payload of frame `index`.
    static func payload(_ index: Int) -> [UInt8] {
        ServerGatheredOutputTests.pattern(index, size: 1 + (index &* 7_919) % (15 << 10))
    }

    func stop() { state.withLock { $0.stopRequested = true } }
    var stopRequested: Bool { state.withLock { $0.stopRequested } }
    func finished(sent: Int) { state.withLock { $0.sent = sent } }
    var sentCount: Int? { state.withLock { $0.sent } }
}

/// `/gate` holds the loop thread in its head answer; `/ws-burst-close` and `/ws-burst-return`
/// send the burst back to back once `go` yields and close or return; `/ws-burst-hold` sends it
/// once `go` yields and closes (1000, "later") when it yields again; `/stream-burst` writes the
/// chunks back to back once `go` yields and ends; `/ws-slow` sends bursts, waiting for room
/// before each, until told to stop, then closes.
private struct GatherHandler: HTTPHandler, HTTPRoute {
    let gate: LoopGate
    let go: AsyncStream<Void>
    let slow: SlowSession
    var progress = BurstProgress()

    func bodyLimit(for head: HTTPRequestHead) -> Int { 0 }

    func headResponse(for head: HTTPRequestHead) -> HTTPServerResponse? {
        guard head.path == "/gate" else { return nil }
        gate.hold()
        return HTTPServerResponse(status: 204)
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let accept = WebSocketHandshake.acceptValue(for: request.headers["Sec-WebSocket-Key"] ?? "")
        let go = go
        switch request.path {
        case "/ws-burst-close", "/ws-burst-return":
            let closes = request.path == "/ws-burst-close"
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: accept, maximumMessage: 1 << 16) { socket in
                    for await _ in go { break }
                    for frame in ServerGatheredOutputTests.burstFrames {
                        if frame.opcode == .text {
                            socket.send(text: String(decoding: frame.payload, as: UTF8.self))
                        } else {
                            socket.send(binary: frame.payload)
                        }
                    }
                    if closes { socket.close(code: 1000, reason: "done") }
                })
        case "/ws-burst-hold":
            let progress = progress
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: accept, maximumMessage: 1 << 16) { socket in
                    var waves = go.makeAsyncIterator()
                    _ = await waves.next()
                    for frame in ServerGatheredOutputTests.burstFrames {
                        if frame.opcode == .text {
                            socket.send(text: String(decoding: frame.payload, as: UTF8.self))
                        } else {
                            socket.send(binary: frame.payload)
                        }
                    }
                    progress.markPosted()
                    _ = await waves.next()
                    socket.close(code: 1000, reason: "later")
                })
        case "/stream-burst":
            return .eventStream { stream in
                for await _ in go { break }
                for chunk in ServerGatheredOutputTests.streamChunks { _ = stream.write(chunk) }
            }
        case "/ws-slow":
            let slow = slow
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: accept, maximumMessage: 1 << 16) { socket in
                    var index = 0
                    while !slow.stopRequested {
                        guard await socket.waitForRoom() else { return }
                        for _ in 0..<SlowSession.perBurst {
                            socket.send(binary: SlowSession.payload(index))
                            index += 1
                        }
                    }
                    slow.finished(sent: index)
                    socket.close(code: 1000, reason: "")
                })
        default:
            return HTTPServerResponse(status: 404)
        }
    }
}

extension ServerGatheredOutputTests {
    fileprivate static var burstFrames: [WebSocketFrame] { burst }
    fileprivate static var streamChunks: [[UInt8]] { chunks }
}
