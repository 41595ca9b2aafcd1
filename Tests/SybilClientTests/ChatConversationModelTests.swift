import SybilClient
import SybilNet
import SybilStore
import SybilTesting
import SybilWire
import Testing

/// Every ending of a reply leaves the page out of the "typing" state (seed 004), is saved with
/// its state, and says what happened in a sentence.
@MainActor
@Suite("Chat conversation endings", .timeLimit(.minutes(2)))
struct ChatConversationModelTests {
    let history = RecordingChatHistory()
    let time = TestTime()
    let warmUp = RecordingWarmUp()

    func makeModel(_ streaming: any ChatStreaming, conversationId: String? = nil) -> ChatConversationModel {
        ChatConversationModel(
            streaming: streaming, store: history, model: "sybil-scripted", now: time.now,
            ids: SequentialIDGenerator(prefix: "id"), warmUp: warmUp, conversationId: conversationId)
    }

    /// The saved copy of the conversation's messages.
    func saved(_ model: ChatConversationModel) async throws -> [ChatMessageRecord] {
        try await history.messages(inConversation: #require(model.conversationId))
    }

    @Test func successSavesBothMessagesWithModelAndTimingAndStopsTyping() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        streaming.yield("Hal")
        streaming.yield("lo")
        #expect(await ConditionWait.until { model.messages.last?.text == "Hallo" })
        time.set(5_000)
        streaming.finish()
        #expect(await sending.value)
        #expect(!model.isTyping)
        #expect(model.lastError == nil)
        let messages = try await saved(model)
        #expect(messages.map(ChatTranscriptMessage.init) == model.messages, "shown as saved")
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages.map(\.text) == ["Hi", "Hallo"])
        #expect(messages.map(\.state) == [.complete, .complete])
        #expect(messages.map(\.model) == ["sybil-scripted", "sybil-scripted"])
        #expect(messages[1].createdAt == 1_000, "when the request left")
        #expect(messages[1].finishedAt == 5_000, "when the reply ended")
        #expect(try await history.conversation(id: #require(model.conversationId))?.updatedAt == 5_000)
    }

    @Test(
        "each stream error stops typing, is saved as failed with the partial text, and offers Retry",
        arguments: [
            ChatStreamError.badRequest(nil), .unauthorized(APIErrorBody(message: "expired")), .notFound(nil),
            .serverError(status: 503, body: nil, retryAfter: .seconds(2)),
            .unexpectedStatus(status: 429, body: nil, retryAfter: nil), .wrongContentType("text/html"),
            .errorFrame(APIErrorBody(message: "upstream timeout")), .interrupted, .stalled(after: .seconds(30)),
            .malformedChunk("bad"), .transport("reset"),
        ])
    func failureStopsTyping(error: ChatStreamError) async throws {
        let model = makeModel(ScriptedStreaming(deltas: ["Teil"], ending: error))
        #expect(await model.send("Hi"))
        #expect(!model.isTyping)
        let sentence = ChatConversationModel.sentence(for: error)
        if case .unauthorized(let body) = error {
            #expect(sentence == "the server refused the key: \(body?.message ?? "")", "the server's own words")
        } else {
            #expect(sentence.hasPrefix(error.description))
            #expect(sentence.count > error.description.count, "says what to do")
        }
        #expect(model.lastError == sentence)
        #expect(model.canRetry)
        let reply = try await saved(model).last
        #expect(reply?.text == "Teil", "partial text is kept")
        #expect(reply?.state == .failed(reason: sentence))
        #expect(reply?.finishedAt != nil)
    }

    @Test func aServerErrorWithRetryAfterSaysWhenToRetry() {
        let sentence = ChatConversationModel.sentence(
            for: ChatStreamError.serverError(status: 503, body: nil, retryAfter: .seconds(7)))
        #expect(sentence == "The chat service failed (503). Retry in 7 s.")
    }

    @Test func aSignedOutErrorStopsTypingWithItsOwnSentence() async throws {
        let model = makeModel(ScriptedStreaming(deltas: [], ending: TokenError.signedOut))
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(model.lastError == TokenError.signedOut.description)
        #expect(try await saved(model).last?.state == .failed(reason: TokenError.signedOut.description))
    }

    @Test func aStreamThatEndsWithoutTextIsAFailureNotAnEmptyReply() async throws {
        let model = makeModel(ScriptedStreaming(deltas: [], ending: nil))
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(model.lastError == ChatConversationModel.emptyReplyReason)
        #expect(try await saved(model).last?.state == .failed(reason: ChatConversationModel.emptyReplyReason))
        #expect(model.canRetry)
    }

    @Test func stopEndsTheReplySavedAsStoppedWithWhatArrived() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        streaming.yield("Ein")
        #expect(await ConditionWait.until { model.messages.last?.text == "Ein" })
        #expect(model.isTyping)
        model.stop()
        _ = await sending.value
        #expect(!model.isTyping)
        #expect(model.lastError == nil, "stopping is the person's own choice, not an error")
        #expect(streaming.cancelled == 1, "the request is cancelled")
        let reply = try await saved(model).last
        #expect(reply?.state == .stopped)
        #expect(reply?.text == "Ein")
        #expect(!model.canRetry)
    }

    @Test func cancellingTheCallerStopsTheReplyAndStillSavesIt() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { model.messages.count == 2 && streaming.requests.count == 1 })
        sending.cancel()
        _ = await sending.value
        #expect(await ConditionWait.until { !model.isTyping })
        #expect(try await saved(model).last?.state == .stopped)
    }

    @Test func aMessageThatCannotBeSavedIsNotSent() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        history.failAppends(of: [.user])
        #expect(await model.send("Hi") == false)
        #expect(!model.isTyping)
        #expect(streaming.requests.isEmpty, "nothing leaves before the message is saved")
        #expect(model.lastError?.hasPrefix("Your message could not be saved, so it was not sent") == true)
    }

    @Test func aReplyThatCannotBeSavedIsNotRequested() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        history.failAppends(of: [.assistant])
        #expect(await model.send("Hi"))
        #expect(!model.isTyping)
        #expect(streaming.requests.isEmpty)
        #expect(model.lastError?.hasPrefix("The reply could not be saved, so it was not requested") == true)
        #expect(model.canRetry, "the question is saved; Retry asks it")
    }

    @Test func aFinalSaveThatFailsStillStopsTypingAndSaysSo() async throws {
        let model = makeModel(ScriptedStreaming(deltas: ["Hallo"], ending: nil))
        history.failUpdates(true)
        await model.send("Hi")
        #expect(!model.isTyping)
        #expect(model.messages.last?.state == .complete, "the reply stays on screen")
        #expect(model.lastError?.hasPrefix("The reply could not be saved") == true)
    }

    @Test func aSendWhileTypingIsRefused() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        #expect(await model.send("Noch eins") == false)
        #expect(await model.send("   \n") == false)
        streaming.yield("ok")
        streaming.finish()
        _ = await sending.value
        #expect(history.appended.filter { $0.role == .user }.count == 1)
    }
}
