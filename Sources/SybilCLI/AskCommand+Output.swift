import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilWire

extension AskCommand {
    /// How `sybil ask` shows the reply: `--json`, `--show-reasoning`.
    struct Output: Equatable {
        /// One ``AskResult`` object on standard output when the reply ends, nothing else.
        var json = false
        /// The model's reasoning printed before the answer.
        var showReasoning = false
    }

    /// The note on standard error for a reply the token limit cut.
    static let lengthNote = "the reply was cut at the model's token limit"

    /// The output `options` ask for, checked.
    static func output(of options: Options) throws(UsageError) -> Output {
        let output = Output(json: options.json, showReasoning: options.showReasoning)
        if output.json {
            for (given, other) in [(options.showReasoning, "--show-reasoning"), (options.raw, "--raw")] where given {
                throw UsageError(command: name, message: "--json and \(other) exclude each other")
            }
        }
        return output
    }

    /// The spinner on standard error while nothing has arrived, when both standard output and
    /// standard error are terminals; "waking the service" while the warm-up's health check is
    /// under way (the send gate holds the request back for part of it; a cold service is still
    /// starting for the rest).
    @MainActor
    static func waitingIndicator(io: CommandIO, stack: ChatClientStack) -> WaitingIndicator<ContinuousClock>? {
        guard io.outputIsTerminal, let status = TerminalOutput.statusLine else { return nil }
        let warmUp = stack.warmUp
        return WaitingIndicator(clock: stack.clock, write: status.write) { _ in
            await MainActor.run { warmUp.state == .warming }
        }
    }

    /// What `--json` writes for `reply`.
    static func result(
        of reply: ChatTranscriptMessage?, summary: EchoingChatStream.Summary, model: String, conversationId: String?
    ) -> AskResult {
        AskResult(
            conversationId: conversationId, model: model, text: reply?.text ?? "",
            reasoning: summary.reasoning.isEmpty ? nil : summary.reasoning,
            finishReason: summary.finishReason?.rawValue, usage: summary.usage, toolCalls: summary.toolCalls)
    }

    /// The note on standard error for each tool call the model made: Sybil shows it and never
    /// runs it.
    static func toolCallNotes(_ calls: [ChatToolCall]) -> String {
        calls.map { "\(name): the model called the tool \($0.summary(width: 160)) (Sybil does not run tools)\n" }
            .joined()
    }
}
