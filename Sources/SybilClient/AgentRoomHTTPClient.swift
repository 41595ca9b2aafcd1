import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// The Agent room's REST surface over HTTP (docs/api/agent-room.md): every answer decoded
/// strictly with the Wire types and bounded in size, a `401` renews the token once through the
/// token chain and repeats the call, a `3xx` is never followed (``AgentRoomError/redirectRefused(status:)``),
/// uploads go as `multipart/form-data` (`uploadId`, then `file`) with a boundary drawn from the
/// injected random source, and originals are checked for exact size and SHA-256 while they
/// arrive.
///
/// Give it an ``HTTPClient`` that does not follow redirects
/// (`DefaultHTTPClient.make(redirects: .deliver)`): a client that followed one would have
/// sent the request, credentials included, before this type sees the answer.
public struct AgentRoomHTTPClient: AgentRoomAPI {
    /// The largest JSON answer read (a page of 200 messages fits many times over).
    public static let maximumAnswerBytes = 16 << 20
    /// The largest error body read.
    public static let maximumErrorBytes = 64 << 10

    private let base: AgentAPIBase
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let random: any RandomSource
    private let timeout: Duration

    /// A client of the room at `base`, sending through `http` with the token from `tokens`;
    /// `random` draws multipart boundaries.
    public init(
        base: AgentAPIBase, http: any HTTPClient, tokens: TokenProvider, random: any RandomSource,
        timeout: Duration = .seconds(30)
    ) {
        self.base = base
        self.http = http
        self.tokens = tokens
        self.random = random
        self.timeout = timeout
    }

    // MARK: AgentRoomAPI

    public func descriptor() async throws(AgentRoomError) -> AgentRoomDescriptor {
        try await json(Call(method: "GET", route: ["agent", "descriptor"]), AgentRoomDescriptor.decode)
    }

    public func messages(after: AgentCursor?, before: AgentCursor?, limit: Int) async throws(AgentRoomError)
        -> AgentRoomPage
    {
        precondition(after == nil || before == nil, "give at most one of after and before")
        precondition((1...200).contains(limit), "limit must be 1…200, got \(limit)")
        var query: [(String, String)] = []
        if let after { query.append(("after", after.rawValue)) }
        if let before { query.append(("before", before.rawValue)) }
        query.append(("limit", String(limit)))
        let call = Call(method: "GET", route: ["agent", "messages"], query: query)
        let page = try await json(call, AgentRoomPage.decode)
        guard page.messages.count <= limit else {
            throw .malformedAnswer("\(call.name): messages: \(page.messages.count) messages for a limit of \(limit)")
        }
        for (index, message) in page.messages.enumerated() {
            if let after, !(after < message.cursor) {
                throw .malformedAnswer(
                    "\(call.name): messages[\(index)].cursor: \(message.cursor) is not newer than after=\(after)")
            }
            if let before, !(message.cursor < before) {
                throw .malformedAnswer(
                    "\(call.name): messages[\(index)].cursor: \(message.cursor) is not older than before=\(before)")
            }
        }
        return page
    }

    public func submit(_ submission: AgentRoomSubmission) async throws(AgentRoomError) -> AgentRoomReceipt {
        let call = Call(
            method: "POST", route: ["agent", "messages"], contentType: "application/json",
            body: JSONWriter().bytes(from: submission.jsonValue))
        let receipt = try await json(call, AgentRoomReceipt.decode)
        guard receipt.acknowledges(submission) else {
            throw .malformedAnswer(
                "\(call.name): receipt: acknowledges request \(receipt.requestId) with attachments "
                    + "\(receipt.attachments), not request \(submission.requestId) with \(submission.attachments)")
        }
        return receipt
    }

    public func readState() async throws(AgentRoomError) -> AgentReadState {
        try await json(Call(method: "GET", route: ["agent", "read"]), AgentReadState.decode)
    }

    public func markRead(_ cursor: AgentCursor) async throws(AgentRoomError) -> AgentReadState {
        try await json(
            Call(
                method: "POST", route: ["agent", "read"], contentType: "application/json",
                body: JSONWriter().bytes(from: AgentReadState.markReadBody(cursor))),
            AgentReadState.decode)
    }

    public func upload(_ file: AgentUploadFile) async throws(AgentRoomError) -> AgentAttachment {
        let form = MultipartFormData(
            boundary: boundary(avoiding: [Array(file.uploadId.utf8), file.bytes]),
            parts: [
                MultipartFormData.Part(name: "uploadId", body: Array(file.uploadId.utf8)),
                MultipartFormData.Part(
                    name: "file", fileName: file.fileName, contentType: file.mimeType, body: file.bytes),
            ])
        let call = Call(
            method: "POST", route: ["agent", "uploads"], contentType: form.contentType, body: form.encoded())
        let stored = try await json(call, AgentAttachment.decodeUploadAnswer)
        if stored.uploadId != file.uploadId {
            throw .malformedAnswer("\(call.name): upload.uploadId: \(stored.uploadId), not \(file.uploadId)")
        }
        if stored.size != Int64(file.bytes.count) {
            throw .malformedAnswer("\(call.name): upload.size: \(stored.size) bytes, but \(file.bytes.count) were sent")
        }
        let digest = SHA256Digest.hex(file.bytes)
        if stored.sha256 != digest {
            throw .malformedAnswer("\(call.name): upload.sha256: \(stored.sha256), not the sent bytes' \(digest)")
        }
        return stored
    }

    public func original(of attachment: AgentAttachment) async throws(AgentRoomError) -> [UInt8] {
        let size = attachment.size
        guard size <= AgentAttachmentLimits.v1.maxFileBytes else {
            throw .integrity("\(attachment.fileName) claims \(size) bytes, more than any v1 attachment may have")
        }
        let call = Call(
            method: "GET", route: ["agent", "uploads", attachment.uploadId, "original"], accept: "*/*")
        let response = try await send(call)
        guard response.head.status == 200 else {
            throw .integrity("\(call.name) answered HTTP \(response.head.status), not 200 with the whole original")
        }
        if let declared = response.head.headers["X-Content-SHA256"],
            declared.lowercased() != attachment.sha256
        {
            throw .integrity(
                "X-Content-SHA256 is \(declared), but \(attachment.fileName)'s SHA-256 is \(attachment.sha256)")
        }
        if let length = response.head.headers["Content-Length"] {
            guard let declared = Int64(length.trimmingCharacters(in: .whitespaces)), declared >= 0 else {
                throw .integrity("Content-Length \"\(length)\" is not a byte count")
            }
            guard declared == size else {
                throw .integrity("Content-Length is \(declared) bytes, but \(attachment.fileName) has \(size)")
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size))
        let limit = Int(size) + 1
        do {
            for try await chunk in response.body {
                bytes.append(contentsOf: chunk.prefix(limit - bytes.count))
                if bytes.count == limit { break }
            }
        } catch {
            throw .transport("the download of \(attachment.fileName) broke off: \(error)")
        }
        guard bytes.count == size else {
            throw .integrity(
                bytes.count > size
                    ? "the server sent more than \(attachment.fileName)'s \(size) bytes"
                    : "the download ended after \(bytes.count) of \(attachment.fileName)'s \(size) bytes")
        }
        let digest = SHA256Digest.hex(bytes)
        guard digest == attachment.sha256 else {
            throw .integrity("the bytes' SHA-256 is \(digest), not \(attachment.fileName)'s \(attachment.sha256)")
        }
        return bytes
    }

    // MARK: Transport

    private typealias Call = SybilAPIRequester<AgentRoomError>.Call

    private var requester: SybilAPIRequester<AgentRoomError> {
        SybilAPIRequester(
            base: base, http: http, tokens: tokens, timeout: timeout, maximumErrorBytes: Self.maximumErrorBytes,
            transport: { .transport($0) }, malformed: { .malformedAnswer($0) },
            refused: { status, body, headers in
                AgentRoomError.from(status: status, body: body, retryAfter: headers["Retry-After"])
            }, notSent: { .notSent($0) })
    }

    /// Sends `call` and decodes its answer strictly with `decode`, reading at most
    /// ``maximumAnswerBytes``.
    private func json<T>(_ call: Call, _ decode: (JSONValue, JSONPath) throws(JSONError) -> T)
        async throws(AgentRoomError) -> T
    {
        try await requester.json(call, maximumBytes: Self.maximumAnswerBytes, maximumDepth: 64, decode)
    }

    private func send(_ call: Call) async throws(AgentRoomError) -> HTTPStreamingResponse {
        try await requester.send(call)
    }

    /// A boundary of 38 characters (`sybil-` and 32 random hex digits) found in none of `bodies`.
    private func boundary(avoiding bodies: [[UInt8]]) -> String {
        while true {
            var bytes: [UInt8] = []
            for _ in 0..<2 {
                let value = random.nextUInt64()
                for shift in stride(from: 56, through: 0, by: -8) {
                    bytes.append(UInt8(truncatingIfNeeded: value >> shift))
                }
            }
            let candidate = "sybil-" + Hex.string(bytes)
            let needle = Array(candidate.utf8)
            if bodies.allSatisfy({ $0.firstRange(of: needle) == nil }) { return candidate }
        }
    }
}
