import SybilClient
import SybilCore
import SybilNet
import SybilWire

/// Passes a chat stream through while handing each step to `show` as it arrives (the reply
/// printer writes it to standard output), and keeps what the command reports at the end: the
/// error the stream ended with (the exit status depends on its kind), the reasoning, the finish
/// reason and the usage.
final class EchoingChatStream: ChatStreaming {
    /// What arrived besides the text.
    struct Summary: Sendable {
        var failure: (any Error)?
        var wroteText = false
        var reasoning = ""
        var finishReason: ChatDelta.FinishReason?
        var usage: ChatDelta.Usage?
        /// The tool calls the model made, put together from their increments.
        var toolCalls: [ChatToolCall] = []
    }

    private let base: any ChatStreaming
    private let show: @Sendable (ChatDelta) -> Void
    private let state = Locked(Summary())

    init(_ base: any ChatStreaming, show: @escaping @Sendable (ChatDelta) -> Void) {
        self.base = base
        self.show = show
    }

    /// A stream that writes only the text of each step through `write`.
    convenience init(_ base: any ChatStreaming, write: @escaping @Sendable (String) -> Void) {
        self.init(base) { delta in if !delta.text.isEmpty { write(delta.text) } }
    }

    /// The error the last reply ended with, if any.
    var failure: (any Error)? { state.withLock { $0.failure } }
    /// Whether any text was written.
    var wroteText: Bool { state.withLock { $0.wroteText } }
    /// Everything the last reply brought besides its text.
    var summary: Summary { state.withLock { $0 } }

    func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
        Self.map(deltas(to: messages)) { $0.text.isEmpty ? nil : $0.text }
    }

    func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
        let upstream = base.deltas(to: messages)
        return BoundedStream.make { [self] yield in
            do {
                for try await delta in upstream {
                    try Task.checkCancellation()  // a stopped reply shows nothing more
                    show(delta)
                    state.withLock { summary in
                        summary.wroteText = summary.wroteText || !delta.text.isEmpty
                        summary.reasoning += delta.reasoning
                        summary.finishReason = delta.finishReason ?? summary.finishReason
                        summary.usage = delta.usage ?? summary.usage
                        if !delta.toolCalls.isEmpty { ChatToolCall.merge(delta.toolCalls, into: &summary.toolCalls) }
                    }
                    guard await yield(delta) else { throw CancellationError() }
                }
            } catch {
                state.withLock { $0.failure = error }
                throw error
            }
        }
    }

    /// The exit status for a reply that failed with the stream's error: the server could not be
    /// reached or failed (69), it refused the key (77: a 401, or a 403 for a key without access
    /// to the model or project), or it broke off or refused (76).
    var failureExitCode: ExitCode {
        if failure is KeyCommandError || failure as? TokenError == .cannotRefresh { return .permissionDenied }
        switch failure as? ChatStreamError {
        case .transport?, .serverError?: return .unavailable
        case .unauthorized?, .unexpectedStatus(status: 403, _, _)?: return .permissionDenied
        default: return .protocolError
        }
    }
}
