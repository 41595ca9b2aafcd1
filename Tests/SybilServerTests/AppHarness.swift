import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting
import SybilWire
import Testing

/// The reference server's handler in-process, on a manual clock, with in-memory storage and
/// no pacing: requests go straight to `handle`, streamed bodies are collected by running
/// their producers.
struct AppHarness {
    static let token = "test-token"
    static let epochBase: Int64 = 1_800_000_000_000
    let app: SybilServerApp
    let clock: ManualClock

    init(_ configure: (inout SybilServerOptions) -> Void = { _ in }) throws {
        let clock = ManualClock()
        var options = SybilServerOptions(token: Self.token)
        options.pace = .zero
        configure(&options)
        let time = ServerTime(clock: clock) {
            let (seconds, attoseconds) = clock.now.offset.components
            return Self.epochBase + seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
        app = try SybilServerApp(options: options, time: time)
        self.clock = clock
    }

    /// Sends a request with the right token unless `authorization` says otherwise.
    func send(
        _ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = [],
        authorization: String? = "Bearer \(AppHarness.token)"
    ) async -> HTTPServerResponse {
        var fields = headers
        if let authorization { fields.append(("Authorization", authorization)) }
        return await app.handle(HTTPServerRequest(method: method, target: target, headers: fields, body: body))
    }

    /// Sends JSON text as the body.
    func send(_ method: String, _ target: String, json: String) async -> HTTPServerResponse {
        await send(method, target, body: Array(json.utf8), headers: [("Content-Type", "application/json")])
    }

    /// Calls a desktop RPC method.
    func rpc(_ method: String, _ params: String, callKey: String? = nil) async -> HTTPServerResponse {
        let key = callKey.map { JSONWriter.quoted($0) } ?? "null"
        return await send(
            "POST", "/v1/workspaces/rpc",
            json: "{\"method\": \"\(method)\", \"callKey\": \(key), \"params\": \(params)}")
    }

    /// What moved the harness's work on: it slept on the clock, or nothing is in flight.
    enum Step { case slept, quiescent }

    /// Returns once something sleeps on the clock (`.slept`) or the app has no work in flight
    /// (`.quiescent`), whichever the code signals first.
    func nextStep() async -> Step {
        await withTaskGroup(of: Step.self) { group in
            group.addTask { [clock] in
                await clock.waitForSleepers(count: 1, limit: .seconds(3600))
                return .slept
            }
            group.addTask { [app] in
                await app.quiescent()
                return .quiescent
            }
            let first = await group.next() ?? .quiescent
            group.cancelAll()
            return first
        }
    }

    /// Advances the clock by `step` whenever the app's work sleeps on it until `condition`
    /// holds; records an issue when the app went quiescent with nothing asleep and the
    /// condition still false (nothing more would happen).
    func drive(
        step: Duration, until condition: () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        while try await !condition() {
            if await nextStep() == .quiescent, clock.sleeperCount == 0 {
                if try await condition() { return }
                Issue.record("the app went quiescent before the condition held", sourceLocation: sourceLocation)
                return
            }
            clock.advance(by: step)
        }
    }

    /// The parameters naming sess-42.
    static let chatParams = "\"desktopId\": \"desk-1\", \"projectId\": \"proj-app\", \"sessionId\": \"sess-42\""
}

/// Runs a streamed body's producer and collects what it writes (up to `limit` writes when
/// the stream would go on forever).
func collect(_ response: HTTPServerResponse, until stop: @escaping @Sendable ([UInt8]) -> Bool = { _ in false })
    async -> [UInt8]
{
    guard case .stream(let producer) = response.body else { return response.bodyBytes ?? [] }
    let collected = Locked<[UInt8]>([])
    let written = ChangeSignal()
    let stream = HTTPResponseStream { bytes in
        collected.withLock { $0.append(contentsOf: bytes) }
        written.notify()
    }
    let task = Task { await producer(stream) }
    // Re-checked on every write, so the reader stops right after the write that satisfied it.
    let watcher = Task {
        if await written.wait(until: { stop(collected.withLock { $0 }) }, limit: .seconds(3600)) {
            stream.markClosed()
            task.cancel()
        }
    }
    await task.value
    watcher.cancel()
    return collected.withLock { $0 }
}

/// The events of an event-stream body.
func events(_ bytes: [UInt8]) -> [ServerSentEvent] {
    var parser = EventStreamParser()
    do {
        return try parser.feed(bytes)
    } catch {
        Issue.record("the event stream was refused: \(error)")
        return []
    }
}

/// Strict JSON of a response body.
func json(_ response: HTTPServerResponse) throws -> JSONValue {
    try JSONReader().parse(response.bodyBytes ?? [])
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var int: Int64? {
        if case .number(let number) = self { return number.int64Value }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }
}

extension Optional where Wrapped == JSONValue {
    subscript(key: String) -> JSONValue? { self.flatMap { $0[key] } }
    subscript(index: Int) -> JSONValue? { self.flatMap { $0[index] } }
    var string: String? { self.flatMap(\.string) }
    var int: Int64? { self.flatMap(\.int) }
    var array: [JSONValue]? { self.flatMap(\.array) }
}
