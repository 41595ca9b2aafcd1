import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A handler's task belongs to its connection, over real sockets: a reset or the end of the
/// server's drain cancels it, a half-close does not stop the answers already asked for, and
/// the server's executor threads end with ``HTTPServer/shutdown(grace:)``. Every wait ends on
/// a signal the handler gives, never on a sleep.
@Suite("Connection-owned tasks", .timeLimit(.minutes(2)))
struct ConnectionOwnedTaskTests {
    @Test func aHandlerWhoseClientResetsTheConnectionIsCancelled() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try TransportClient(port: server.port)
        client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.started == 1 }))
        #expect(server.statistics.runningTasks == 1)
        client.reset()
        #expect(await handler.changed.wait(until: { handler.counts.cancelled == 1 }))
        #expect(await handler.changed.wait(until: { handler.counts.ended == 1 }))
        await server.shutdown(grace: .zero)
        #expect(server.statistics.runningTasks == 0)
    }

    @Test func shutdownCancelsARunningHandlerAndReturnsOnlyOnceItEnded() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try TransportClient(port: server.port)
        client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.started == 1 }))
        await server.shutdown(grace: .zero)
        // No waiting here: shutdown returned after the handler saw its cancellation and ended.
        #expect(handler.counts.cancelled == 1)
        #expect(handler.counts.ended == 1)
        #expect(server.statistics.runningTasks == 0)
        #expect(await blocking { client.readToEnd() }.isEmpty)
    }

    @Test func aHandlerThatIgnoresItsCancellationDoesNotHoldTheShutdown() async throws {
        let handler = OwnedTaskHandler()
        var configuration = HTTPServer.Configuration()
        configuration.taskStragglerLimit = .milliseconds(50)
        let server = try HTTPServer(configuration: configuration, handler: handler)
        let client = try TransportClient(port: server.port)
        client.send("GET /gate HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await handler.changed.wait(until: { handler.counts.started == 1 }))
        // The gate handler waits for its gate whatever happens: shutdown returns without it.
        await server.shutdown(grace: .zero)
        #expect(server.statistics.runningTasks == 1)
        handler.openGate()
        #expect(await handler.changed.wait(until: { handler.counts.cancelled == 1 }), "it was cancelled all along")
    }

    @Test func aStreamWhoseClientDisconnectsIsCancelled() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try TransportClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.read(until: "data: first\n\n") })
        client.close()
        #expect(await handler.changed.wait(until: { handler.counts.cancelled == 1 }))
        #expect(await handler.changed.wait(until: { handler.counts.ended == 1 }))
        await server.shutdown(grace: .zero)
        #expect(server.statistics.runningTasks == 0)
    }

    @Test func aHalfClosedClientGetsEveryPipelinedAnswerAndNoHandlerIsCancelled() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try TransportClient(port: server.port)
        client.send(
            "GET /gate HTTP/1.1\r\nHost: x\r\n\r\n"
                + String(repeating: "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", count: 4))
        #expect(await handler.changed.wait(until: { handler.counts.started == 1 }))
        // The end of input arrives while the first handler is still answering.
        client.shutdownWrite()
        handler.openGate()
        let statuses = await blocking { (0..<5).compactMap { _ in client.readStatus() } }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(handler.counts.cancelled == 0)
        await server.shutdown(grace: .zero)
    }

    @Test func executorThreadsStartAndStopWithTheServer() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        #expect(server.statistics.executorThreads == 2)
        let client = try TransportClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.readStatus() } == 200)
        // The handler ran on one of this server's threads, not the shared pool.
        #expect(handler.threadNames == ["sybil-server-0"] || handler.threadNames == ["sybil-server-1"])
        await server.shutdown()
        #expect(server.statistics.executorThreads == 0)
        #expect(server.statistics.runningTasks == 0)
    }
}

/// Routes for the tests: `/wait` answers only when cancelled, `/gate` once the test opens the
/// gate, `/stream` writes one event then waits to be cancelled, `/echo` at once. Every step
/// is counted and signalled on ``changed``.
private final class OwnedTaskHandler: HTTPHandler {
    struct Counts {
        var started = 0
        var cancelled = 0
        var ended = 0
    }

    let changed = ChangeSignal()
    private let state = Locked<
        (counts: Counts, gateOpen: Bool, gate: CheckedContinuation<Void, Never>?, names: [String])
    >(
        (Counts(), false, nil, []))

    var counts: Counts { state.withLock { $0.counts } }
    var threadNames: [String] { state.withLock { $0.names } }

    func bodyLimit(for head: HTTPRequestHead) -> Int { 1 << 10 }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, body: .bytes(Array(message.utf8)))
    }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let name = currentThreadName()
        state.withLock { $0.names.append(name) }
        switch request.path {
        case "/wait":
            step { $0.started += 1 }
            await untilCancelled()
            step { $0.ended += 1 }
            return HTTPServerResponse(status: 200, body: .bytes(Array("late".utf8)))
        case "/gate":
            step { $0.started += 1 }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let open = state.withLock { state -> Bool in
                    if !state.gateOpen { state.gate = continuation }
                    return state.gateOpen
                }
                if open { continuation.resume() }
            }
            if Task.isCancelled { step { $0.cancelled += 1 } }
            return HTTPServerResponse(status: 200, body: .bytes(Array("gate".utf8)))
        case "/stream":
            return HTTPServerResponse(
                status: 200,
                body: .stream { [self] stream in
                    step { $0.started += 1 }
                    stream.writeEvent(data: "first")
                    await untilCancelled()
                    step { $0.ended += 1 }
                })
        default:
            return HTTPServerResponse(status: 200, body: .bytes(Array("echo".utf8)))
        }
    }

    func openGate() {
        let gate = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.gateOpen = true
            defer { state.gate = nil }
            return state.gate
        }
        gate?.resume()
    }

    private func step(_ change: (inout Counts) -> Void) {
        state.withLock { change(&$0.counts) }
        changed.notify()
    }

    /// Suspends until the current task is cancelled, then counts it.
    private func untilCancelled() async {
        let waiter = Locked<(CheckedContinuation<Void, Never>?, Bool)>((nil, false))
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let cancelled = waiter.withLock { waiter -> Bool in
                    if !waiter.1 { waiter.0 = continuation }
                    return waiter.1
                }
                if cancelled { continuation.resume() }
            }
        } onCancel: {
            let continuation = waiter.withLock { waiter -> CheckedContinuation<Void, Never>? in
                waiter.1 = true
                defer { waiter.0 = nil }
                return waiter.0
            }
            continuation?.resume()
        }
        step { $0.cancelled += 1 }
    }
}

/// The name of the thread running the caller.
private func currentThreadName() -> String {
    Thread.current.name ?? ""
}

private func closeSocket(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

/// Runs `body` on a thread of its own (blocking socket reads) and returns what it returns.
private func blocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// A blocking TCP client that writes exact bytes and reads what the server sends, each read
/// bounded by a receive timeout so a broken server fails the test instead of hanging it.
/// `@unchecked Sendable`: one thread at a time uses it, and the test waits for that thread.
private final class TransportClient: @unchecked Sendable {
    private var descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        #if canImport(Glibc)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            closeSocket(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
    }

    deinit { close() }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Closes the sending half: the server reads the end of input.
    func shutdownWrite() { shutdown(descriptor, Int32(SHUT_WR)) }

    /// Closes the socket (a FIN, as a client that goes away cleanly).
    func close() {
        guard descriptor >= 0 else { return }
        closeSocket(descriptor)
        descriptor = -1
    }

    /// Closes the socket with a reset (SO_LINGER of zero), as a client that crashed would.
    func reset() {
        var immediately = linger(l_onoff: 1, l_linger: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &immediately, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    /// Reads until `text` has arrived; `false` at the end of input or a timeout first.
    func read(until text: String) -> Bool {
        let needle = Array(text.utf8)
        while true {
            if let range = find(needle) {
                buffer.removeSubrange(..<range.upperBound)
                return true
            }
            guard fill() else { return false }
        }
    }

    /// Reads one response with a Content-Length body and returns its status.
    func readStatus() -> Int? {
        let end = Array("\r\n\r\n".utf8)
        while find(end) == nil {
            guard fill() else { return nil }
        }
        guard let headEnd = find(end)?.upperBound else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeSubrange(..<headEnd)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else { return nil }
        var length = 0
        for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while buffer.count < length {
            guard fill() else { return nil }
        }
        buffer.removeSubrange(..<length)
        return status
    }

    /// Everything until the server closes (or the timeout).
    func readToEnd() -> [UInt8] {
        while fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    private func fill() -> Bool {
        guard descriptor >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func find(_ needle: [UInt8]) -> Range<Int>? {
        guard buffer.count >= needle.count else { return nil }
        for start in 0...(buffer.count - needle.count) where buffer[start..<start + needle.count].elementsEqual(needle)
        {
            return start..<start + needle.count
        }
        return nil
    }
}
