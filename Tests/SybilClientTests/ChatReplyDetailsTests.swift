import SybilClient
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// A reply's reasoning, finish reason and usage reach the conversation model beside its text.
@MainActor
@Suite("Chat reply details", .timeLimit(.minutes(2)))
struct ChatReplyDetailsTests {
    /// Streams fixed steps.
    struct Steps: ChatStreaming {
        let steps: [ChatDelta]
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            Self.map(deltas(to: messages)) { $0.text.isEmpty ? nil : $0.text }
        }
        func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
            AsyncThrowingStream { continuation in
                for step in steps { continuation.yield(step) }
                continuation.finish()
            }
        }
    }

    @Test func reasoningFinishAndUsageAreKeptAndOnlyTheTextIsTheMessage() async throws {
        let usage = ChatCompletionUsage(promptTokens: 3, completionTokens: 2)
        let model = ChatConversationModel(
            streaming: Steps(steps: [
                ChatDelta(reasoning: "Hmm, "), ChatDelta(reasoning: "blue."), ChatDelta(text: "Blue"),
                ChatDelta(finishReason: .length), ChatDelta(usage: usage),
            ]),
            store: InMemoryChatHistory(), model: "m", now: { 0 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        #expect(await model.send("Why?"))
        #expect(model.messages.last?.text == "Blue" && model.messages.last?.state == .complete)
        #expect(model.replyDetails == ChatDelta(reasoning: "Hmm, blue.", finishReason: .length, usage: usage))
    }

    @Test func aReplyWithOnlyReasoningIsStillEmpty() async throws {
        let model = ChatConversationModel(
            streaming: Steps(steps: [ChatDelta(reasoning: "Hmm"), ChatDelta(finishReason: .length)]),
            store: InMemoryChatHistory(), model: "m", now: { 0 }, ids: SequentialIDGenerator(prefix: "id"),
            warmUp: nil)
        _ = await model.send("Why?")
        #expect(model.messages.last?.state == .failed(reason: ChatConversationModel.emptyReplyReason))
        #expect(model.replyDetails.reasoning == "Hmm")
    }
}
