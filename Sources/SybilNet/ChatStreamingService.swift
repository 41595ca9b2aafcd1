import Foundation
import SybilCore
import SybilHTTP
import SybilWire

/// One message of a chat request.
public struct ChatMessage: Sendable, Hashable {
    /// `system`, `user` or `assistant`.
    public var role: String
    /// The text.
    public var content: String
    /// Files attached inline (text into the text, images as image parts; see ``ChatAttachment``).
    public var attachments: [ChatAttachment]

    /// Creates a message.
    public init(role: String, content: String, attachments: [ChatAttachment] = []) {
        self.role = role
        self.content = content
        self.attachments = attachments
    }

    /// The message in OpenAI's shape: `content` is a string, or an array of parts when an
    /// image is attached.
    public var jsonValue: JSONValue {
        ["role": .string(role), "content": ChatAttachment.content(content, attachments: attachments)]
    }
}

/// The one streaming protocol a chat page knows (the page never holds the transport and never
/// bypasses the send gate); tests inject a mock.
///
/// ``deltas(to:)`` carries everything a reply streams (answer, reasoning, finish reason,
/// usage); ``reply(to:)`` only its text. A conformer that knows only text implements
/// ``reply(to:)`` and gets ``deltas(to:)`` from it; one that knows more implements both.
public protocol ChatStreaming: Sendable {
    /// The reply's text deltas, in order; the stream ends after `[DONE]` or throws.
    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error>
    /// The reply's steps, in order (none empty); the stream ends after `[DONE]`, or after a
    /// finish reason when the server closes without `[DONE]`, or throws.
    func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error>
}

extension ChatStreaming {
    /// The text deltas of ``reply(to:)`` as steps with only text.
    public func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
        Self.map(reply(to: messages)) { $0.isEmpty ? nil : ChatDelta(text: $0) }
    }

    /// `upstream` with each element mapped by `transform` (`nil` drops it); cancelling the
    /// result cancels the reading of `upstream`.
    public static func map<In: Sendable, Out: BoundedCost>(
        _ upstream: AsyncThrowingStream<In, any Error>, _ transform: @escaping @Sendable (In) -> Out?
    ) -> AsyncThrowingStream<Out, any Error> {
        BoundedStream.make { yield in
            for try await element in upstream {
                if let mapped = transform(element) {
                    guard await yield(mapped) else { throw CancellationError() }
                }
            }
        }
    }
}

/// The service layer of chat streaming (SPEC §5.1–5.2, seed 004): waits at the send gate,
/// sends with the bearer token, and retries once — a cold-start 5xx, a timeout (a stall before
/// the first event, or no response head in time) or a 401 after refreshing the token, all
/// sharing one chance — but only before any text arrived. The waits are the service's
/// `headTimeout` (for the response head) and `stallTimeout` (for each silence in the body);
/// with `retriesTimeout` off a timeout is not retried (a server on this machine that stayed
/// silent that long is busy generating, not cold: a second request would start the same
/// generation again), while a 5xx and a 401 still are.
///
/// A stream that drops after it started (interrupted, a transport failure or a stall) is
/// resumed rather than sent again when the server numbers its events: a `GET` of
/// `/v1/chat/completions/{id}/events` with `Last-Event-ID` (no prompt re-sent), up to
/// ``maximumResumeAttempts`` in a row without progress, waiting by ``resumePolicy`` on the
/// injected clock; resumes do not spend the retry budget (a 401 on a resume refreshes the token
/// with it). The consumer sees one continuous reply. A resume answered 400, 404 or 410, or a
/// resumed stream that ends with nothing new, fails the reply as
/// ``ChatStreamError/interrupted`` with the text so far kept.
public struct ChatStreamingService<C: Clock>: ChatStreaming where C.Duration == Duration {
    /// Resumes tried in a row without a new event before the reply fails.
    public static var maximumResumeAttempts: Int { 3 }

    private let baseURL: URL
    private let transport: SSEChatTransport<C>
    private let clock: C
    private let tokens: TokenProvider?
    private let headers: HTTPHeaders
    private let gate: (any SendGate)?
    private let model: String
    /// How long the response head may take to come.
    public let headTimeout: Duration
    /// Whether a timeout before any text is retried (seed 004's cold-start rule).
    public let retriesTimeout: Bool
    /// Where under the base URL the routes are: `/v1`, or `/` when the base URL is the whole
    /// prefix (as the OpenAI SDKs take `base_url`).
    public let apiPrefix: APIPrefix
    /// The waits between resume attempts (no jitter: it draws no randomness).
    public let resumePolicy: ReconnectPolicy

    /// A service for `model` at `baseURL`. A `nil` gate sends at once; `nil` tokens send no
    /// `Authorization` (a server that needs no key); `headers` go with every request.
    /// `headTimeout` bounds the wait for the response head, `stallTimeout` each silence in the
    /// body; `retriesTimeout` says whether a timeout before any text is sent again. The routes
    /// are under `apiPrefix` (`v1/chat/completions`; under `/`, `chat/completions`).
    public init(
        baseURL: URL, http: any HTTPClient, clock: C, tokens: TokenProvider?, gate: (any SendGate)?,
        model: String, headers: HTTPHeaders = HTTPHeaders(), stallTimeout: Duration = .seconds(30),
        headTimeout: Duration = .seconds(60), retriesTimeout: Bool = true, apiPrefix: APIPrefix = .v1,
        resumePolicy: ReconnectPolicy = ReconnectPolicy(
            initialDelay: .milliseconds(250), maximumDelay: .seconds(2), jitter: 0)
    ) {
        self.baseURL = baseURL
        self.transport = SSEChatTransport(http: http, clock: clock, stallTimeout: stallTimeout)
        self.clock = clock
        self.tokens = tokens
        self.headers = headers
        self.gate = gate
        self.model = model
        self.headTimeout = headTimeout
        self.retriesTimeout = retriesTimeout
        self.apiPrefix = apiPrefix
        self.resumePolicy = resumePolicy
    }

    public func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        Self.map(deltas(to: messages)) { $0.text.isEmpty ? nil : $0.text }
    }

    public func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
        BoundedStream.make { yield in
            try await run(messages, into: yield)
        }
    }

    /// The request body.
    public func body(for messages: [ChatMessage]) -> [UInt8] {
        let value: JSONValue = [
            "model": .string(model),
            "messages": .array(messages.map(\.jsonValue)),
            "stream": true,
        ]
        return JSONWriter().bytes(from: value)
    }

    /// Where a started stream stands: its id and the last event id the consumer has.
    struct Progress {
        var streamID: String?
        var lastEventID: Int64?
        /// Whether any answer or reasoning text arrived (then the request is not sent again).
        var receivedText = false

        /// Whether the server numbers this stream's events, so it can be resumed.
        var resumable: Bool { streamID != nil && lastEventID != nil }
    }

    private func run(
        _ messages: [ChatMessage], into continuation: @escaping BoundedYield<ChatDelta>
    )
        async throws
    {
        await gate?.open()
        try Task.checkCancellation()
        var token: String?
        if let tokens {
            guard let found = try await tokens.token() else { throw TokenError.signedOut }
            token = found
        }
        var budget = RetryBudget()
        var progress = Progress()
        while true {
            do {
                try await relay(transport.deliveries(for: request(messages, token: token)), &progress, continuation)
                return
            } catch let error as ChatStreamError {
                if progress.resumable, Self.isDrop(error) {
                    try await resume(&progress, token: &token, budget: &budget, after: error, continuation)
                    return
                }
                guard !progress.receivedText else { throw error }
                switch error {
                case .serverError where budget.spend():
                    continue  // a cold start: the container is up by now
                case .stalled where retriesTimeout && budget.spend():
                    continue  // a timeout before any text: as a cold 5xx
                case .unauthorized where tokens != nil && budget.spend():
                    token = try await tokens?.refresh()
                default:
                    throw error
                }
            }
        }
    }

    /// Yields the text of `deliveries` whose event ids are new, recording progress.
    private func relay(
        _ deliveries: BoundedBatchStream<ChatChunkDelivery>, _ progress: inout Progress,
        _ continuation: @escaping BoundedYield<ChatDelta>
    ) async throws {
        for try await delivery in deliveries {
            if let eventID = delivery.eventID {
                if let last = progress.lastEventID, eventID <= last { continue }  // already shown
                if progress.streamID == nil, Self.isUsableStreamID(delivery.chunk.id) {
                    progress.streamID = delivery.chunk.id
                }
                progress.lastEventID = eventID
            }
            guard let step = ChatDelta(delivery.chunk) else { continue }
            if !step.text.isEmpty || !step.reasoning.isEmpty || !step.toolCalls.isEmpty { progress.receivedText = true }
            guard await continuation(step) else { throw CancellationError() }
        }
    }

    /// Resumes a dropped stream until it ends, ``maximumResumeAttempts`` in a row fail, or the
    /// server no longer has it.
    private func resume(
        _ progress: inout Progress, token: inout String?, budget: inout RetryBudget, after drop: ChatStreamError,
        _ continuation: @escaping BoundedYield<ChatDelta>
    ) async throws {
        var policy = resumePolicy
        var failures = 0
        var lastError = drop
        while failures < Self.maximumResumeAttempts {
            try await clock.sleep(for: policy.connectionDropped(uptime: nil, random: NoRandomness()).delay)
            let before = progress.lastEventID
            do {
                try await relay(
                    transport.deliveries(for: resumeRequest(progress, token: token)), &progress, continuation)
                return
            } catch let error as ChatStreamError {
                switch error {
                case .notFound, .badRequest, .unexpectedStatus(status: 410, _, _):
                    throw ChatStreamError.interrupted  // the server no longer has it: keep the partial text
                case .interrupted where progress.lastEventID == before:
                    throw ChatStreamError.interrupted  // the server's stream ended without finishing
                case .unauthorized:
                    guard let tokens, budget.spend() else { throw error }
                    token = try await tokens.refresh()
                default:
                    break
                }
                if progress.lastEventID != before {
                    policy.reset()
                    failures = 0
                } else {
                    failures += 1
                }
                lastError = error
            }
        }
        throw lastError
    }

    /// The drops a resume can repair.
    private static func isDrop(_ error: ChatStreamError) -> Bool {
        switch error {
        case .interrupted, .transport, .stalled: true
        default: false
        }
    }

    /// A stream id that can go in a URL path: 1–128 letters, digits, `-`, `_` or `.`.
    static func isUsableStreamID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F || byte == 0x2E
            } && id != "." && id != ".."
    }

    private func request(_ messages: [ChatMessage], token: String?) -> HTTPRequest {
        var headers = headers
        if let token { headers.set("Authorization", "Bearer \(token)") }
        headers.set("Content-Type", "application/json")
        headers.set("Accept", "text/event-stream")
        return HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: baseURL, path: route("chat/completions")), headers: headers,
            body: body(for: messages), timeout: headTimeout)
    }

    /// `route` under ``apiPrefix``.
    private func route(_ route: String) -> String {
        apiPrefix.route(route)
    }

    /// `GET /v1/chat/completions/{id}/events` with `Last-Event-ID`: no body, no prompt.
    private func resumeRequest(_ progress: Progress, token: String?) -> HTTPRequest {
        var headers = headers
        if let token { headers.set("Authorization", "Bearer \(token)") }
        headers.set("Accept", "text/event-stream")
        headers.set("Last-Event-ID", String(progress.lastEventID ?? 0))
        return HTTPRequest(
            url: APIEndpoint.url(base: baseURL, path: route("chat/completions/\(progress.streamID ?? "")/events")),
            headers: headers, timeout: headTimeout)
    }
}

/// The random source a jitter-free backoff is given: it is never asked for a value that matters.
private struct NoRandomness: RandomSource {
    func nextUInt64() -> UInt64 { 0 }
}
