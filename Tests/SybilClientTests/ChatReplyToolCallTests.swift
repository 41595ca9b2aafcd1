import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

@testable import SybilClient

/// A reply's tool calls move to its message when it ends and are saved with it, so a reopened
/// chat has them; they are never sent back (a continuation carries the reply's text only). The
/// reply's own task is kept by the model, which cancels it on stop and when its caller is
/// cancelled: the request's stream sees the cancellation.
@MainActor
@Suite("Chat replies: tool calls kept, the reply's task owned", .timeLimit(.minutes(2)))
struct ChatReplyToolCallTests {
    /// Every request streams `text`, then the calls as increments, then ends.
    final class ToolCallingStreaming: ChatStreaming {
        let text: String
        let requests = Locked<[[ChatMessage]]>([])

        init(text: String) { self.text = text }

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { $0.finish() }
        }

        func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
            requests.withLock { $0.append(messages) }
            let text = text
            return AsyncThrowingStream { continuation in
                if !text.isEmpty { continuation.yield(ChatDelta(text: text)) }
                continuation.yield(
                    ChatDelta(toolCalls: [
                        ChatToolCallDelta(index: 0, id: "call_1", name: "get_weather", arguments: "{")
                    ]))
                continuation.yield(ChatDelta(toolCalls: [ChatToolCallDelta(index: 0, arguments: #""city":"Paris"}"#)]))
                continuation.finish()
            }
        }
    }

    /// A request that streams nothing until it ends; `requested` yields when a request leaves,
    /// `terminated` when its stream is cancelled (the signals the tests wait on).
    final class CancellationSignalStreaming: ChatStreaming {
        let requested: AsyncStream<Void>
        let terminated: AsyncStream<Void>
        private let requestedSink: AsyncStream<Void>.Continuation
        private let terminatedSink: AsyncStream<Void>.Continuation

        init() {
            (requested, requestedSink) = AsyncStream<Void>.makeStream()
            (terminated, terminatedSink) = AsyncStream<Void>.makeStream()
        }

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
            let sink = terminatedSink
            continuation.onTermination = { termination in
                if case .cancelled = termination { sink.yield() }
            }
            requestedSink.yield()
            return stream
        }
    }

    /// Streams text and a call in two increments, then stays open: the process dies before the
    /// reply ends. ``end()`` finishes the streams when the test is done.
    final class UnfinishedToolCallingStreaming: ChatStreaming {
        private let open = Locked<[AsyncThrowingStream<ChatDelta, any Error>.Continuation]>([])

        func reply(to messages: [ChatMessage]) -> AsyncThrowingStream<String, any Error> {
            AsyncThrowingStream { $0.finish() }
        }

        func deltas(to messages: [ChatMessage]) -> AsyncThrowingStream<ChatDelta, any Error> {
            let (stream, continuation) = AsyncThrowingStream<ChatDelta, any Error>.makeStream()
            continuation.yield(ChatDelta(text: "Let me check."))
            continuation.yield(
                ChatDelta(toolCalls: [ChatToolCallDelta(index: 0, id: "call_1", name: "get_weather", arguments: "{")]))
            continuation.yield(ChatDelta(toolCalls: [ChatToolCallDelta(index: 0, arguments: #""city":"Paris"}"#)]))
            open.withLock { $0.append(continuation) }
            return stream
        }

        func end() {
            for continuation in open.withLock({ $0 }) { continuation.finish() }
        }
    }

    static let expected = ChatToolCall(index: 0, id: "call_1", name: "get_weather", arguments: #"{"city":"Paris"}"#)

    func makeModel(_ streaming: any ChatStreaming, store: any ChatHistoryStore, id: String? = nil)
        -> ChatConversationModel
    {
        ChatConversationModel(
            streaming: streaming, store: store, model: "m", now: { 1_000 },
            ids: SequentialIDGenerator(prefix: id == nil ? "id" : "again"), warmUp: nil, conversationId: id)
    }

    @Test func theCallsMoveToTheReplySavedWithItAndAreNotSentBack() async throws {
        let store = InMemoryChatHistory()
        let streaming = ToolCallingStreaming(text: "Let me check.")
        let model = makeModel(streaming, store: store)
        #expect(await model.send("weather?"))
        #expect(model.messages.last?.toolCalls == [Self.expected])
        #expect(model.replyToolCalls.isEmpty, "the calls are drawn from the message, never twice")
        let id = try #require(model.conversationId)
        #expect(await store.messages(inConversation: id).last?.toolCalls == [Self.expected])

        let reopened = makeModel(streaming, store: store, id: id)
        await reopened.enter()
        #expect(reopened.messages.map(\.toolCalls) == [[], [Self.expected]])
        #expect(await reopened.send("and tomorrow?"))
        let continued = try #require(streaming.requests.withLock { $0.last })
        try #require(continued.map(\.role) == ["user", "assistant", "user"])
        #expect(continued[1].content == "Let me check.", "the reply's text goes back, its calls do not")
    }

    @Test func aReplyThatOnlyCalledToolsIsKeptButLeftOutOfTheNextRequest() async throws {
        let store = InMemoryChatHistory()
        let streaming = ToolCallingStreaming(text: "")
        let model = makeModel(streaming, store: store)
        #expect(await model.send("weather?"))
        #expect(model.messages.last?.state == .complete)
        #expect(model.messages.last?.toolCalls == [Self.expected])
        #expect(await model.send("thanks"))
        #expect(streaming.requests.withLock { $0.last?.map(\.role) } == ["user", "user"])
    }

    @Test func stopCancelsTheReplysOwnTask() async throws {
        let streaming = CancellationSignalStreaming()
        let model = makeModel(streaming, store: InMemoryChatHistory())
        let sending = Task { await model.send("Hi") }
        for await _ in streaming.requested { break }
        let flow = try #require(model.replyFlow, "the model keeps the reply's task")
        #expect(!flow.isCancelled)
        model.stop()
        #expect(flow.isCancelled, "stop cancels the task the model keeps")
        for await _ in streaming.terminated { break }
        #expect(await sending.value)
        #expect(model.replyFlow == nil, "an ended reply leaves no task behind")
        #expect(model.messages.last?.state == .stopped)
    }

    @Test func cancellingTheCallerCancelsTheReplysTaskAndItsRequest() async throws {
        let streaming = CancellationSignalStreaming()
        let store = InMemoryChatHistory()
        let model = makeModel(streaming, store: store)
        let sending = Task { await model.send("Hi") }
        for await _ in streaming.requested { break }
        let flow = try #require(model.replyFlow)
        sending.cancel()
        for await _ in streaming.terminated { break }
        #expect(flow.isCancelled)
        _ = await sending.value
        #expect(!model.isTyping)
        let id = try #require(model.conversationId)
        #expect(await store.messages(inConversation: id).last?.state == .stopped, "the ending is still saved")
    }

    @Test func theCallsOfAReplyCutByACrashAreSavedAsTheyArriveAndShownAfterARelaunch() async throws {
        let history = RecordingChatHistory()
        let streaming = UnfinishedToolCallingStreaming()
        let model = makeModel(streaming, store: history)
        let sending = Task { await model.send("weather?") }
        #expect(
            await ConditionWait.until { history.updates.last?.toolCalls == [Self.expected] },
            "the calls are saved while the reply streams (updates: \(history.updates))")
        #expect(history.updates.last?.state == .streaming)
        #expect(history.updates.last?.text == "Let me check.", "with the text that came before them")

        // The process dies here, the reply never ends; a new launch opens the same history.
        let id = try #require(model.conversationId)
        let relaunched = makeModel(streaming, store: history, id: id)
        await relaunched.enter()
        let reply = try #require(relaunched.messages.last)
        #expect(reply.text == "Let me check.")
        #expect(reply.toolCalls == [Self.expected], "the cards come back with the cut reply")
        #expect(reply.state == .failed(reason: ChatConversationModel.interruptedReason))
        let saved = try await history.messages(inConversation: id).last
        #expect(saved?.toolCalls == [Self.expected], "marking it interrupted keeps the calls")

        model.stop()
        streaming.end()
        _ = await sending.value
    }
}
