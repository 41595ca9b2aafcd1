import Foundation
import SybilCore
import SybilNet

/// The client stack the chat commands share, as the apps wire it: one HTTP client, the
/// warm-up manager (its health check single-flight), the send gate over it, and a streaming
/// service per model. The command line is an entry point, so it creates the live clock, time
/// and id generator here.
@MainActor
struct ChatClientStack {
    let baseURL: URL
    let tokens: TokenProvider
    let http = DefaultHTTPClient.make()
    let clock = ContinuousClock()
    let warmUp: WarmUpManager<ContinuousClock>

    init(connection: ServerTarget.Connection) {
        baseURL = connection.baseURL
        tokens = connection.tokens
        warmUp = WarmUpManager(http: http, baseURL: connection.baseURL, clock: clock)
    }

    /// The streaming service for `model`, behind the warm-up's send gate.
    func streaming(model: String) -> ChatStreamingService<ContinuousClock> {
        ChatStreamingService(
            baseURL: baseURL, http: http, clock: clock, tokens: tokens, gate: WarmUpSendGate(manager: warmUp),
            model: model)
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

    static let now = WallClock.milliseconds

    /// Random version-4 UUIDs.
    static let ids = RandomUUIDGenerator()
}
