import Foundation
import SybilCore
import SybilHTTP
import SybilTesting
import SybilWire

@testable import SybilServer

extension AppHarness {
    /// Sends a request the way the event loop does: when the app offers a body consumer for
    /// the head, the body is fed to it in `chunk`-byte pieces first (a refusal is the answer),
    /// and the handler gets the finished consumer. `consumed` says whether that happened.
    func sendStreamed(
        _ method: String, _ target: String, body: [UInt8], headers: [(String, String)] = [],
        chunk: Int = 64 << 10, authorization: String? = "Bearer \(AppHarness.token)"
    ) async -> (response: HTTPServerResponse, consumed: Bool) {
        var fields = headers
        if let authorization { fields.append(("Authorization", authorization)) }
        let head = HTTPRequestHead(method: method, target: target, minorVersion: 1, headers: HTTPHeaders(fields))
        guard var consumer = app.bodyConsumer(for: head) else {
            return (await app.handle(HTTPServerRequest(head: head, body: body)), false)
        }
        do {
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + chunk)
                try consumer.consume(Array(body[offset..<end]))
                offset = end
            }
            try consumer.finish()
        } catch {
            return (error.response, true)
        }
        return (await app.handle(HTTPServerRequest(head: head, consumedBody: consumer)), true)
    }

    /// Uploads `bytes` as the multipart form the route takes (`uploadId`, then `file`), sent
    /// whole to the handler.
    func uploadMultipart(
        id: String, bytes: [UInt8], name: String = "build log.txt", type: String = "text/plain", prefix: String = ""
    ) async -> HTTPServerResponse {
        let form = Self.uploadForm(id: id, bytes: bytes, name: name, type: type)
        return await send(
            "POST", prefix + "/agent/uploads", body: form.encoded(), headers: [("Content-Type", form.contentType)])
    }

    /// Uploads `bytes` the raw way (`X-Upload-Id`, `X-File-Name`, the body is the file).
    func uploadRaw(id: String, bytes: [UInt8], name: String = "build%20log.txt", type: String = "text/plain") async
        -> HTTPServerResponse
    {
        await send(
            "POST", "/agent/uploads", body: bytes,
            headers: [("X-Upload-Id", id), ("X-File-Name", name), ("Content-Type", type)])
    }

    /// The multipart body of an upload.
    static func uploadForm(id: String, bytes: [UInt8], name: String, type: String) -> MultipartFormData {
        MultipartFormData(
            boundary: "sybil-test-boundary-7MA4YWxkTrZu0gW",
            parts: [
                .init(name: "uploadId", body: Array(id.utf8)),
                .init(name: "file", fileName: name, contentType: type, body: bytes),
            ])
    }

    /// Submits a message (the Wire encoder writes the body).
    func submit(
        _ id: String, text: String = "Summarise the build failures.", attachments: [String] = [], prefix: String = ""
    )
        async -> HTTPServerResponse
    {
        let body = AgentRoomSubmission(
            requestId: id, text: text, createdAt: 1_764_400_200_000, attachments: attachments)
        return await send(
            "POST", prefix + "/agent/messages", body: JSONWriter().bytes(from: body.jsonValue),
            headers: [("Content-Type", "application/json")])
    }

    /// The whole history, decoded by the Wire page decoder.
    func history() async throws -> AgentRoomPage {
        try AgentRoomPage.decode(json(await send("GET", "/agent/messages?limit=200")), at: .root)
    }

    /// Returns once the agent has answered every stored turn.
    func waitUntilAgentIdle() async {
        await app.agentRoom.quiescent()
    }

    /// Stops the app's own work (the agent), as `ReferenceServer.shutdown` does.
    func shutdown() async {
        await app.shutdown()
    }

    /// Opens `agent/stream` in-process: the session runs on a task and its frames arrive
    /// decoded in ``AgentStreamProbe/frames``.
    func openStream(_ target: String = "/agent/stream") async throws -> AgentStreamProbe {
        let response = await send("GET", target, headers: Self.upgradeHeaders)
        guard case .webSocket(_, _, let session) = response.body else {
            throw APIError(status: response.status, message: "no WebSocket: \(response.status)")
        }
        return AgentStreamProbe(session: session)
    }

    /// The opening handshake's header fields.
    static let upgradeHeaders = [
        ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ]
}

/// One in-process Agent stream: what its session sends, decoded. Every text frame must
/// decode as an ``AgentStreamEvent`` (a frame that does not is reported as `.undecodable`).
final class AgentStreamProbe: Sendable {
    /// A frame the session sent.
    enum Frame: Sendable, Hashable {
        case event(AgentStreamEvent)
        case undecodable(String)
        case close(code: UInt16, reason: String)
        case ping
    }

    /// The frames in order; the stream ends when the session returns.
    let frames: AsyncStream<Frame>
    private let socket: ServerWebSocket
    private let task: Task<Void, Never>

    init(session: @escaping @Sendable (ServerWebSocket) async -> Void) {
        let (frames, continuation) = AsyncStream.makeStream(of: Frame.self)
        self.frames = frames
        let decoder = Locked(WebSocketFrameDecoder(expectMasked: false, maximumPayload: 1 << 20))
        let socket = ServerWebSocket { outgoing in
            switch outgoing {
            case .close(let code, let reason): continuation.yield(.close(code: code, reason: reason))
            case .frame(let bytes):
                let decoded = decoder.withLock { decoder -> WebSocketFrame? in
                    decoder.append(bytes)
                    return try? decoder.nextFrame()
                }
                guard let frame = decoded else { return }
                switch frame.opcode {
                case .text:
                    let text = String(decoding: frame.payload, as: UTF8.self)
                    if let event = try? AgentStreamEvent.decode(frame: text) {
                        continuation.yield(.event(event))
                    } else {
                        continuation.yield(.undecodable(text))
                    }
                case .ping: continuation.yield(.ping)
                default: break
                }
            }
        }
        self.socket = socket
        task = Task {
            await session(socket)
            continuation.finish()
        }
    }

    /// The client goes away: the session ends.
    func close() async {
        socket.receive(.closed(code: 1000, reason: ""))
        await task.value
    }

    /// Reads frames until `match` returns a value (or the stream ends: `nil`); the frames
    /// read on the way are returned too.
    func next<T>(_ iterator: inout AsyncStream<Frame>.Iterator, _ match: (Frame) -> T?) async -> (T?, [Frame]) {
        var seen: [Frame] = []
        while let frame = await iterator.next() {
            seen.append(frame)
            if let found = match(frame) { return (found, seen) }
        }
        return (nil, seen)
    }
}

/// Image headers built byte by byte, padded to a size.
enum ImageFixture {
    private static func bigEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func littleEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func padded(_ bytes: [UInt8], to size: Int?) -> [UInt8] {
        guard let size, size > bytes.count else { return bytes }
        return bytes + [UInt8](repeating: 0, count: size - bytes.count)
    }

    static func png(width: Int, height: Int, size: Int? = nil) -> [UInt8] {
        padded(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13, 4) + Array("IHDR".utf8)
                + bigEndian(width, 4) + bigEndian(height, 4) + [8, 6, 0, 0, 0, 0, 0, 0, 0], to: size)
    }

    static func jpeg(width: Int, height: Int) -> [UInt8] {
        [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [0xFF, 0xC0, 0x00, 0x11, 8] + bigEndian(height, 2) + bigEndian(width, 2)
            + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1] + [0xFF, 0xD9]
    }

    static func gif(width: Int, height: Int) -> [UInt8] {
        Array("GIF89a".utf8) + littleEndian(width, 2) + littleEndian(height, 2) + [0xF7, 0, 0, 0x3B]
    }

    static func webp(width: Int, height: Int) -> [UInt8] {
        let payload: [UInt8] = [0x10, 0, 0, 0] + littleEndian(width - 1, 3) + littleEndian(height - 1, 3)
        return Array("RIFF".utf8) + littleEndian(4 + 8 + payload.count, 4) + Array("WEBPVP8X".utf8)
            + littleEndian(payload.count, 4) + payload
    }
}
