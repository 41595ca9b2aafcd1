import Foundation
import SybilCore
import SybilNet
import SybilServer
import SybilTesting
import SybilWire
import Synchronization

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

    /// The parameters naming sess-42.
    static let chatParams = "\"desktopId\": \"desk-1\", \"projectId\": \"proj-app\", \"sessionId\": \"sess-42\""
}

/// Runs a streamed body's producer and collects what it writes (up to `limit` writes when
/// the stream would go on forever).
func collect(_ response: HTTPServerResponse, until stop: @escaping @Sendable ([UInt8]) -> Bool = { _ in false })
    async -> [UInt8]
{
    guard case .stream(let producer) = response.body else { return response.bodyBytes ?? [] }
    let collected = Mutex<[UInt8]>([])
    let stream = HTTPResponseStream { bytes in collected.withLock { $0.append(contentsOf: bytes) } }
    let task = Task { await producer(stream) }
    let watcher = Task {
        while !Task.isCancelled {
            if stop(collected.withLock { $0 }) {
                stream.markClosed()
                task.cancel()
                return
            }
            await Task.yield()
        }
    }
    await task.value
    watcher.cancel()
    return collected.withLock { $0 }
}

/// The events of an event-stream body.
func events(_ bytes: [UInt8]) -> [ServerSentEvent] {
    var parser = EventStreamParser()
    return parser.feed(bytes)
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
