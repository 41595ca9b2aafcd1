import Foundation
import SybilCore
import SybilHTTP
import SybilServer

/// What the simulated network does to one request.
enum NetworkFault: String, Sendable, CaseIterable {
    /// Delivered and answered.
    case none
    /// The connection resets before the server sees the request.
    case dropped
    /// A 503 from a proxy in front of the server (which never sees the request).
    case unavailable
    /// A 500 from a proxy in front of the server (which never sees the request).
    case serverError
    /// A 401 from a proxy that lost the session (the server never sees the request).
    case unauthorized
    /// The server does it, the connection resets before the answer arrives.
    case lostAnswer
    /// The request is held in the network: the client waits until it gives up; the driver later
    /// delivers it late (the server does it, nobody hears) or loses it.
    case held
    /// A streamed answer (an event stream) is cut part way: the connection resets.
    case cutStream
}

/// The network between the simulated phone and the reference server's handler: requests go
/// in process to `SybilServerApp.handle`, each under a fault drawn from a seeded plan. Each
/// route (path plus RPC method) draws from its own seeded sequence, so a route's requests
/// (serial in the client) meet the same faults in every run of a seed, whatever else runs.
final class SimulatedNetwork: HTTPClient {
    /// A request the network holds.
    private struct Held {
        let id: Int
        let request: HTTPServerRequest
        let waiter: ResponseWaiter
    }

    private struct State {
        var faultsOn = true
        var sources: [String: SeededRandomSource] = [:]
        var held: [Held] = []
        var nextHeld = 0
        var counts: [NetworkFault: Int] = [:]
        var requests = 0
        var trace: [String] = []
        var delivered: [String] = []
    }

    /// Transport failure of the simulated connection.
    struct ConnectionReset: Error, CustomStringConvertible {
        var description: String { "The connection was reset (simulated)." }
    }

    let app: SybilServerApp
    private let seed: UInt64
    private let faultPercent: UInt64
    private let heldRoutes: Set<String>
    private let state = Locked(State())
    private let signal: GenerationSignal

    /// A network to `app`; `faultPercent` of the requests meet a fault; only `heldRoutes` are
    /// ever held (a held request waits for the driver, so only routes whose caller gives up on
    /// its own clock are held). `signal` fires when a request is held or its client gives up.
    init(app: SybilServerApp, seed: UInt64, faultPercent: UInt64, heldRoutes: Set<String>, signal: GenerationSignal) {
        self.app = app
        self.seed = seed
        self.faultPercent = faultPercent
        self.heldRoutes = heldRoutes
        self.signal = signal
    }

    /// Turns faults on or off (off for the settle period).
    func setFaults(_ on: Bool) {
        state.withLock { $0.faultsOn = on }
    }

    /// How many requests met each fault.
    var counts: [NetworkFault: Int] { state.withLock { $0.counts } }

    /// What each request met, in order (`route fault operation`), for a failing seed's report.
    var trace: [String] { state.withLock { $0.trace } }

    /// The operation ids of the submissions the server received, in the order it received
    /// them (repeats included).
    var delivered: [String] { state.withLock { $0.delivered } }

    /// Requests sent in total.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Held requests whose client still waits for the answer.
    var waitingHeld: Int { state.withLock { $0.held.filter { $0.waiter.isWaiting }.count } }

    /// Requests held in the network.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Delivers the oldest held request late (the server does it; a client still waiting gets
    /// the answer) when `deliver`, or loses it; `false` when nothing is held.
    @discardableResult
    func releaseOldestHeld(deliver: Bool) async -> Bool {
        guard
            let held = state.withLock({ state -> Held? in
                state.held.isEmpty ? nil : state.held.removeFirst()
            })
        else { return false }
        note("late \(deliver ? "delivery" : "loss") \(Self.operation(in: held.request.body) ?? "")")
        if deliver {
            let response = await handle(held.request)
            held.waiter.finish(.success(response))
        } else {
            held.waiter.finish(.failure(ConnectionReset()))
        }
        return true
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let serverRequest = Self.serverRequest(request)
        let route = Self.route(of: request)
        let fault = decide(route)
        if let operation = Self.operation(in: serverRequest.body) {
            note("\(route.split(separator: " ").last ?? "") \(operation) \(fault.rawValue)")
        }
        switch fault {
        case .none:
            let response = await handle(serverRequest)
            guard case .stream = response.body else { return try Self.streaming(response) }
            return try streaming(response, cutAfter: cutPoint(route))
        case .dropped:
            throw ConnectionReset()
        case .unavailable:
            return try Self.streaming(Self.errorResponse(503, "The service is unavailable (simulated)."))
        case .serverError:
            return try Self.streaming(Self.errorResponse(500, "Internal error (simulated)."))
        case .unauthorized:
            return try Self.streaming(Self.errorResponse(401, "The session expired (simulated)."))
        case .lostAnswer:
            _ = await handle(serverRequest)
            throw ConnectionReset()
        case .held:
            return try await Self.streaming(hold(serverRequest))
        case .cutStream:
            // Drawn by `cutPoint(_:)` for answers that stream, never as a request's fault.
            throw ConnectionReset()
        }
    }

    /// For a streamed answer: after how many written pieces the connection is cut, or `nil`
    /// to let it run to its end (drawn from the route's own sequence, as its faults are).
    private func cutPoint(_ route: String) -> Int? {
        let seed = seed
        let faultPercent = faultPercent
        return state.withLock { state in
            guard state.faultsOn else { return nil }
            let source = state.sources[route] ?? SeededRandomSource(seed: seed ^ Self.hash(route))
            state.sources[route] = source
            guard source.next(below: 100) < faultPercent else { return nil }
            state.counts[.cutStream, default: 0] += 1
            return Int(source.next(below: 12))
        }
    }

    /// `response` as the client sees it; a streamed body (an event stream) runs its producer
    /// into the client's body and, with `cutAfter`, resets after that many pieces.
    private func streaming(_ response: HTTPServerResponse, cutAfter cut: Int?) throws -> HTTPStreamingResponse {
        guard case .stream(let producer) = response.body else { return try Self.streaming(response) }
        let head = HTTPResponseHead(status: response.status, headers: response.headers)
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let written = Locked(0)
        let writer = HTTPResponseStream { bytes in
            let count = written.withLock { count in
                count += 1
                return count
            }
            if let cut, count > cut {
                continuation.finish(throwing: ConnectionReset())
            } else {
                continuation.yield(bytes)
            }
        }
        let task = Task {
            await producer(writer)
            continuation.finish()
        }
        continuation.onTermination = { _ in
            writer.markClosed()
            task.cancel()
        }
        return HTTPStreamingResponse(head: head, body: body)
    }

    /// Hands `request` to the server, noting the submission it carries.
    private func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        if let operation = Self.operation(in: request.body) {
            state.withLock { $0.delivered.append(operation) }
        }
        return await app.handle(request)
    }

    func note(_ line: String) {
        state.withLock { $0.trace.append(line) }
    }

    /// The id a submission names: a desktop call's `params.operationId`, or an Agent room
    /// message's `requestId`.
    private static func operation(in body: [UInt8]) -> String? {
        guard case .object(let object)? = try? JSONReader().parse(body) else { return nil }
        if case .object(let params)? = object["params"], case .string(let operation)? = params["operationId"] {
            return operation
        }
        if case .string(let requestId)? = object["requestId"] { return requestId }
        return nil
    }

    private func decide(_ route: String) -> NetworkFault {
        let seed = seed
        let faultPercent = faultPercent
        let holdable = heldRoutes.contains(route)
        return state.withLock { state in
            state.requests += 1
            guard state.faultsOn else { return .none }
            let source =
                state.sources[route]
                ?? SeededRandomSource(seed: seed ^ Self.hash(route))
            state.sources[route] = source
            var fault = NetworkFault.none
            if source.next(below: 100) < faultPercent {
                let kinds: [NetworkFault] = [.dropped, .unavailable, .serverError, .unauthorized, .lostAnswer, .held]
                fault = kinds[Int(source.next(below: UInt64(kinds.count)))]
                if fault == .held && !holdable { fault = .lostAnswer }
            }
            state.counts[fault, default: 0] += 1
            return fault
        }
    }

    private func hold(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let waiter = ResponseWaiter()
        state.withLock { state in
            state.nextHeld += 1
            state.held.append(Held(id: state.nextHeld, request: request, waiter: waiter))
        }
        signal.fire()
        let signal = signal
        return try await withTaskCancellationHandler {
            try await waiter.wait()
        } onCancel: {
            // The client gave up; the request stays in the network.
            waiter.finish(.failure(CancellationError()))
            signal.fire()
        }
    }

    // MARK: Conversions

    private static func serverRequest(_ request: HTTPRequest) -> HTTPServerRequest {
        var target = request.url.path.isEmpty ? "/" : request.url.path
        if let query = request.url.query { target += "?" + query }
        return HTTPServerRequest(
            method: request.method, target: target, headers: request.headers.fields.map { ($0.name, $0.value) },
            body: request.body ?? [])
    }

    /// The path, plus the RPC method for the desktop's RPC route.
    static func route(of request: HTTPRequest) -> String {
        let path = request.url.path
        guard path.hasSuffix("/workspaces/rpc"), let body = request.body,
            case .object(let object)? = try? JSONReader().parse(body), case .string(let method)? = object["method"]
        else { return "\(request.method) \(path)" }
        return "\(request.method) \(path) \(method)"
    }

    private static func errorResponse(_ status: Int, _ message: String) -> HTTPServerResponse {
        .json(
            .object(["error": .object(["message": .string(message), "type": .string("server_error")])]),
            status: status)
    }

    private static func streaming(_ response: HTTPServerResponse) throws -> HTTPStreamingResponse {
        let head = HTTPResponseHead(status: response.status, headers: response.headers)
        switch response.body {
        case .bytes(let bytes):
            return HTTPStreamingResponse(
                head: head,
                body: AsyncThrowingStream { continuation in
                    if !bytes.isEmpty { continuation.yield(bytes) }
                    continuation.finish()
                })
        case .stream, .webSocket:
            // Streams are answered by the instance method; nothing simulated opens a WebSocket.
            throw ConnectionReset()
        }
    }

    /// FNV-1a of a route name (stable across runs, unlike `Hasher`).
    private static func hash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// The answer to a held request: resolved once, by the release or by the client giving up.
final class ResponseWaiter: Sendable {
    private struct State {
        var result: Result<HTTPServerResponse, any Error>?
        var continuation: CheckedContinuation<HTTPServerResponse, any Error>?
    }

    private let state = Locked(State())

    /// Whether nothing resolved it yet.
    var isWaiting: Bool { state.withLock { $0.result == nil } }

    /// Resolves it (the first call counts).
    func finish(_ result: Result<HTTPServerResponse, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPServerResponse, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    /// Waits for the result.
    func wait() async throws -> HTTPServerResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<HTTPServerResponse, any Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
