import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilStore
import SybilTesting
import SybilTimeline
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: WebSocket echo and the SSE transport

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

/// A loopback server that answers the WebSocket handshake and echoes every message, or (for
/// the baselines) echoes raw bytes without any framing: as they come (`messageSize` nil), or
/// each `messageSize` bytes once all have come, as a message echo must.
///
/// The WebSocket echo does only what RFC 6455 asks of a peer, one unmasking pass besides the
/// kernel's copy: it reads into a reused 64 KiB buffer, from which the decoder unmasks what it
/// holds of a frame into the frame's own array; the rest of a longer payload is read straight
/// from the socket into that array (``WebSocketFrameDecoder/readPayload(_:)``) and unmasked in
/// place; header and payload go back with one gathered write. The raw echoes read into one
/// reused 1 MiB buffer and write from it. It is still a strict peer: every frame goes through
/// the decoder's checks, a refused frame is answered with its close code, pings with pongs,
/// and a close with a close.
func echoServer(webSocket: Bool, messageSize: Int? = nil) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request, connection in
        if webSocket {
            let accept = WebSocketHandshake.acceptValue(for: request.header("Sec-WebSocket-Key") ?? "")
            connection.write(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: \(accept)\r\n\r\n")
            webSocketEcho(connection)
            return
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        connection.write("HTTP/1.1 200 OK\r\n\r\n")  // the client starts echoing after this
        if let messageSize {
            var message = [UInt8](repeating: 0, count: messageSize)
            while true {
                var filled = 0
                while filled < messageSize {
                    let count = connection.read(into: &message, at: filled)
                    if count <= 0 { return }
                    filled += count
                }
                guard connection.write(message[...]) else { return }
            }
        }
        while true {
            let count = connection.read(into: &buffer)
            if count == 0 { return }
            guard connection.write(buffer[0..<count]) else { return }
        }
    }
}

/// Echoes a client's frames until it closes or breaks the protocol: the WebSocket side of
/// ``echoServer(webSocket:messageSize:)``.
func webSocketEcho(_ connection: LoopbackHTTPServer.Connection) {
    var decoder = WebSocketFrameDecoder(expectMasked: true, maximumPayload: 1 << 24)
    // Headers, and frames that arrive whole with them, are read into this reused buffer: one
    // `recv` for a small frame, whose payload the decoder unmasks on its way out of it.
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        do {
            while let frame = try decoder.nextFrame() {
                switch frame.opcode {
                case .close:
                    connection.write(WebSocketFrame(opcode: .close, payload: frame.payload).encoded(maskingKey: nil))
                    return
                case .ping:
                    connection.write(WebSocketFrame(opcode: .pong, payload: frame.payload).encoded(maskingKey: nil))
                case .pong:
                    continue
                case .text, .binary, .continuation:
                    guard connection.write(frame.header(maskingKey: nil)[...], frame.payload[...]) else { return }
                }
            }
        } catch {
            connection.write(
                WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: error.closeCode, reason: ""))
                    .encoded(maskingKey: nil))
            return
        }
        if decoder.payloadAwaited > 0 {
            // The rest of a payload goes from the socket straight into its frame, unmasked there.
            let read = decoder.readPayload { target in
                let count = connection.read(into: target)
                return count > 0 ? count : nil
            }
            if !read { return }
        } else {
            let count = connection.read(into: &buffer)
            if count == 0 { return }
            decoder.append(buffer[0..<count])
        }
    }
}

/// Round trips of `size`-byte messages over a raw TCP echo: the baseline.
func rawEchoSeconds(port: UInt16, size: Int, count: Int, request: String) -> Double {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    var yes: Int32 = 1
    setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    _ = request.withCString { send(descriptor, $0, strlen($0), 0) }  // the server reads a request head first
    let payload = [UInt8](repeating: 0x61, count: size)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var answer: [UInt8] = []
    while !answer.ends(with: Array("\r\n\r\n".utf8)) {
        let got = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, 1, 0) }
        if got <= 0 { return .infinity }
        answer.append(buffer[0])
    }
    let start = clock.now
    for _ in 0..<count {
        var sent = 0
        while sent < size { sent += payload[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) } }
        var received = 0
        while received < size {
            let got = buffer.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, min($0.count, size - received), 0)
            }
            if got <= 0 { return .infinity }
            received += got
        }
    }
    return seconds(start.duration(to: clock.now))
}

/// Round trips of `size`-byte messages through ``SocketWebSocket`` to a WebSocket echo; with
/// `onConnection` the consumer runs on the connection's own executor (its I/O thread) instead
/// of the cooperative pool.
func webSocketEchoSeconds(size: Int, count: Int, onConnection: Bool) async throws -> Double? {
    let server = try echoServer(webSocket: true)
    let socket = try await SocketWebSocket.connect(
        to: URL(string: "ws://127.0.0.1:\(server.port)/echo")!,
        options: WebSocketOptions(maximumMessage: 1 << 24),
        random: SeededRandomSource(seed: 3), clock: ContinuousClock())
    defer { socket.close(code: 1000, reason: "") }
    if onConnection {
        return try await withTaskExecutorPreference(socket.executor) {
            try await echoRoundTrips(socket, size: size, count: count)
        }
    }
    return try await echoRoundTrips(socket, size: size, count: count)
}

/// Seconds for `count` round trips of `size`-byte binary messages; `nil` when an echo is wrong.
/// The payload's bytes repeat every 251 (a period prime to the masking key's 4), so a byte
/// unmasked with the wrong key byte or out of place shows: the first and the last echoes are
/// compared whole, every other by its length and its first and last 8 bytes (a whole
/// comparison of each would add a pass over the payload that the raw echo does not pay).
func echoRoundTrips(_ socket: SocketWebSocket<ContinuousClock>, size: Int, count: Int) async throws -> Double? {
    let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) }
    var iterator = socket.incoming.makeAsyncIterator()
    let start = clock.now
    for index in 0..<count {
        try socket.send(binary: payload)
        guard case .binary(let echoed)? = try await iterator.next(), echoed.count == size,
            echoed.prefix(8) == payload.prefix(8), echoed.suffix(8) == payload.suffix(8)
        else { return nil }
        if index == 0 || index == count - 1, echoed != payload { return nil }
    }
    return seconds(start.duration(to: clock.now))
}

/// Best of `repetitions` for each side, each run on a fresh connection, alternating: the
/// WebSocket echo with its consumer on the connection's executor (the ratio's figure) and on
/// the cooperative pool, and the two raw baselines.
///
/// `SYBIL_BENCH_WEBSOCKET_PROFILE=ws:KIB` (or `raw:KIB`) runs only the WebSocket echo with its
/// consumer on the connection's executor (or only the raw echo) at `KIB` KiB, 640 MiB each way,
/// for a profiler.
func benchmarkWebSocket() async {
    if let only = ProcessInfo.processInfo.environment["SYBIL_BENCH_WEBSOCKET_PROFILE"] {
        let parts = only.split(separator: ":")
        guard parts.count == 2, let kib = Int(parts[1]), kib > 0 else {
            caseFailed("websocket: SYBIL_BENCH_WEBSOCKET_PROFILE is ws:KIB or raw:KIB")
            return
        }
        let size = kib << 10
        let count = max(1, (640 << 20) / size)
        do {
            let elapsed: Double?
            if parts[0] == "raw" {
                let raw = try echoServer(webSocket: false)
                elapsed = rawEchoSeconds(port: raw.port, size: size, count: count, request: "GET / HTTP/1.1\r\n\r\n")
            } else {
                elapsed = try await webSocketEchoSeconds(size: size, count: count, onConnection: true)
            }
            guard let elapsed else {
                caseFailed("websocket: the echo went wrong")
                return
            }
            print(
                "websocket \(parts[0]) echo \(kib) KiB x \(count): \(format(Double(count) / elapsed, 0)) round trips/s")
        } catch {
            caseFailed("websocket: \(error)")
        }
        return
    }
    for (size, count) in [(16 << 10, scaled(2_000)), (1 << 20, scaled(100))] {
        do {
            var wsSeconds = Double.infinity
            var poolSeconds = Double.infinity
            var rawSeconds = Double.infinity
            var messageSeconds = Double.infinity
            for _ in 0..<repetitions {
                guard let elapsed = try await webSocketEchoSeconds(size: size, count: count, onConnection: true),
                    let pooled = try await webSocketEchoSeconds(size: size, count: count, onConnection: false)
                else {
                    caseFailed("websocket: the echo went wrong")
                    return
                }
                wsSeconds = min(wsSeconds, elapsed)
                poolSeconds = min(poolSeconds, pooled)
                let raw = try echoServer(webSocket: false)
                rawSeconds = min(
                    rawSeconds,
                    rawEchoSeconds(port: raw.port, size: size, count: count, request: "GET / HTTP/1.1\r\n\r\n"))
                let whole = try echoServer(webSocket: false, messageSize: size)
                messageSeconds = min(
                    messageSeconds,
                    rawEchoSeconds(port: whole.port, size: size, count: count, request: "GET / HTTP/1.1\r\n\r\n"))
            }
            let megabytes = Double(size * count) / 1_048_576
            print(
                "websocket echo \(size >> 10) KiB x \(count): \(format(Double(count) / wsSeconds, 0)) round trips/s, "
                    + "\(format(megabytes / wsSeconds, 0)) MiB/s each way; raw TCP echo \(format(Double(count) / rawSeconds, 0)) round trips/s; "
                    + "ratio \(format(rawSeconds / wsSeconds * 100, 1)) % of raw; raw TCP whole-message echo "
                    + "\(format(Double(count) / messageSeconds, 0)) round trips/s, ratio "
                    + "\(format(messageSeconds / wsSeconds * 100, 1)) %; consumer on the cooperative pool instead: "
                    + "\(format(Double(count) / poolSeconds, 0)) round trips/s, ratio \(format(rawSeconds / poolSeconds * 100, 1)) % "
                    + "(\(format(messageSeconds / poolSeconds * 100, 1)) % whole-message)")
        } catch {
            caseFailed("websocket: \(error)")
        }
    }
}
