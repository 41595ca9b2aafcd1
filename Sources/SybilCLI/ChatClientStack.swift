import Foundation
import SybilClient
import SybilCore
import SybilHTTP
import SybilNet
import SybilServer

/// The client stack the chat commands share, as the apps wire it: one HTTP client, the
/// warm-up manager (its health check single-flight), the send gate over it, and a streaming
/// service per model. The command line is an entry point, so it creates the live clock, time
/// and id generator here.
@MainActor
struct ChatClientStack {
    let baseURL: URL
    /// `nil` for a server that needs no key: no `Authorization` is sent.
    let tokens: TokenProvider?
    let headers: HTTPHeaders
    let http: any HTTPClient
    let clock = ContinuousClock()
    let warmUp: WarmUpManager<ContinuousClock>
    /// The chat requests' client: tells whether any of them may have reached the server.
    let requests: SentRequestWitness
    /// How long a chat request waits for the server, and whether a timeout is retried.
    let wait: ReplyWait
    /// Where the server's OpenAI routes are under ``baseURL``.
    let apiPrefix: APIPrefix

    /// The stack for `connection`; `timeout` (seconds, `sybil ask --timeout`) over the
    /// profile's `timeout`, else the wait for where the server is (``ReplyWait``). The embedded
    /// server, though on loopback, stands for a server elsewhere and keeps that wait.
    init(connection: ServerTarget.Connection, timeout: Int? = nil) {
        baseURL = connection.baseURL
        apiPrefix = connection.apiPrefix
        let seconds = timeout ?? connection.profile?.timeoutSeconds
        wait =
            connection.embedded == nil
            ? ReplyWait.forServer(at: connection.baseURL, seconds: seconds)
            : seconds.map { ReplyWait(head: .seconds($0), silence: .seconds($0), retriesTimeout: true) } ?? .remote
        http = connection.http()
        var fields = connection.headers
        if connection.sendsKey, !connection.renewsKey, let key = connection.key {
            // A key nothing can renew is sent as it is: a 401 then reaches the user with the
            // server's own message, instead of a renewal that cannot succeed.
            tokens = nil
            fields.set("Authorization", "Bearer \(key)")
        } else {
            tokens = connection.sendsKey ? connection.tokens : nil
        }
        headers = fields
        requests = SentRequestWitness(http)
        // Warm-up sends only what the server serves: /healthz where it is a Sybil server,
        // else /v1/models (with the key: OpenAI requires one there).
        let check: WarmUpHealthCheck =
            connection.capabilities?.hasHealthCheck == true
            ? .healthz
            : .models(
                key: connection.sendsKey ? connection.key : nil, headers: connection.headers,
                apiPrefix: connection.apiPrefix)
        warmUp = WarmUpManager(http: http, baseURL: connection.baseURL, clock: clock, check: check)
    }

    /// The streaming service for `model`, behind the warm-up's send gate.
    func streaming(model: String) -> ChatStreamingService<ContinuousClock> {
        ChatStreamingService(
            baseURL: baseURL, http: requests, clock: clock, tokens: tokens, gate: WarmUpSendGate(manager: warmUp),
            model: model, headers: headers, stallTimeout: wait.silence, headTimeout: wait.head,
            retriesTimeout: wait.retriesTimeout, apiPrefix: apiPrefix)
    }

    /// Milliseconds since 1970 from the system clock.
    /// The chat commands' connection: `target`, or the embedded server pacing its scripted
    /// tokens like a model (15 ms) with the agent seeded by `seed`; `nil` (reason on stderr)
    /// when it cannot start.
    nonisolated static func connect(_ target: ServerTarget, seed: UInt64, command: String, io: CommandIO)
        -> ServerTarget.Connection?
    {
        target.connect(command: command, io: io) { options in
            options.seed = seed
            options.pace = .milliseconds(15)
        }
    }

    /// The model to ask: `given` (`--model`), else the profile's, else the embedded server's
    /// scripted model, else the server's first listed model (named on standard error). When
    /// the list cannot be had the scripted model's name is sent, and the chat request's own
    /// answer says what is wrong with the server.
    static func model(given: String?, connection: ServerTarget.Connection, command: String, io: CommandIO) async
        -> String
    {
        if let given { return given }
        if let model = connection.profile?.model { return model }
        if connection.embedded != nil { return SybilServerOptions.scriptedModel }
        let key = connection.sendsKey ? (try? await connection.tokens.token()) ?? nil : nil
        let client = ModelListClient(
            baseURL: connection.baseURL, http: connection.http(),
            key: key,
            headers: connection.headers, apiPrefix: connection.apiPrefix)
        do {
            if let first = try await client.models().models.first {
                io.writeError(
                    "\(command): asking \(TerminalText.oneLine(first.id)), the server's first model"
                        + " (choose with --model or a profile's model)\n")
                return first.id
            }
            io.writeError("\(command): the server lists no models; asking \(SybilServerOptions.scriptedModel)\n")
        } catch {
            if case .malformed(let reason) = error {
                io.writeError(
                    "\(command): the server's model list could not be read (\(reason));"
                        + " asking \(SybilServerOptions.scriptedModel)\n")
            }
        }
        return SybilServerOptions.scriptedModel
    }

    static let now = WallClock.milliseconds

    /// Random version-4 UUIDs.
    static let ids = RandomUUIDGenerator()
}
