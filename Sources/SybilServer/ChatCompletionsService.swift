import Foundation
import SybilCore
import SybilNet
import SybilWire
import Synchronization

/// The AI service surface (docs/api/chats.md): the health check and OpenAI-compatible chat
/// completions, whole or streamed, from the scripted agent or forwarded to an upstream
/// server, behind an optional simulated cold start.
final class ChatCompletionsService: Sendable {
    /// The model the scripted agent answers as.
    static let model = SybilServerOptions.scriptedModel

    private let options: SybilServerOptions
    private let time: ServerTime
    private let agent: ScriptedAgent
    private let coldStart: ColdStartGate?
    private let upstream: (any HTTPClient)?
    private let completionCounter = Atomic<Int>(0)

    init(options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)?) {
        self.options = options
        self.time = time
        agent = ScriptedAgent(seed: options.seed)
        coldStart = options.coldStart.map { ColdStartGate(duration: $0, idleTimeout: options.idleTimeout) }
        self.upstream = upstream
    }

    /// `GET /healthz`.
    func health() async -> HTTPServerResponse {
        if let refusal = await passColdStart() { return refusal }
        return .json(["status": "ok"])
    }

    /// `POST /v1/chat/completions`.
    func complete(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let parsed: (messages: [(role: String, content: String)], stream: Bool)
        do {
            parsed = try Self.validate(RequestBody.json(request.body), forwarding: upstream != nil)
        } catch {
            return error.response
        }
        if let refusal = await passColdStart() { return refusal }
        if let upstream, let base = options.upstream {
            return await forward(request.body, to: base, with: upstream)
        }
        let prompt = parsed.messages.last(where: { $0.role == "user" })?.content ?? ""
        let reply = agent.reply(to: prompt)
        let id = "chatcmpl-\(completionCounter.add(1, ordering: .relaxed).newValue)"
        let created = time.epochMilliseconds() / 1000
        guard parsed.stream else {
            if case .error = reply.ending {
                return APIError(status: 500, message: "The scripted agent failed as asked.", code: "scripted_error")
                    .response
            }
            return .json(
                [
                    "id": .string(id), "object": "chat.completion", "created": .number(JSONNumber(created)),
                    "model": .string(Self.model),
                    "choices": [
                        [
                            "index": 0, "message": ["role": "assistant", "content": .string(reply.text)],
                            "finish_reason": "stop",
                        ]
                    ],
                ])
        }
        return .eventStream { [time, options] stream in
            await Self.stream(reply, id: id, created: created, to: stream, time: time, pace: options.pace)
        }
    }

    // MARK: Private

    private func passColdStart() async -> HTTPServerResponse? {
        guard let coldStart, case .starting(let remaining) = coldStart.admit(now: time.uptime()) else { return nil }
        if options.coldStartWaits {
            try? await time.sleep(remaining)
            return nil
        }
        let seconds = APIError.retryAfterSeconds(for: remaining)
        return APIError(
            status: 503, message: "The service is starting; retry in \(seconds) seconds.", code: "cold_start",
            retryAfterSeconds: seconds
        ).response
    }

    private static func stream(
        _ reply: ScriptedAgent.Reply, id: String, created: Int64, to stream: HTTPResponseStream, time: ServerTime,
        pace: Duration
    ) async {
        func chunk(_ choice: ChatCompletionChunk.Choice) -> String {
            JSONWriter().string(
                from: ChatCompletionChunk(id: id, model: model, created: created, choices: [choice]).jsonValue)
        }
        stream.writeComment()
        stream.writeEvent(data: chunk(.init(index: 0, role: "assistant", content: "")))
        for (index, token) in reply.tokens.enumerated() {
            switch reply.ending {
            case .error(let after) where index == after:
                let error = APIError(
                    status: 500, message: "The scripted agent failed as asked.", type: "server_error",
                    code: "scripted_error")
                stream.writeEvent(data: JSONWriter().string(from: error.body), type: "error")
                return
            case .interrupt(let after) where index == after:
                return
            default:
                break
            }
            if pace > .zero {
                do { try await time.sleep(pace) } catch { return }
            }
            guard stream.writeEvent(data: chunk(.init(index: 0, content: token))) else { return }
        }
        stream.writeEvent(data: chunk(.init(index: 0, finishReason: .stop)))
        stream.writeEvent(data: "[DONE]")
    }

    private func forward(_ body: [UInt8], to base: URL, with client: any HTTPClient) async -> HTTPServerResponse {
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Accept", "text/event-stream")])
        if let key = options.upstreamKey { headers.set("Authorization", "Bearer \(key)") }
        let request = HTTPRequest(
            method: "POST", url: APIEndpoint.url(base: base, path: "v1/chat/completions"), headers: headers, body: body,
            timeout: .seconds(60))
        let response: HTTPStreamingResponse
        do {
            response = try await client.send(request)
        } catch {
            return APIError(
                status: 503, message: "The upstream server could not be reached: \(error).",
                code: "upstream_unavailable"
            ).response
        }
        var forwarded = HTTPHeaders()
        for name in ["Content-Type", "Retry-After"] {
            // Values are written through HTTPResponseWriter, which neutralises line breaks.
            if let value = response.head.headers[name] { forwarded.set(name, value) }
        }
        let upstreamBody = response.body
        return HTTPServerResponse(
            status: response.head.status, headers: forwarded,
            body: .stream { stream in
                do {
                    for try await bytes in upstreamBody {
                        guard stream.write(bytes) else { return }
                    }
                } catch {
                    let failure = APIError(
                        status: 502, message: "The upstream stream failed: \(error).", code: "upstream_failed")
                    stream.writeEvent(data: JSONWriter().string(from: failure.body), type: "error")
                }
            })
    }

    /// Checks a request body against docs/api/chats.md; the error names the member.
    static func validate(_ value: JSONValue, forwarding: Bool) throws(APIError) -> (
        messages: [(role: String, content: String)], stream: Bool
    ) {
        guard case .object(let object) = value else {
            throw .invalid("The body must be a JSON object.", param: "body")
        }
        guard case .string(let model)? = object["model"], !model.isEmpty else {
            throw .invalid("'model' is required and must be a non-empty string.", param: "model")
        }
        if !forwarding && model != Self.model {
            throw APIError(
                status: 404, message: "The model '\(model)' does not exist; this server offers '\(Self.model)'.",
                code: "model_not_found", param: "model")
        }
        guard case .array(let items)? = object["messages"], !items.isEmpty else {
            throw .invalid("'messages' is required and must be a non-empty array.", param: "messages")
        }
        var messages: [(role: String, content: String)] = []
        for (index, item) in items.enumerated() {
            guard case .object(let message) = item else {
                throw .invalid("messages[\(index)] must be an object.", param: "messages[\(index)]")
            }
            guard case .string(let role)? = message["role"], ["system", "user", "assistant"].contains(role) else {
                throw .invalid(
                    "messages[\(index)].role must be one of system, user, assistant.", param: "messages[\(index)].role")
            }
            guard case .string(let content)? = message["content"] else {
                throw .invalid("messages[\(index)].content must be a string.", param: "messages[\(index)].content")
            }
            messages.append((role, content))
        }
        var stream = false
        if let value = object["stream"] {
            guard case .bool(let flag) = value else { throw .invalid("'stream' must be a boolean.", param: "stream") }
            stream = flag
        }
        return (messages, stream)
    }
}
