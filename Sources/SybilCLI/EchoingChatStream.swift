import SybilCore
import SybilNet

/// Passes a chat stream through while writing each delta to standard output as it arrives, and
/// keeps the error the stream ended with (the command's exit status depends on its kind).
final class EchoingChatStream: ChatStreaming {
    private let base: any ChatStreaming
    private let write: @Sendable (String) -> Void
    private let state = Locked<(failure: (any Error)?, wroteText: Bool)>((nil, false))

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
                    try Task.checkCancellation()  // a stopped reply shows nothing more
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
