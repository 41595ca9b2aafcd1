import Observation
import SybilNet

/// A chat page's view model (seed 004): the transcript, the reply being streamed, and the
/// "typing" state, which every ending — success, each error, cancellation — turns off. Its
/// user is a chat screen (a SwiftUI view or a terminal front end); no `sybil` command drives
/// it yet (`sybil ask` streams through `ChatStreamingService` directly).
@MainActor
@Observable
public final class ChatConversationModel {
    /// Messages so far (the user's and the finished replies).
    public private(set) var transcript: [ChatMessage] = []
    /// The reply as it streams in.
    public private(set) var partialReply = ""
    /// Whether a reply is on its way.
    public private(set) var isTyping = false
    /// Why the last reply failed (its partial text stays in the transcript, marked).
    public private(set) var lastError: String?

    @ObservationIgnored private let streaming: any ChatStreaming

    /// A conversation over `streaming`.
    public init(streaming: any ChatStreaming) {
        self.streaming = streaming
    }

    /// Sends `text` and streams the reply into the transcript.
    public func send(_ text: String) async {
        transcript.append(ChatMessage(role: "user", content: text))
        isTyping = true
        partialReply = ""
        lastError = nil
        defer {
            isTyping = false
            if !partialReply.isEmpty {
                transcript.append(ChatMessage(role: "assistant", content: partialReply))
                partialReply = ""
            }
        }
        do {
            for try await delta in streaming.reply(to: transcript) {
                partialReply += delta
            }
            // A cancelled stream ends without an error: it is still not a finished reply.
            if Task.isCancelled { lastError = "The reply was stopped." }
        } catch is CancellationError {
            lastError = "The reply was stopped."
        } catch {
            lastError = String(describing: error)
        }
    }
}
