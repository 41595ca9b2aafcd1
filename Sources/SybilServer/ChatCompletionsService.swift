import Foundation
import SybilCore
import SybilHTTP
import SybilWire
import Synchronization

/// The AI service surface (docs/api/chats.md): the health check, the model list and
/// OpenAI-compatible chat completions, whole or streamed, from the scripted agent or forwarded
/// to an upstream server, behind an optional simulated cold start. Every stream is produced
/// into the ``ChatStreamRegistry`` under an unguessable id, so a client that drops resumes it
/// with `GET /v1/chat/completions/{id}/events`.
final class ChatCompletionsService: Sendable {
    /// The model the scripted agent answers as.
    static let model = SybilServerOptions.scriptedModel
    /// Every model the scripted agent answers (`chat-latest` is Quick Question's default).
    static let models = [model, "chat-latest"]

    let options: SybilServerOptions
    let time: ServerTime
    let agent: ScriptedAgent
    let registry: ChatStreamRegistry
    private let random: any RandomSource
    private let coldStart: ColdStartGate?
    let upstream: (any HTTPClient)?
    /// The producers still generating (scripted streams and forwarders), tracked until they
    /// end; shutdown cancels and awaits them.
    private let producers: ServiceTasks

    init(
        options: SybilServerOptions, time: ServerTime, upstream: (any HTTPClient)?, random: any RandomSource,
        limits: ChatStreamTable.Limits = ChatStreamTable.Limits(), executor: (any TaskExecutor)? = nil
    ) {
        producers = ServiceTasks(executor: executor)
        self.options = options
        self.time = time
        self.random = random
        agent = ScriptedAgent(seed: options.seed)
        coldStart = options.coldStart.map { ColdStartGate(duration: $0, idleTimeout: options.idleTimeout) }
        self.upstream = upstream
        registry = ChatStreamRegistry(limits: limits, now: time.uptime)
    }

    /// `GET /healthz`; during a cold start with ``SybilServerOptions/coldStartWaits`` it waits
    /// until the service is up, or until the client's input ends (`input`).
    func health(_ input: HTTPInputEnd) async -> HTTPServerResponse {
        if let refusal = await passColdStart(input) { return refusal }
        return Self.healthy
    }

    /// `GET /healthz` answered without suspending, when there is no simulated cold start to
    /// pass (its gate may have to wait); `nil` otherwise, for ``health()``.
    func immediateHealth() -> HTTPServerResponse? {
        coldStart == nil ? Self.healthy : nil
    }

    /// The health answer, encoded once instead of on every request.
    private static let healthy = HTTPServerResponse.json(["status": "ok"])

    /// `POST /v1/chat/completions`.
    func complete(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let parsed: ChatCompletionRequest
        do {
            parsed = try ChatCompletionRequest.validate(
                RequestBody.json(request.body), models: Self.models, forwarding: upstream != nil)
        } catch {
            return error.response
        }
        if let refusal = await passColdStart(request.inputEnd) { return refusal }
        if let upstream, let base = options.upstream {
            return await forward(request.body, to: base, with: upstream)
        }
        let reply = agent.reply(to: parsed.prompt)
        let (tokens, finish) = ScriptedAgent.limit(reply.tokens, maxTokens: parsed.maxTokens, stop: parsed.stop)
        let usage = ChatCompletionUsage(
            promptTokens: Int64(ScriptedAgent.promptTokens(parsed.messages.map(\.content))),
            completionTokens: Int64(tokens.count))
        let id = newCompletionID()
        let created = time.epochMilliseconds() / 1000
        guard parsed.stream else {
            if case .error = reply.ending {
                return APIError(status: 500, message: "The scripted agent failed as asked.", code: "scripted_error")
                    .response
            }
            return .json(
                [
                    "id": .string(id), "object": "chat.completion", "created": .number(JSONNumber(created)),
                    "model": .string(parsed.model),
                    "choices": [
                        [
                            "index": 0, "message": ["role": "assistant", "content": .string(tokens.joined())],
                            "finish_reason": .string(finish.rawValue),
                        ]
                    ],
                    "usage": usage.jsonValue,
                ])
        }
        let script = ScriptedStream(
            id: id, model: parsed.model, created: created, tokens: tokens, finish: finish, ending: reply.ending,
            usage: parsed.includeUsage ? usage : nil)
        return startStream(id: id, kind: "stream") { [self] in await produce(script) }
    }

    /// Stops every producer within `deadline` on the service's clock (called when the server
    /// stops); returns the names of those that did not end in time.
    func shutdown(within deadline: Duration) async -> [String] {
        await producers.shutdown(within: deadline, sleep: time.sleep)
    }

    /// The streams being produced or forwarded right now.
    var runningTasks: Int { producers.count }

    /// Returns once no stream is being produced or forwarded: nothing more is appended to the
    /// registry until a new request.
    func quiescent() async {
        await producers.quiescent()
    }

    // MARK: Models
    /// The `created` time of the scripted models: a fixed date (2025-01-01), so lists compare.
    static let modelsCreated: Int64 = 1_735_689_600

    /// `GET /v1/models`: OpenAI's list shape. With `--upstream`, the upstream's list.
    func listModels() async -> HTTPServerResponse {
        if let upstream, let base = options.upstream {
            return await forwardModels(path: "v1/models", to: base, with: upstream)
        }
        return .json(["object": "list", "data": .array(Self.models.map(Self.modelObject))])
    }

    /// `GET /v1/models/{modelId}`: one model, or 404 `model_not_found`. With `--upstream`, the
    /// upstream's answer; the id is one plain segment by its type (``ModelID``), so it never
    /// makes this server fetch another upstream path with its key.
    func model(id: ModelID) async throws(APIError) -> HTTPServerResponse {
        if let upstream, let base = options.upstream {
            return await forwardModels(path: "v1/models/\(id.rawValue)", to: base, with: upstream)
        }
        guard Self.models.contains(id.rawValue) else {
            throw APIError(
                status: 404,
                message: "The model does not exist; this server offers \(Self.models.joined(separator: ", ")).",
                code: "model_not_found", param: "model")
        }
        return .json(Self.modelObject(id.rawValue))
    }

    private static func modelObject(_ id: String) -> JSONValue {
        [
            "id": .string(id), "object": "model", "created": .number(JSONNumber(modelsCreated)),
            "owned_by": "sybil",
        ]
    }

    // MARK: Streams

    /// Opens stream `id`, starts `produce` into it as a tracked task named `kind` and `id` (it
    /// runs whether or not anyone reads), and answers with the stream read from its first
    /// event; 503 when the registry is full of running streams or the service is stopping.
    func startStream(id: String, kind: String, produce: @escaping @Sendable () async -> Void) -> HTTPServerResponse {
        guard registry.open(id) else {
            return APIError(
                status: 503,
                message: "Too many chat streams are running (\(registry.limits.maximumStreams)); retry shortly.",
                code: "streams_busy", retryAfterSeconds: 1
            ).response
        }
        let registry = registry
        let started = producers.start("\(kind) \(id)") {
            await produce()
            registry.finish(id)
        }
        guard started != nil else {
            registry.finish(id)
            return APIError(
                status: 503, message: "The server is stopping.", code: "shutting_down", retryAfterSeconds: 1
            ).response
        }
        return .eventStream { [self] stream in await follow(id, after: 0, to: stream) }
    }

    /// A fresh unguessable completion id: `chatcmpl-` and 128 random bits in hex.
    func newCompletionID() -> String {
        "chatcmpl-" + [random.nextUInt64(), random.nextUInt64()].map { Self.hex16($0) }.joined()
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// `nil` once the service is up, else the 503 that says how long it has left. With
    /// ``SybilServerOptions/coldStartWaits`` the request waits until it is up, unless the
    /// client's input ends first (a half-close, or a client gone: TCP does not tell them apart):
    /// then it gets the 503 at once, so a gone client's request does not hold its handler.
    private func passColdStart(_ input: HTTPInputEnd) async -> HTTPServerResponse? {
        let started = time.uptime()
        guard let coldStart, case .starting(var remaining) = coldStart.admit(now: started) else { return nil }
        if options.coldStartWaits {
            let wait = remaining
            let up = await input.unlessEnded { [time] in try? await time.sleep(wait) }
            if up { return nil }
            remaining = max(remaining - (time.uptime() - started), .zero)
        }
        let seconds = APIError.retryAfterSeconds(for: remaining)
        return APIError(
            status: 503, message: "The service is starting; retry in \(seconds) seconds.", code: "cold_start",
            retryAfterSeconds: seconds
        ).response
    }
}
