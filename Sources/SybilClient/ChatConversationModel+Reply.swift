import SybilNet
import SybilStore
import SybilWire

extension ChatConversationModel {
    /// The sentence for a stream that ended normally but brought no text.
    public static let emptyReplyReason = "The reply arrived empty. Retry to ask again."

    /// Streams the reply to the last question: saved as `.streaming` when the request leaves,
    /// updated as text and tool calls arrive (reasoning, finish reason and usage go to
    /// ``replyDetails``, tool calls to ``replyToolCalls`` and, when it ends, to the message;
    /// they are saved with the text as they come, so a crash keeps them), ended as `.complete`,
    /// `.stopped` or `.failed`. Runs in a task of its own that the model keeps
    /// (``replyFlow``): cancelling the caller, ``stop()`` or a new reply cancels it, which stops
    /// the stream; the ending is still saved. (The model cannot be freed while it runs: the
    /// task holds it.)
    func streamReply() async {
        replyFlow?.cancel()
        let flow = Task { @MainActor in await self.runReply() }
        replyFlow = flow
        await withTaskCancellationHandler {
            await flow.value
        } onCancel: {
            flow.cancel()
        }
        if replyFlow == flow { replyFlow = nil }
    }

    private func runReply() async {
        defer { endTyping() }
        let (streaming, store, ids) = replyContext
        guard let conversationId else { return }
        let request = requestMessages()
        let startedAt = currentTime()
        let reply = ChatMessageRecord(
            id: ids.makeID(), conversationId: conversationId, role: .assistant, text: "", model: model,
            state: .streaming, createdAt: startedAt)
        do {
            try await store.appendMessage(reply)
        } catch {
            report("The reply could not be saved, so it was not requested (\(error)). Retry when saving works again.")
            return
        }
        appendToTranscript(reply)
        touch(at: startedAt)
        replyDetails = ChatDelta()
        replyToolCalls = []
        let stream = Task { @MainActor () -> (String, ChatMessageRecord.State) in
            var text = ""
            if self.stopRequested || Task.isCancelled { return (text, .stopped) }
            do {
                for try await delta in streaming.deltas(to: request) {
                    self.replyDetails.reasoning += delta.reasoning
                    self.replyDetails.finishReason = delta.finishReason ?? self.replyDetails.finishReason
                    self.replyDetails.usage = delta.usage ?? self.replyDetails.usage
                    let calls = !delta.toolCalls.isEmpty
                    if calls { ChatToolCall.merge(delta.toolCalls, into: &self.replyToolCalls) }
                    guard !delta.text.isEmpty || calls else { continue }
                    text += delta.text
                    // The calls so far are saved with the text, so a crash keeps both.
                    self.progress(text, toolCalls: self.replyToolCalls, of: reply.id)
                }
                if Task.isCancelled { return (text, .stopped) }
                // A reply that only calls tools is whole: its calls are what it says.
                let empty = text.isEmpty && self.replyToolCalls.isEmpty
                return (text, empty ? .failed(reason: Self.emptyReplyReason) : .complete)
            } catch {
                if Task.isCancelled || error is CancellationError { return (text, .stopped) }
                return (text, .failed(reason: Self.sentence(for: error)))
            }
        }
        streamTask = stream
        // The flow cancelled (its caller, stop(), a new reply) stops the stream; what arrived is
        // saved below as stopped.
        let (text, ending) = await withTaskCancellationHandler {
            await stream.value
        } onCancel: {
            stream.cancel()
        }
        streamTask = nil
        await progressWriter?.value
        let finishedAt = currentTime()
        // The calls move onto the message in the same change, so the app never shows them twice.
        let toolCalls = replyToolCalls
        replaceMessage(id: reply.id) {
            $0.text = text
            $0.state = ChatTranscriptMessage.State(ending)
            $0.finishedAt = finishedAt
            $0.toolCalls = toolCalls
        }
        replyToolCalls = []
        if case .failed(let reason) = ending { report(reason) }
        do {
            try await store.updateMessage(
                id: reply.id, text: text, state: ending, finishedAt: finishedAt, toolCalls: toolCalls, at: finishedAt)
            touch(at: finishedAt)
        } catch {
            report("The reply could not be saved (\(error)); it stays on screen until the chat is closed.")
        }
    }

    /// Shows `text` and queues it to be saved with the tool calls so far (shown apart until the
    /// reply ends): one write at a time, and the next write takes the newest text and calls
    /// (older ones that were waiting are skipped).
    private func progress(_ text: String, toolCalls: [ChatToolCall], of id: String) {
        replaceMessage(id: id) { $0.text = text }
        pendingProgress = (text, toolCalls)
        guard progressWriter == nil else { return }
        let store = replyStore
        progressWriter = Task { @MainActor in
            while let next = self.pendingProgress {
                self.pendingProgress = nil
                let time = self.currentTime()
                // A failed progress write loses nothing for good: the ending writes the whole text.
                try? await store.updateMessage(
                    id: id, text: next.text, state: .streaming, finishedAt: nil,
                    toolCalls: next.toolCalls.isEmpty ? nil : next.toolCalls, at: time)
            }
            self.progressWriter = nil
        }
    }

    /// One sentence that says what happened and what the person can do.
    public static func sentence(for error: any Error) -> String {
        if case .unauthorized(let body)? = error as? ChatStreamError {
            // The server's own words say why (an unknown key, a revoked one, a missing scope).
            let message = ChatStreamError.serverMessage(body) ?? ""
            let note = ChatStreamError.keyRefusalNote(body).map { " (\($0))" } ?? ""
            return "the server refused the key" + (message.isEmpty ? " (401)" : ": \(message)") + note
        }
        if let error = error as? KeyCommandError { return "the server refused the key, and \(error)" }
        if let error = error as? ChatStreamError {
            let advice: String
            switch error {
            case .badRequest, .notFound: advice = "Check the server address and model, then retry."
            case .unauthorized: advice = "Sign in again, then retry."
            case .unexpectedStatus(403, _, _): advice = "Check that the key may use this server and model, then retry."
            case .unexpectedStatus(413, _, _):
                advice = "Send less (a shorter question or fewer attachments), then retry."
            case .unexpectedStatus(let status, _, _)
            where (400...499).contains(status) && ![408, 425, 429].contains(status):
                // The same request fails the same way again (422: vLLM and other FastAPI servers
                // refusing a request's fields).
                advice = "Check the server address and model, then retry."
            case .serverError, .unexpectedStatus:
                if let wait = error.retryAfter {
                    advice = "Retry in \(wait.components.seconds) s."
                } else {
                    advice = "Retry in a moment."
                }
            case .transport, .stalled: advice = "Check the connection, then retry."
            default: advice = "Retry to ask again."
            }
            return "\(error.description) \(advice)"
        }
        if let error = error as? TokenError { return error.description }
        return "The reply failed (\(error)). Retry to ask again."
    }
}
