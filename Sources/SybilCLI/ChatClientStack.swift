import Foundation
import SybilCore
import SybilNet
import Synchronization

/// The client stack the chat commands share, as the apps wire it: one HTTP client, the
/// warm-up manager (its health check single-flight), the send gate over it, and a streaming
/// service per model. The command line is an entry point, so it creates the live clock, time
/// and id generator here.
@MainActor
struct ChatClientStack {
    let baseURL: URL
    let tokens: TokenProvider
    let http = URLSessionHTTPClient()
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
    static let now: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1_000).rounded()) }

    /// Random version-4 UUIDs.
    static let ids = RandomUUIDGenerator()
}

/// Passes a chat stream through while writing each delta to standard output as it arrives, and
/// keeps the error the stream ended with (the command's exit status depends on its kind).
final class EchoingChatStream: ChatStreaming {
    private let base: any ChatStreaming
    private let write: @Sendable (String) -> Void
    private let state = Mutex<(failure: (any Error)?, wroteText: Bool)>((nil, false))

    init(_ base: any ChatStreaming, write: @escaping @Sendable (String) -> Void) {
        self.base = base
        self.write = write
    }

    /// The error the last reply ended with, if any.
    var failure: (any Error)? { state.withLock { $0.failure } }
    /// Whether any text was written.
    var wroteText: Bool { state.withLock { $0.wroteText } }

    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        let upstream = base.reply(to: messages)
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let task = Task { [self] in
            do {
                for try await delta in upstream {
                    write(delta)
                    state.withLock { $0.wroteText = true }
                    continuation.yield(delta)
                }
                continuation.finish()
            } catch {
                state.withLock { $0.failure = error }
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The exit status for a reply that failed with the stream's error: the server could not be
    /// reached or failed (69), or it broke off or refused (76).
    var failureExitCode: ExitCode {
        switch failure as? ChatStreamError {
        case .transport?, .serverError?: .unavailable
        default: .protocolError
        }
    }
}
