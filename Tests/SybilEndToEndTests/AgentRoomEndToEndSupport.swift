import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire

/// The live stream connector (`SocketWebSocket`), recording the `after` of every connect.
final class RecordingStreamConnector: AgentRoomStreamConnector {
    private let inner: AgentRoomStreamSocketConnector<ManualClock>
    private let log = Locked<[String?]>([])

    init(clock: ManualClock) {
        inner = AgentRoomStreamSocketConnector(clock: clock, random: SeededRandomSource(seed: 13))
    }

    /// The `after` query item of each connect, in order (`nil`: none).
    var afters: [String?] { log.withLock { $0 } }

    func connect(to url: URL, headers: HTTPHeaders) async throws(AgentRoomStreamConnectError)
        -> any WebSocketConnection
    {
        let after = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "after" }
        log.withLock { $0.append(after?.value) }
        return try await inner.connect(to: url, headers: headers)
    }
}

/// A small Agent room server on loopback that says exactly what a test scripts: a text-only
/// descriptor, one page of history (with `hasMoreBefore`), `older` for every page asked with
/// `before`, nothing read, and for the n-th stream connection a 101 handshake and the n-th list
/// of frames (sent as they are, malformed ones included); a connection past the scripted ones
/// is refused with a 503. A stream stays open until the client closes it. One connection at a
/// time.
final class FakeAgentRoomServer: Sendable {
    private final class TargetLog: Sendable {
        let list = Locked<[String]>([])
        let olderPages = Locked(0)
    }

    let server: LoopbackHTTPServer
    private let targets = TargetLog()

    /// The request targets of the stream connections, in order.
    var streamTargets: [String] { targets.list.withLock { $0 } }

    /// How many pages were asked with `before`.
    var olderPageRequests: Int { targets.olderPages.withLock { $0 } }

    init(
        page: [AgentRoomMessage], hasMoreBefore: Bool = false, older: AgentRoomPage? = nil, streams: [[String]]
    ) throws {
        let writer = JSONWriter()
        let bodies = [
            "/agent/descriptor": writer.string(
                from: AgentRoomDescriptor(roomId: "room-main", title: "Sybil Agent", attachments: nil).jsonValue),
            "/agent/read": writer.string(from: AgentReadState(readCursor: nil, unread: 0).jsonValue),
            "/agent/messages": writer.string(
                from: AgentRoomPage(messages: page, nextCursor: page.last?.cursor, hasMoreBefore: hasMoreBefore)
                    .jsonValue),
        ]
        let olderBody = older.map { writer.string(from: $0.jsonValue) }
        let targets = targets
        server = try LoopbackHTTPServer { request, connection in
            let parts = request.requestLine.split(separator: " ")
            let target = parts.count > 1 ? String(parts[1]) : ""
            let path = String(target.split(separator: "?", maxSplits: 1).first ?? "")
            guard path == "/agent/stream" else {
                var body = bodies[path]
                if path == "/agent/messages", target.contains("before=") {
                    targets.olderPages.withLock { $0 += 1 }
                    body = olderBody
                }
                guard let body else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n\(body)")
                return
            }
            let index = targets.list.withLock { list -> Int in
                list.append(target)
                return list.count - 1
            }
            guard index < streams.count else {
                // Past the scripted connections: refused, so the REST calls are not held up.
                connection.write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            }
            let accept = WebSocketHandshake.acceptValue(for: request.header("Sec-WebSocket-Key") ?? "")
            connection.write(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Accept: \(accept)\r\n\r\n")
            for frame in streams[index] {
                connection.write(WebSocketFrame(opcode: .text, payload: Array(frame.utf8)).encoded(maskingKey: nil))
            }
            // Until the client closes: answer its close frame (0x88), then end the connection.
            while true {
                let bytes = connection.read()
                if bytes.isEmpty { return }
                if bytes.first == 0x88 {
                    connection.write(
                        WebSocketFrame(opcode: .close, payload: WebSocketCloseCode.payload(code: 1000, reason: ""))
                            .encoded(maskingKey: nil))
                    return
                }
            }
        }
    }
}
