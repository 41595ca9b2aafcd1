import Foundation
import SybilCore
import SybilWire

/// One message of a chat request.
public struct ChatMessage: Sendable, Hashable {
    /// `system`, `user` or `assistant`.
    public var role: String
    /// The text.
    public var content: String

    /// Creates a message.
    public init(role: String, content: String) {
        self.role = role
        self.content = content
    }
}

/// The one streaming protocol a chat page knows (the page never holds the transport and never
/// bypasses the send gate); tests inject a mock.
public protocol ChatStreaming: Sendable {
    /// The reply's text deltas, in order; the stream ends after `[DONE]` or throws.
    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error>
}

/// The service layer of chat streaming (SPEC §5.1–5.2): waits at the send gate, sends with the
/// bearer token, and retries once — a cold-start 5xx or a 401 after refreshing the token, the
/// two sharing one chance — but only before any text arrived.
public struct ChatStreamingService<C: Clock>: ChatStreaming where C.Duration == Duration {
    private let baseURL: URL
    private let transport: SSEChatTransport<C>
    private let tokens: TokenProvider
    private let gate: (any SendGate)?
    private let model: String

    /// A service for `model` at `baseURL`. A `nil` gate sends at once.
    public init(
        baseURL: URL, http: any HTTPClient, clock: C, tokens: TokenProvider, gate: (any SendGate)?,
        model: String, stallTimeout: Duration = .seconds(30)
    ) {
        self.baseURL = baseURL
        self.transport = SSEChatTransport(http: http, clock: clock, stallTimeout: stallTimeout)
        self.tokens = tokens
        self.gate = gate
        self.model = model
    }

    public func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let task = Task {
            do {
                try await run(messages, into: continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The request body.
    public func body(for messages: [ChatMessage]) -> [UInt8] {
        let value: JSONValue = [
            "model": .string(model),
            "messages": .array(messages.map { ["role": .string($0.role), "content": .string($0.content)] }),
            "stream": true,
        ]
        return JSONWriter().bytes(from: value)
    }

    private func run(_ messages: [ChatMessage], into continuation: AsyncThrowingStream<String, any Error>.Continuation)
        async throws
    {
        await gate?.open()
        try Task.checkCancellation()
        guard var token = try await tokens.token() else { throw TokenError.signedOut }
        var budget = RetryBudget()
        while true {
            var received = false
            do {
                for try await chunk in transport.chunks(for: request(messages, token: token)) {
                    let text = chunk.content
                    guard !text.isEmpty else { continue }
                    received = true
                    continuation.yield(text)
                }
                return
            } catch let error as ChatStreamError where !received {
                switch error {
                case .serverError where budget.spend():
                    continue  // a cold start: the container is up by now
                case .unauthorized where budget.spend():
                    token = try await tokens.refresh()
                default:
                    throw error
                }
            }
        }
    }

    private func request(_ messages: [ChatMessage], token: String) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.set("Authorization", "Bearer \(token)")
        headers.set("Content-Type", "application/json")
        headers.set("Accept", "text/event-stream")
        return HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: baseURL, path: "v1/chat/completions"), headers: headers,
            body: body(for: messages))
    }
}
