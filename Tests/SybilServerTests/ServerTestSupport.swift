import Foundation
import SybilCore
import SybilHTTP
import SybilServer
import SybilTesting

/// Notified whenever the state of a transport-test fake changes (a ``Counter`` counts, a
/// ``TransportTestHandler`` holds a request).
let fakesChanged = ChangeSignal()

/// Returns whether `condition` over the fakes' state held before the limit: re-checked each
/// time a fake signals a change (``fakesChanged``), never polled.
func eventually(_ condition: () -> Bool) async -> Bool {
    await fakesChanged.wait(until: condition)
}

/// A handler for transport tests: `/echo` answers the body, `/stream` writes `count` events,
/// `/flood` writes 1 MiB blocks until the stream closes, `/hold` waits for `release()`, `/ws`
/// echoes WebSocket messages; other paths get 404.
final class TransportTestHandler: HTTPHandler, HTTPRoute {
    let bodyLimitBytes: Int
    private let held = Locked<[CheckedContinuation<Void, Never>]>([])
    private let streamsEnded = Counter()

    init(bodyLimitBytes: Int = 1024) {
        self.bodyLimitBytes = bodyLimitBytes
    }

    var heldCount: Int { held.withLock { $0.count } }
    var endedStreams: Int { streamsEnded.value }

    func release() {
        for waiter in held.withLock({ list in
            defer { list.removeAll() }
            return list
        }) { waiter.resume() }
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int { bodyLimitBytes }

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        switch request.path {
        case "/echo":
            var headers = HTTPHeaders()
            headers.set("X-Method", request.method)
            return HTTPServerResponse(status: 200, headers: headers, body: .bytes(request.body))
        case "/stream":
            let count = Int((try? request.queryValue("count")) ?? "3") ?? 3
            let forever = (try? request.queryValue("forever")) != nil
            return .eventStream { [streamsEnded] stream in
                defer { streamsEnded.increment() }
                stream.writeComment()
                var index = 0
                while index < count || forever {
                    guard stream.writeEvent(data: "event \(index)") else { return }
                    index += 1
                    if forever { try? await Task.sleep(for: .milliseconds(5)) }
                    if Task.isCancelled { return }
                }
            }
        case "/flood":
            return .eventStream { [streamsEnded] stream in
                defer { streamsEnded.increment() }
                let block = [UInt8](repeating: 0x61, count: 1 << 20)
                while stream.write(block) { await Task.yield() }
            }
        case "/hold":
            await withCheckedContinuation { continuation in
                held.withLock { $0.append(continuation) }
                fakesChanged.notify()
            }
            return HTTPServerResponse(status: 200, body: .bytes(Array("released".utf8)))
        case "/ws":
            let key = request.headers["Sec-WebSocket-Key"] ?? ""
            return HTTPServerResponse(
                status: 101,
                body: .webSocket(accept: WebSocketHandshake.acceptValue(for: key), maximumMessage: 1 << 16) { socket in
                    for await message in socket.incoming {
                        switch message {
                        case .text(let text): socket.send(text: text)
                        case .binary(let bytes): socket.send(binary: bytes)
                        case .closed: return
                        }
                    }
                })
        default:
            return APIError.notFound("No route \(request.path).").response
        }
    }

    func refusal(status: Int, message: String) -> HTTPServerResponse {
        APIError(status: status, message: message).response
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Locked(0)

    var value: Int { count.withLock { $0 } }

    func increment() {
        count.withLock { $0 += 1 }
        fakesChanged.notify()
    }
}
