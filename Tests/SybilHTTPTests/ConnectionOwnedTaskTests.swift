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
        let client = try RawClient(port: server.port)
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
        let client = try RawClient(port: server.port)
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
        let client = try RawClient(port: server.port)
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
        let client = try RawClient(port: server.port)
        client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.read(until: "data: first\n\n") } != nil)
        client.close()
        #expect(await handler.changed.wait(until: { handler.counts.cancelled == 1 }))
        #expect(await handler.changed.wait(until: { handler.counts.ended == 1 }))
        await server.shutdown(grace: .zero)
        #expect(server.statistics.runningTasks == 0)
    }

    @Test func aHalfClosedClientGetsEveryPipelinedAnswerAndNoHandlerIsCancelled() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        let client = try RawClient(port: server.port)
        client.send(
            "GET /gate HTTP/1.1\r\nHost: x\r\n\r\n"
                + String(repeating: "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", count: 4))
        #expect(await handler.changed.wait(until: { handler.counts.started == 1 }))
        // The end of input arrives while the first handler is still answering.
        client.shutdownWrite()
        handler.openGate()
        let statuses = await blocking { (0..<5).compactMap { _ in client.readResponse()?.status } }
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(await blocking { client.readToEnd() }.isEmpty)
        #expect(handler.counts.cancelled == 0)
        await server.shutdown(grace: .zero)
    }

    @Test func executorThreadsStartAndStopWithTheServer() async throws {
        let handler = OwnedTaskHandler()
        let server = try HTTPServer(configuration: HTTPServer.Configuration(), handler: handler)
        #expect(server.statistics.executorThreads == 2)
        let client = try RawClient(port: server.port)
        client.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await blocking { client.readResponse()?.status } == 200)
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
private final class OwnedTaskHandler: HTTPHandler, HTTPRoute {
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
