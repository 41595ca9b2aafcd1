import Foundation
import SybilCore
import SybilNet
import SybilWire

/// The Agent room surface (docs/api/agent-room.md): descriptor, history with cursors,
/// idempotent submission, the WebSocket stream with replay and canonical echoes, the shared
/// read position, and v1 uploads with authenticated original downloads.
final class AgentRoomService: Sendable {
    /// A live stream frame.
    enum Event: Sendable {
        case message(AgentMessage)
        case activity(state: String, detail: String)
        case read(sequence: Int64, unread: Int)

        var json: JSONValue {
            switch self {
            case .message(let message): ["type": "message", "message": message.json]
            case .activity(let state, let detail):
                ["type": "activity", "state": .string(state), "detail": .string(detail)]
            case .read(let sequence, let unread):
                [
                    "type": "read", "readCursor": sequence == 0 ? .null : .string(AgentMessage.cursor(sequence)),
                    "unread": .number(JSONNumber(Int64(unread))),
                ]
            }
        }
    }

    /// The v1 ceilings (docs/api/agent-room.md).
    enum Limits {
        static let maxFiles = 8
        static let maxTotalBytes = 32 << 20
        static let maxImageBytes = 6 << 20
        static let maxFileBytes = 8 << 20
        static let maxPixels = 50_000_000
        static let maxAxisPixels = 16_384
    }

    private let store: AgentRoomStore
    private let options: SybilServerOptions
    private let time: ServerTime
    private let agent: ScriptedAgent
    private let events = Broadcast<Event>()
    private let uploadLimiter: RateLimiter
    private let messageLimiter: RateLimiter

    init(store: AgentRoomStore, options: SybilServerOptions, time: ServerTime) {
        self.store = store
        self.options = options
        self.time = time
        agent = ScriptedAgent(seed: options.seed)
        uploadLimiter = RateLimiter(limit: options.uploadsPerMinute)
        messageLimiter = RateLimiter(limit: options.messagesPerMinute)
    }

    // MARK: Routes

    /// `GET agent/descriptor`.
    func descriptor() async throws -> HTTPServerResponse {
        let used = try await store.usedBytes()
        let limits: JSONValue = [
            "maxFiles": .number(JSONNumber(Int64(Limits.maxFiles))),
            "maxTotalBytes": .number(JSONNumber(Int64(Limits.maxTotalBytes))),
            "maxImageBytes": .number(JSONNumber(Int64(Limits.maxImageBytes))),
            "maxFileBytes": .number(JSONNumber(Int64(Limits.maxFileBytes))),
            "maxPixels": .number(JSONNumber(Int64(Limits.maxPixels))),
            "maxAxisPixels": .number(JSONNumber(Int64(Limits.maxAxisPixels))),
        ]
        return .json([
            "room": ["roomId": "room-main", "title": "Sybil Agent"],
            "capabilities": [
                "attachments": [
                    "version": 1, "limits": limits,
                    "quota": [
                        "usedBytes": .number(JSONNumber(used)), "limitBytes": .number(JSONNumber(options.quotaBytes)),
                    ],
                ]
            ],
        ])
    }

    /// `GET agent/messages?after=|before=&limit=`.
    func messages(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let after = try Self.cursorParameter(request, "after")
        let before = try Self.cursorParameter(request, "before")
        if after != nil && before != nil {
            throw APIError.invalid("Give 'after' or 'before', not both.", param: "before")
        }
        let limit = try Self.limitParameter(request)
        let page = try await store.messages(after: after, before: before, limit: limit)
        let next: JSONValue =
            page.messages.last.map { .string($0.cursor) } ?? request.queryValue("after").map { .string($0) } ?? .null
        return .json([
            "messages": .array(page.messages.map(\.json)), "nextCursor": next,
            "hasMoreBefore": .bool(page.hasMoreBefore),
        ])
    }

    /// `POST agent/messages`.
    func submit(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let body = try RequestBody.object(request.body)
        try body.rejectUnknownKeys(["requestId", "text", "createdAt", "attachments"])
        let requestId = try body.nonEmptyString("requestId")
        let text = try body.string("text")
        let createdAt = try body.integer("createdAt", in: 0...JSONValueReader.maxSafeInteger)
        var attachmentIds: [String] = []
        if let value = body.optionalValue("attachments") {
            guard case .array(let items) = value else {
                throw APIError.invalid("'attachments' must be an array of upload ids.", param: "attachments")
            }
            for (index, item) in items.enumerated() {
                guard case .string(let id) = item, !id.isEmpty else {
                    throw APIError.invalid(
                        "attachments[\(index)] must be a non-empty upload id.", param: "attachments[\(index)]")
                }
                attachmentIds.append(id)
            }
        }
        if attachmentIds.count > Limits.maxFiles {
            throw APIError.invalid("At most \(Limits.maxFiles) attachments per message.", param: "attachments")
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && attachmentIds.isEmpty {
            throw APIError.invalid("'text' must not be blank when there are no attachments.", param: "text")
        }
        let fingerprint = JSONWriter().string(
            from: [
                "text": .string(text), "createdAt": .number(JSONNumber(createdAt)),
                "attachments": .array(attachmentIds.map { .string($0) }),
            ])
        if try await !store.hasSubmission(requestId), let wait = messageLimiter.admit(now: time.uptime()) {
            throw Self.rateLimited("messages", wait: wait)
        }
        let submission = try await store.submit(
            requestId: requestId, text: text, createdAt: createdAt, attachmentIds: attachmentIds,
            fingerprint: fingerprint)
        if submission.created {
            events.publish(.message(submission.message))
            Task { [self] in await respond(to: submission.message) }
        }
        let receipt: JSONValue = [
            "receipt": [
                "requestId": .string(requestId), "messageId": .string(submission.message.messageId),
                "cursor": .string(submission.message.cursor),
                "attachments": .array(submission.message.attachments.map { .string($0.uploadId) }),
            ]
        ]
        return .json(receipt, status: submission.created ? 202 : 200)
    }

    /// `GET agent/read`.
    func read() async throws -> HTTPServerResponse {
        .json(Event.readBody(try await store.readState()))
    }

    /// `POST agent/read`.
    func markRead(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let body = try RequestBody.object(request.body)
        try body.rejectUnknownKeys(["cursor"])
        let cursor = try body.string("cursor")
        guard let sequence = AgentMessage.sequence(ofCursor: cursor), try await store.markRead(sequence) else {
            throw APIError.invalid(
                "'cursor' must be the cursor of a message in this room, got '\(cursor)'.", param: "cursor")
        }
        let state = try await store.readState()
        events.publish(.read(sequence: state.sequence, unread: state.unread))
        return .json(Event.readBody(state))
    }

    /// `GET agent/stream?after=` (WebSocket).
    func stream(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let accept = try WebSocketUpgrade.accept(request)
        let after = try Self.cursorParameter(request, "after") ?? 0
        return HTTPServerResponse(
            status: 101,
            body: .webSocket(accept: accept, maximumMessage: 64 << 10) { [self] socket in
                await runStream(socket, after: after)
            })
    }

    /// `POST agent/uploads`.
    func upload(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard options.openProxyAvailable else {
            throw APIError(
                status: 503, message: "Attachments are unavailable right now; text messages still work.",
                code: "open_proxy_unavailable", retryAfterSeconds: 30)
        }
        guard let uploadId = request.headers["X-Upload-Id"], !uploadId.isEmpty, uploadId.count <= 128,
            uploadId.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" })
        else {
            throw APIError.invalid(
                "X-Upload-Id must be an id of 1 to 128 visible ASCII characters without '/'.", param: "X-Upload-Id")
        }
        guard let encodedName = request.headers["X-File-Name"],
            case let fileName = HTTPServerRequest.percentDecoded(Substring(encodedName)),
            !fileName.trimmingCharacters(in: .whitespaces).isEmpty, !fileName.contains("/")
        else {
            throw APIError.invalid("X-File-Name must be a percent-encoded file name without '/'.", param: "X-File-Name")
        }
        guard let mimeType = request.headers["Content-Type"]?.split(separator: ";").first.map(String.init),
            mimeType.split(separator: "/").count == 2
        else {
            throw APIError.invalid("Content-Type must be the file's MIME type, e.g. text/plain.", param: "Content-Type")
        }
        let size = request.body.count
        let isImage = mimeType.lowercased().hasPrefix("image/")
        let limit = isImage ? Limits.maxImageBytes : Limits.maxFileBytes
        if size > limit {
            throw APIError(
                status: 413,
                message:
                    "\(fileName) is \(Self.mebibytes(size)); \(isImage ? "images" : "files") may be at most \(limit >> 20) MiB.",
                code: "too_large", param: "body",
                details: [
                    "limitBytes": .number(JSONNumber(Int64(limit))), "sizeBytes": .number(JSONNumber(Int64(size))),
                ])
        }
        let sha256 = SHA256Digest.hex(request.body)
        let existing = try await store.descriptor(uploadId)
        if existing == nil {
            if let wait = uploadLimiter.admit(now: time.uptime()) { throw Self.rateLimited("uploads", wait: wait) }
            let used = try await store.usedBytes()
            if used + Int64(size) > options.quotaBytes {
                throw APIError(
                    status: 507, message: "Your attachment storage is full.", code: "quota_exceeded",
                    details: [
                        "quota": [
                            "usedBytes": .number(JSONNumber(used)),
                            "limitBytes": .number(JSONNumber(options.quotaBytes)),
                        ]
                    ])
            }
        }
        let (descriptor, created) = try await store.storeUpload(
            AgentUpload(uploadId: uploadId, fileName: fileName, mimeType: mimeType, size: Int64(size), sha256: sha256),
            bytes: request.body, createdAt: time.epochMilliseconds())
        return .json(["upload": descriptor.json], status: created ? 201 : 200)
    }

    /// `GET agent/uploads/{uploadId}/original`.
    func original(uploadId: String) async throws -> HTTPServerResponse {
        guard let upload = try await store.upload(uploadId) else {
            throw APIError.notFound("No upload \(uploadId).")
        }
        var headers = HTTPHeaders()
        headers.set("Content-Type", upload.descriptor.mimeType)
        headers.set("X-Content-SHA256", upload.descriptor.sha256)
        return HTTPServerResponse(status: 200, headers: headers, body: .bytes(upload.bytes))
    }

    // MARK: The agent at work

    private func respond(to message: AgentMessage) async {
        let reply = agent.reply(to: message.text)
        do {
            events.publish(.activity(state: "working", detail: reply.thinking))
            try await time.sleep(options.pace)
            let tool = try await store.append(
                role: "tool", visibility: "internal", text: "$ \(reply.activity)", createdAt: time.epochMilliseconds())
            events.publish(.message(tool))
            events.publish(.activity(state: "working", detail: reply.activity))
            try await time.sleep(options.pace)
            let answer = try await store.append(
                role: "assistant", visibility: "public", text: reply.text, createdAt: time.epochMilliseconds())
            events.publish(.message(answer))
        } catch {
            // A failed reply leaves the user's message in place; the activity ends below.
        }
        events.publish(.activity(state: "idle", detail: ""))
    }

    private func runStream(_ socket: ServerWebSocket, after: Int64) async {
        let live = events.subscribe()
        var sent = after
        do {
            while true {
                let page = try await store.messages(after: sent, before: nil, limit: 200)
                for message in page.messages {
                    socket.send(text: JSONWriter().string(from: Event.message(message).json))
                    sent = message.sequence
                }
                if page.messages.count < 200 { break }
            }
        } catch {
            socket.close(code: 1011, reason: "history unavailable")
            return
        }
        guard options.openProxyAvailable else {
            socket.close(code: WebSocketCloseCode.openProxyUnavailable, reason: "open proxy unavailable")
            return
        }
        let pingInterval = options.pingInterval
        let time = time
        let replayed = sent
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in socket.incoming {
                    if case .closed = message { break }
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    do { try await time.sleep(pingInterval) } catch { return }
                    guard socket.ping() else { return }
                }
            }
            group.addTask {
                var newest = replayed
                for await event in live {
                    if case .message(let message) = event {
                        if message.sequence <= newest { continue }
                        newest = message.sequence
                    }
                    guard socket.send(text: JSONWriter().string(from: event.json)) else { return }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    // MARK: Helpers

    private static func cursorParameter(_ request: HTTPServerRequest, _ name: String) throws -> Int64? {
        guard let text = request.queryValue(name) else { return nil }
        guard let sequence = AgentMessage.sequence(ofCursor: text) else {
            throw APIError.invalid(
                "'\(name)' must be a message cursor such as c-000000042, got '\(text)'.", param: name)
        }
        return sequence
    }

    static func limitParameter(
        _ request: HTTPServerRequest, range: ClosedRange<Int> = 1...200, default fallback: Int = 50
    )
        throws -> Int
    {
        guard let text = request.queryValue("limit") else { return fallback }
        guard let limit = Int(text), range.contains(limit) else {
            throw APIError.invalid(
                "'limit' must be an integer from \(range.lowerBound) to \(range.upperBound), got \(text).",
                param: "limit")
        }
        return limit
    }

    private static func rateLimited(_ what: String, wait: Duration) -> APIError {
        let seconds = APIError.retryAfterSeconds(for: wait)
        return APIError(
            status: 429, message: "Too many \(what); retry in \(seconds) seconds.", code: "rate_limited",
            details: ["retryAfterSeconds": .number(JSONNumber(Int64(seconds)))], retryAfterSeconds: seconds)
    }

    private static func mebibytes(_ bytes: Int) -> String {
        let tenths = bytes * 10 / (1 << 20)
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}

extension AgentRoomService.Event {
    /// `{"readCursor": …, "unread": …}`.
    static func readBody(_ state: (sequence: Int64, unread: Int)) -> JSONValue {
        [
            "readCursor": state.sequence == 0 ? .null : .string(AgentMessage.cursor(state.sequence)),
            "unread": .number(JSONNumber(Int64(state.unread))),
        ]
    }
}
