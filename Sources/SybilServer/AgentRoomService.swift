import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// The Agent room surface (docs/api/agent-room.md): descriptor, history with cursors,
/// idempotent submission, the WebSocket stream with replay and canonical echoes, the shared
/// read position, and v1 uploads (multipart or raw) with authenticated original downloads.
///
/// Every body it reads or writes is SybilWire's type (``AgentRoomSubmission``,
/// ``AgentRoomPage``, ``AgentRoomReceipt``, ``AgentReadState``, ``AgentStreamEvent``,
/// ``AgentRoomDescriptor``, ``AgentAttachment``), and the ceilings are
/// ``AgentAttachmentLimits/v1``.
final class AgentRoomService: Sendable {
    /// The limits the room advertises and enforces.
    static let limits = AgentAttachmentLimits.v1
    /// The raster formats whose dimensions are checked, by MIME type.
    static let rasterTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    let store: AgentRoomStore
    private let options: SybilServerOptions
    private let time: ServerTime
    let events = Broadcast<AgentStreamEvent>()
    private let turns: AgentTurnRunner
    /// The agent's task, tracked until shutdown.
    private let tasks: ServiceTasks
    private let uploadLimiter: RateLimiter
    private let messageLimiter: RateLimiter

    /// The service, with its agent not yet started (see ``start()``); the agent's task prefers
    /// `executor` (see ``ServiceTasks``) and reports its failed store steps to `log`.
    init(
        store: AgentRoomStore, options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)? = nil,
        executor: (any TaskExecutor)? = nil, log: ServerLog = .standardError
    ) {
        tasks = ServiceTasks(executor: executor)
        self.store = store
        self.options = options
        self.time = time
        // With an upstream and its model named, a real model answers the room's turns.
        var responder: AgentUpstreamResponder?
        if let base = options.upstream, let model = options.upstreamModel, let upstream {
            responder = AgentUpstreamResponder(base: base, model: model, key: options.upstreamKey, http: upstream)
        }
        turns = AgentTurnRunner(
            store: store, events: events, agent: ScriptedAgent(seed: options.seed), time: time, pace: options.pace,
            upstream: responder, log: log)
        uploadLimiter = RateLimiter(limit: options.uploadsPerMinute)
        messageLimiter = RateLimiter(limit: options.messagesPerMinute)
    }

    /// Starts the agent: it first finishes the turns a previous run left pending.
    func start() {
        turns.start(on: tasks)
    }

    /// Stops the agent within `deadline` on the service's clock (a turn in progress stays
    /// pending for the next start); returns the names of the tasks that did not end in time.
    func shutdown(within deadline: Duration) async -> [String] {
        turns.finish()
        return await tasks.shutdown(within: deadline, sleep: time.sleep)
    }

    /// The agent's tasks running (its turn loop: 1 from ``start()`` until shutdown ended it).
    var runningTasks: Int { tasks.count }

    /// Returns once the agent has answered every stored turn and waits for the next one (or
    /// stopped): nothing more happens until a new submission.
    func quiescent() async {
        await turns.waitUntilIdle()
    }

    // MARK: Routes

    /// `GET agent/descriptor`.
    func descriptor() async throws -> HTTPServerResponse {
        let quota = AgentQuota(usedBytes: try await store.usedBytes(), limitBytes: options.quotaBytes)
        let descriptor = AgentRoomDescriptor(
            roomId: "room-main", title: "Sybil Agent",
            attachments: AgentRoomDescriptor.Attachments(limits: Self.limits, quota: quota))
        return .json(descriptor.jsonValue)
    }

    /// `GET agent/messages?after=|before=&limit=`.
    func messages(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let after = try Self.cursorParameter(request, "after")
        let before = try Self.cursorParameter(request, "before")
        if after != nil && before != nil {
            throw APIError.invalid("Give 'after' or 'before', not both.", param: "before")
        }
        let limit = try Self.limitParameter(request)
        let found = try await store.messages(after: after?.sequence, before: before?.sequence, limit: limit)
        let page = AgentRoomPage(
            messages: found.rows.map(\.message), nextCursor: found.rows.last?.message.cursor ?? after?.cursor,
            hasMoreBefore: found.hasMoreBefore)
        return .json(page.jsonValue)
    }

    /// `POST agent/messages`.
    func submit(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let submission = try Self.decodeBody(request.body, AgentRoomSubmission.decode)
        for (index, uploadId) in submission.attachments.enumerated() where !UploadNames.isUploadId(uploadId) {
            throw APIError.invalid(
                "attachments[\(index)] \(UploadNames.uploadIdRule).", param: "attachments[\(index)]")
        }
        let fingerprint = JSONWriter().string(
            from: [
                "text": .string(submission.text), "createdAt": .number(JSONNumber(submission.createdAt)),
                "attachments": .array(submission.attachments.map { .string($0) }),
            ])
        // A new request id is counted against the rate limit; a retry of a stored one is not.
        let limiter = messageLimiter
        let time = time
        let stored = try await store.submit(
            submission, fingerprint: fingerprint, maxTotalBytes: Self.limits.maxTotalBytes
        ) {
            if let wait = limiter.admit(now: time.uptime()) { throw Self.rateLimited("messages", wait: wait) }
        }
        if stored.created {
            events.publish(.message(stored.row.message))
            turns.wake()
        }
        let receipt = AgentRoomReceipt(
            requestId: submission.requestId, messageId: stored.row.message.messageId,
            cursor: stored.row.message.cursor, attachments: stored.row.message.attachments.map(\.uploadId))
        return .json(receipt.jsonValue, status: stored.created ? 202 : 200)
    }

    /// `GET agent/read`.
    func read() async throws -> HTTPServerResponse {
        .json(try await store.readState().jsonValue)
    }

    /// `GET agent/read` answered at once on the calling thread (the event loop) when the store
    /// can read without waiting (``AgentRoomStore/readStateIfIdle()``); `nil` leaves it to
    /// ``read()``, also when the read failed (its task then answers and logs the failure).
    func readAtOnce() -> HTTPServerResponse? {
        guard let state = try? store.readStateIfIdle() else { return nil }
        return .json(state.jsonValue)
    }

    /// `POST agent/read` with `{"cursor": …}`.
    func markRead(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let text = try Self.decodeBody(request.body) { value, path throws(JSONError) in
            let reader = try JSONObjectReader(value, at: path)
            try reader.requireExactKeys(["cursor"])
            return try reader.string("cursor")
        }
        guard let sequence = AgentRoomCursor.sequence(of: text), try await store.markRead(sequence) else {
            throw APIError.invalid(
                "'cursor' must be the cursor of a message in this room, got \(JSONWriter.quoted(String(text.prefix(80)))).",
                param: "cursor")
        }
        let state = try await store.readState()
        events.publish(.read(state))
        return .json(state.jsonValue)
    }

    /// `GET agent/stream?after=[&historyLost=close]` (WebSocket); close 4410 for a lost
    /// history only when the client asked for it.
    func stream(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let accept = try WebSocketUpgrade.accept(request)
        let after = try Self.cursorParameter(request, "after")
        let closesOnLostHistory = try Self.historyLostParameter(request)
        return HTTPServerResponse(
            status: 101,
            body: .webSocket(accept: accept, maximumMessage: 64 << 10) { [self] socket in
                await runStream(socket, after: after, closesOnLostHistory: closesOnLostHistory)
            })
    }

    /// Whether the stream's client asked for close 4410 (`historyLost=close`); any other value
    /// is refused, naming the parameter.
    private static func historyLostParameter(_ request: HTTPServerRequest) throws -> Bool {
        let name = AgentStreamClose.historyLostParameter
        guard let text = try request.queryValue(name) else { return false }
        guard text == AgentStreamClose.historyLostOptIn else {
            throw APIError.invalid(
                "'\(name)' must be \(JSONWriter.quoted(AgentStreamClose.historyLostOptIn)), got \(JSONWriter.quoted(String(text.prefix(80)))).",
                param: name)
        }
        return true
    }

    /// `POST agent/uploads`: multipart (`uploadId`, then `file`), streamed into
    /// ``AgentUploadForm`` by the transport or read from a whole body; or the raw bytes with
    /// `X-Upload-Id` and `X-File-Name` (streamed into ``AgentRawUploadBody``). The file's bytes
    /// arrive in an ``UploadSpool`` and are stored by renaming its file into place.
    func upload(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard options.attachmentsAvailable else {
            throw APIError(
                status: 503, message: "Attachments are unavailable right now; text messages still work.",
                code: "open_proxy_unavailable", retryAfterSeconds: 30)
        }
        let received: AgentUploadForm.Upload
        let multipart: Bool
        if let form = request.consumedBody as? AgentUploadForm {
            received = try form.upload()
            multipart = true
        } else if let raw = request.consumedBody as? AgentRawUploadBody {
            received = try Self.rawUpload(request, file: raw.spool)
            multipart = false
        } else if AgentUploadForm.isMultipart(request.headers["Content-Type"]) {
            received = try AgentUploadForm.read(
                request.body, contentType: request.headers["Content-Type"] ?? "", limits: Self.limits,
                spool: store.spool(param: "file"))
            multipart = true
        } else {
            let file = store.spool(param: "body")
            try file.append(request.body)
            received = try Self.rawUpload(request, file: file)
            multipart = false
        }
        if multipart { try Self.checkRawHeaders(request, beside: received) }
        let descriptor = try Self.check(received, multipart: multipart)
        let limiter = uploadLimiter
        let now = time.uptime()
        let (stored, created) = try await store.storeUpload(
            descriptor, file: received.file, createdAt: time.epochMilliseconds(), quotaBytes: options.quotaBytes
        ) {
            if let wait = limiter.admit(now: now) { throw Self.rateLimited("uploads", wait: wait) }
        }
        return .json(["upload": stored.jsonValue], status: created ? 201 : 200)
    }

    /// `GET agent/uploads/{uploadId}/original`: the bytes as a download, never as a page
    /// (see ``AgentOriginalHeaders``).
    func original(uploadId: UploadID) async throws -> HTTPServerResponse {
        guard let upload = try await store.upload(uploadId.rawValue) else {
            throw APIError.notFound("No upload \(uploadId.rawValue).")
        }
        return HTTPServerResponse(
            status: 200, headers: AgentOriginalHeaders.headers(for: upload.descriptor), body: .bytes(upload.bytes))
    }

    // MARK: Uploads

    /// The raw form: the body is the file (in `file`), with `X-Upload-Id`, `X-File-Name`
    /// (percent-encoded) and `Content-Type`.
    private static func rawUpload(_ request: HTTPServerRequest, file: UploadSpool) throws -> AgentUploadForm.Upload {
        guard let uploadId = request.headers["X-Upload-Id"] else {
            throw APIError.invalid("X-Upload-Id \(UploadNames.uploadIdRule).", param: "X-Upload-Id")
        }
        guard let encodedName = request.headers["X-File-Name"],
            let fileName = UploadNames.percentDecoded(encodedName)
        else {
            throw APIError.invalid(
                "X-File-Name must be a file name in percent-encoded UTF-8 without '/'.", param: "X-File-Name")
        }
        guard let mimeType = request.headers["Content-Type"]?.split(separator: ";").first.map(String.init) else {
            throw APIError.invalid("Content-Type must be the file's MIME type, e.g. text/plain.", param: "Content-Type")
        }
        return AgentUploadForm.Upload(
            uploadId: uploadId, fileName: fileName,
            mimeType: mimeType.trimmingCharacters(in: .whitespaces).lowercased(), file: file)
    }

    /// The raw form's headers beside a multipart body may only repeat the form's id and file
    /// name: a client that sends both must not have two answers to which upload it meant.
    private static func checkRawHeaders(_ request: HTTPServerRequest, beside form: AgentUploadForm.Upload) throws {
        if let headerId = request.headers["X-Upload-Id"], headerId != form.uploadId {
            throw APIError.invalid(
                "X-Upload-Id is for the raw form; on a multipart upload it may only repeat the uploadId part.",
                param: "X-Upload-Id")
        }
        if let encodedName = request.headers["X-File-Name"], UploadNames.percentDecoded(encodedName) != form.fileName {
            throw APIError.invalid(
                "X-File-Name is for the raw form; on a multipart upload it may only repeat the file part's filename.",
                param: "X-File-Name")
        }
    }

    /// Checks an upload against the v1 rules and describes it: the id, the name and the
    /// type; the size for its type (413); and for PNG, JPEG, GIF and WebP a readable raster
    /// header of that format (400 `invalid_image`) within the pixel limits (413).
    static func check(_ upload: AgentUploadForm.Upload, multipart: Bool) throws -> AgentAttachment {
        let idParam = multipart ? "uploadId" : "X-Upload-Id"
        let nameParam = multipart ? "file" : "X-File-Name"
        let typeParam = multipart ? "file" : "Content-Type"
        guard UploadNames.isUploadId(upload.uploadId) else {
            throw APIError.invalid("\(idParam) \(UploadNames.uploadIdRule).", param: idParam)
        }
        let fileName = upload.fileName
        guard UploadNames.isFileName(fileName) else {
            throw APIError.invalid(
                "The file name \(UploadNames.fileNameRule)\(multipart ? "" : ", percent-encoded").", param: nameParam)
        }
        let typeParts = upload.mimeType.split(separator: "/", omittingEmptySubsequences: false)
        guard typeParts.count == 2, typeParts.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) }) else {
            throw APIError.invalid("Content-Type must be the file's MIME type, e.g. text/plain.", param: typeParam)
        }
        // A write that failed (a full disk) is the server's failure, not the client's.
        try upload.file.checkWritten()
        let size = upload.file.size
        let isImage = upload.mimeType.hasPrefix("image/")
        let limit = limits.maxBytes(forMimeType: upload.mimeType)
        if size > limit {
            throw APIError(
                status: 413,
                message:
                    "\(fileName) is \(mebibytes(size)); \(isImage ? "images" : "files") may be at most \(mebibytes(limit)).",
                code: "too_large", param: multipart ? "file" : "body",
                details: ["limitBytes": .number(JSONNumber(limit)), "sizeBytes": .number(JSONNumber(size))])
        }
        if rasterTypes.contains(upload.mimeType) {
            try checkRaster(upload.file, fileName: fileName, mimeType: upload.mimeType, param: typeParam)
        }
        return AgentAttachment(
            uploadId: upload.uploadId, fileName: fileName, mimeType: upload.mimeType, size: size,
            sha256: upload.file.sha256)
    }

    private static func checkRaster(_ file: UploadSpool, fileName: String, mimeType: String, param: String) throws {
        // The header is nearly always within the first bytes; only a JPEG whose metadata runs
        // past them is read back whole (an image is at most 6 MiB).
        var bytes = file.head
        var header = RasterImageHeader.read(bytes)
        if header == nil && file.size > Int64(bytes.count) {
            bytes = try file.bytes()
            header = RasterImageHeader.read(bytes)
        }
        guard let header, header.format.mimeType == mimeType else {
            let found = RasterImageHeader.format(of: bytes).map { " (its bytes are \($0.mimeType))" } ?? ""
            throw APIError.invalid(
                "\(fileName) is not a readable \(mimeType) image\(found); send the original image or upload it as a file.",
                param: param, code: "invalid_image")
        }
        let axis = limits.maxAxisPixels
        if Int64(header.width) > axis || Int64(header.height) > axis {
            throw APIError(
                status: 413,
                message:
                    "\(fileName) is \(header.width) × \(header.height) px; images may be at most \(axis) px on a side.",
                code: "too_large", param: param,
                details: [
                    "limitAxisPixels": .number(JSONNumber(axis)), "width": .number(JSONNumber(Int64(header.width))),
                    "height": .number(JSONNumber(Int64(header.height))),
                ])
        }
        if header.pixels > limits.maxPixels {
            throw APIError(
                status: 413,
                message:
                    "\(fileName) has \(header.pixels) pixels (\(header.width) × \(header.height)); images may have at most \(limits.maxPixels).",
                code: "too_large", param: param,
                details: [
                    "limitPixels": .number(JSONNumber(limits.maxPixels)), "pixels": .number(JSONNumber(header.pixels)),
                    "width": .number(JSONNumber(Int64(header.width))),
                    "height": .number(JSONNumber(Int64(header.height))),
                ])
        }
    }

    // MARK: The stream

    private func runStream(
        _ socket: ServerWebSocket, after: (sequence: Int64, cursor: AgentCursor)?, closesOnLostHistory: Bool
    ) async {
        let live = events.subscribe()
        var sent = after?.sequence ?? 0
        do {
            // A cursor beyond the newest message was issued by a history this server no longer
            // has (it restarted without it, or was restored from an older copy): replaying from it
            // would hold back every message up to it, so a client that asked for it is told to
            // start afresh. Every cursor a client merged was stored before it was published, so
            // an intact history always reaches it. A client that did not ask may not know the
            // close (it would reconnect with the same cursor forever): it is served as before.
            if closesOnLostHistory, let after {
                let newest = try await store.messages(after: nil, before: nil, limit: 1).rows.last?.sequence ?? 0
                if after.sequence > newest {
                    socket.close(code: AgentStreamClose.historyLost, reason: AgentStreamClose.historyLostReason)
                    return
                }
            }
            while true {
                let page = try await store.messages(after: sent, before: nil, limit: 200)
                for row in page.rows {
                    guard await socket.sendWhenRoom(text: Self.frame(.message(row.message))) else { return }
                    sent = row.sequence
                }
                if page.rows.count < 200 { break }
            }
        } catch {
            socket.close(code: 1011, reason: "history unavailable")
            return
        }
        guard options.attachmentsAvailable else {
            socket.close(code: WebSocketCloseCode.attachmentsUnavailable, reason: "attachments unavailable")
            return
        }
        let pingInterval = options.pingInterval
        let time = time
        let store = store
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
                var sent = replayed
                // Every event queued since the last look is taken at once, and its frames go out
                // one after another: the transport sends what one turn of its loop gathered
                // together, so a burst costs this task and the client one wake-up each.
                while let batch = await live.next() {
                    for (index, event) in batch.enumerated() {
                        guard case .message(let message) = event else {
                            // An activity followed at once by another is over before it could be
                            // shown (activity is state, not history, and is never replayed).
                            if case .activity = event, index + 1 < batch.count, case .activity = batch[index + 1] {
                                continue
                            }
                            guard await socket.sendWhenRoom(text: Self.frame(event)) else { return }
                            continue
                        }
                        // Messages are sent in sequence order with none left out: one the stream
                        // already sent is skipped, and when a later one is published first (two
                        // tasks stored messages at once) the ones between are read from the store.
                        guard let sequence = AgentRoomCursor.sequence(of: message.cursor.rawValue), sequence > sent
                        else {
                            continue
                        }
                        while sequence > sent + 1 {
                            guard let rows = try? await store.messages(after: sent, before: nil, limit: 200).rows
                            else {
                                socket.close(code: 1011, reason: "history unavailable")
                                return
                            }
                            let between = rows.filter { $0.sequence < sequence }
                            for row in between {
                                guard await socket.sendWhenRoom(text: Self.frame(.message(row.message))) else {
                                    return
                                }
                                sent = row.sequence
                            }
                            // A number the store never used (a rolled-back insert) leaves a gap for good.
                            if between.count < 200 { break }
                        }
                        guard await socket.sendWhenRoom(text: Self.frame(event)) else { return }
                        sent = sequence
                    }
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private static func frame(_ event: AgentStreamEvent) -> String {
        JSONWriter().string(from: event.jsonValue)
    }

    // MARK: Helpers

    /// Decodes a JSON body with a Wire decoder; a contract error is a 400 naming its member.
    private static func decodeBody<T>(_ body: [UInt8], _ decode: (JSONValue, JSONPath) throws(JSONError) -> T) throws
        -> T
    {
        let value = try RequestBody.json(body)
        do {
            return try decode(value, .root)
        } catch {
            throw APIError.invalid(
                error.path.isRoot ? "The body \(error.message)." : "\(error.path): \(error.message).",
                param: error.path.isRoot ? "body" : error.path.description)
        }
    }

    /// A cursor query parameter: its sequence and cursor, `nil` when absent, 400 when not a
    /// cursor this server issues.
    private static func cursorParameter(_ request: HTTPServerRequest, _ name: String) throws -> (
        sequence: Int64, cursor: AgentCursor
    )? {
        guard let text = try request.queryValue(name) else { return nil }
        guard let sequence = AgentRoomCursor.sequence(of: text) else {
            throw APIError.invalid(
                "'\(name)' must be a message cursor such as \(AgentRoomCursor.example), got \(JSONWriter.quoted(String(text.prefix(80)))).",
                param: name)
        }
        return (sequence, AgentRoomCursor.cursor(sequence))
    }

    static func limitParameter(
        _ request: HTTPServerRequest, range: ClosedRange<Int> = 1...200, default fallback: Int = 50
    )
        throws -> Int
    {
        guard let text = try request.queryValue("limit") else { return fallback }
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

    /// `8 MiB`, `9.1 MiB`: whole mebibytes without a fraction, others to a tenth rounded up,
    /// so a size one byte over a limit never reads as the limit.
    static func mebibytes(_ bytes: Int64) -> String {
        if bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        let tenths = (bytes * 10 + (1 << 20) - 1) / (1 << 20)
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
