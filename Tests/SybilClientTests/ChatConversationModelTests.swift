import SybilClient
import SybilNet
import SybilWire
import Synchronization
import Testing

/// Every ending of a reply leaves the page out of the "typing" state (seed 004).
@MainActor
@Suite("Chat conversation typing state", .timeLimit(.minutes(2)))
struct ChatConversationModelTests {
    /// Streams the scripted deltas, then ends as told.
    struct ScriptedStreaming: ChatStreaming {
        var deltas: [String]
        var ending: (any Error)?

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { continuation in
                for delta in deltas { continuation.yield(delta) }
                continuation.finish(throwing: ending)
            }
        }
    }

    /// Never ends until cancelled.
    struct EndlessStreaming: ChatStreaming {
        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { continuation in
                continuation.yield("Ein")
            }
        }
    }

    @Test func successAppendsTheReplyAndStopsTyping() async {
        let model = ChatConversationModel(streaming: ScriptedStreaming(deltas: ["Hal", "lo"], ending: nil))
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(
            model.transcript == [
                ChatMessage(role: "user", content: "Hi"), ChatMessage(role: "assistant", content: "Hallo"),
            ])
        #expect(model.lastError == nil)
    }

    @Test(
        "each failure stops typing and says why",
        arguments: [
            ChatStreamError.badRequest(nil), .unauthorized(APIErrorBody(message: "expired")), .notFound(nil),
            .serverError(status: 503, body: nil, retryAfter: .seconds(2)),
            .unexpectedStatus(status: 429, body: nil, retryAfter: nil), .wrongContentType("text/html"),
            .errorFrame(APIErrorBody(message: "upstream timeout")), .interrupted, .stalled(after: .seconds(30)),
            .malformedChunk("bad"), .transport("reset"),
        ])
    func failureStopsTyping(error: ChatStreamError) async {
        let model = ChatConversationModel(streaming: ScriptedStreaming(deltas: ["Teil"], ending: error))
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(model.lastError == error.description)
        #expect(model.transcript.last == ChatMessage(role: "assistant", content: "Teil"), "partial text is kept")
    }

    @Test func aSignedOutErrorStopsTyping() async {
        let model = ChatConversationModel(streaming: ScriptedStreaming(deltas: [], ending: TokenError.signedOut))
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(model.transcript.count == 1)
    }

    @Test func cancellationStopsTyping() async {
        let model = ChatConversationModel(streaming: EndlessStreaming())
        let sending = Task { await model.send("Hi") }
        for _ in 0..<1_000 where model.partialReply.isEmpty { await Task.yield() }
        #expect(model.isTyping)
        sending.cancel()
        await sending.value
        #expect(!model.isTyping)
        #expect(model.lastError == "The reply was stopped.")
    }
}
