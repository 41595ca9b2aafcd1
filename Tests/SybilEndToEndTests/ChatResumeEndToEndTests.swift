import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer
import SybilStore
import Testing

/// A chat reply whose connection is cut mid-stream, over real loopback sockets: the client
/// resumes from its last event id (no prompt re-sent) and the user sees one reply, equal to
/// the uninterrupted one, directly and through a forwarding server.
@Suite("Chat streams resume over real sockets", .timeLimit(.minutes(2)))
struct ChatResumeEndToEndTests {
    private let question = "Was ist ein Kaltstart und wie lange dauert er?"

    @Test func aReplyCutMidStreamResumesIntoOneReplyWithThePromptSentOnce() async throws {
        let server = try startServer { $0.pace = .milliseconds(5) }
        let expected = try await wholeReply(from: server.baseURL, token: endToEndToken)
        let cutting = ChatStreamCuttingClient(cutFirstStreamAfterEvents: 3)
        let text = try await streamedReply(from: server.baseURL, http: cutting)
        #expect(text == expected)
        #expect(cutting.requests.filter { $0.method == "POST" }.count == 1, "the prompt is sent once")
        #expect(cutting.requests.contains { $0.method == "GET" && $0.url.path.hasSuffix("/events") })
        #expect(cutting.cuts == 1)
        await server.shutdown()
    }

    @Test func aForwardedStreamCutMidReplyResumesFromWhatTheFrontServerBuffered() async throws {
        let upstream = try startServer { $0.pace = .milliseconds(5) }
        let upstreamCalls = ChatStreamCuttingClient(cutFirstStreamAfterEvents: nil)
        let front = try startServer(upstream: upstreamCalls) { options in
            options.token = "front-token"
            options.upstream = upstream.baseURL
            options.upstreamKey = endToEndToken
        }
        let expected = try await wholeReply(from: upstream.baseURL, token: endToEndToken)
        let cutting = ChatStreamCuttingClient(cutFirstStreamAfterEvents: 3)
        let text = try await streamedReply(from: front.baseURL, http: cutting, token: "front-token")
        #expect(text == expected)
        #expect(cutting.requests.filter { $0.method == "POST" }.count == 1)
        #expect(cutting.cuts == 1)
        #expect(upstreamCalls.requests.count == 1, "the front server did not ask the upstream again")
        await front.shutdown()
        await upstream.shutdown()
    }

    /// The reply streamed through the client stack over `http`.
    private func streamedReply(from baseURL: URL, http: any HTTPClient, token: String = endToEndToken) async throws
        -> String
    {
        let tokens = TokenProvider(current: TokenLocation(store: InMemorySecretStore(["t": token]), account: "t"))
        let service = ChatStreamingService(
            baseURL: baseURL, http: http, clock: ContinuousClock(), tokens: tokens, gate: nil,
            model: SybilServerOptions.scriptedModel)
        var text = ""
        for try await delta in service.reply(to: [ChatMessage(role: "user", content: question)]) { text += delta }
        return text
    }

    /// The same question answered whole (no stream), straight from `baseURL`.
    private func wholeReply(from baseURL: URL, token: String) async throws -> String {
        let body: JSONValue = [
            "model": .string(SybilServerOptions.scriptedModel),
            "messages": [["role": "user", "content": .string(question)]],
        ]
        let response = try await DefaultHTTPClient.make().send(
            HTTPRequest(
                method: "POST", url: APIEndpoint.url(base: baseURL, path: "v1/chat/completions"),
                headers: HTTPHeaders([("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]),
                body: JSONWriter().bytes(from: body)))
        let value = try JSONReader().parse(try await response.collect())
        let reader = try JSONObjectReader(value, at: .root)
        let choice = try JSONObjectReader(try reader.array("choices")[0], at: .root)
        return try JSONObjectReader(try choice.value("message"), at: .root).string("content")
    }
}

/// Starts a reference server whose forwarded chats go through `upstream`.
private func startServer(upstream: any HTTPClient, _ configure: (inout SybilServerOptions) -> Void) throws
    -> ReferenceServer
{
    var options = SybilServerOptions(token: endToEndToken)
    options.pace = .zero
    configure(&options)
    return try ReferenceServer(options: options, upstream: upstream)
}

/// URLSession over loopback, counting requests; the first event stream it carries is cut (the
/// connection closed) once `cutFirstStreamAfterEvents` events have arrived, as a flaky network
/// would.
final class ChatStreamCuttingClient: HTTPClient {
    private struct State {
        var requests: [HTTPRequest] = []
        var cuts = 0
        var armed: Bool
    }

    private let inner = DefaultHTTPClient.make(redirects: .deliver)
    private let limit: Int?
    private let state: Locked<State>

    init(cutFirstStreamAfterEvents limit: Int?) {
        self.limit = limit
        state = Locked(State(armed: limit != nil))
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }
    var cuts: Int { state.withLock { $0.cuts } }

    struct ConnectionCut: Error, CustomStringConvertible {
        var description: String { "The network dropped the connection." }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        state.withLock { $0.requests.append(request) }
        let response = try await inner.send(request)
        let isStream = response.head.headers["Content-Type"]?.hasPrefix("text/event-stream") == true
        let cut =
            isStream
            && state.withLock { state in
                defer { state.armed = false }
                return state.armed
            }
        guard cut, let limit else { return response }
        let (body, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let task = Task { [self] in
            var events = 0
            do {
                for try await bytes in response.body {
                    continuation.yield(bytes)
                    events += zip(bytes, bytes.dropFirst()).filter { $0 == 0x0A && $1 == 0x0A }.count
                    if events >= limit {
                        state.withLock { $0.cuts += 1 }
                        continuation.finish(throwing: ConnectionCut())
                        return  // leaving the loop cancels the request: the socket closes
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return HTTPStreamingResponse(head: response.head, body: body)
    }
}
