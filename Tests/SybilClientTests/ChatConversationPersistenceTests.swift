import SybilClient
import SybilNet
import SybilStore
import SybilTesting
import Testing

/// Nothing the person wrote is lost and a crash keeps what arrived (seed 004): the question is
/// saved before the request leaves, the reply is saved as it streams, one write at a time.
@MainActor
@Suite("Chat conversation persistence", .timeLimit(.minutes(2)))
struct ChatConversationPersistenceTests {
    let history = RecordingChatHistory()
    let time = TestTime()
    let warmUp = RecordingWarmUp()

    func makeModel(_ streaming: any ChatStreaming, conversationId: String? = nil) -> ChatConversationModel {
        ChatConversationModel(
            streaming: streaming, store: history, model: "m1", now: time.now,
            ids: SequentialIDGenerator(prefix: "id"), warmUp: warmUp, conversationId: conversationId)
    }

    @Test func theQuestionAndAStreamingReplyAreSavedBeforeTheRequestLeaves() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        let sending = Task { await model.send("Was ist ein Kaltstart?") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        let request = try #require(streaming.requests.first)
        #expect(request.savedBefore.map(\.role) == [.user, .assistant])
        #expect(request.savedBefore.first?.text == "Was ist ein Kaltstart?")
        #expect(request.savedBefore.last?.state == .streaming)
        #expect(request.messages == [ChatMessage(role: "user", content: "Was ist ein Kaltstart?")])
        streaming.yield("Ja")
        streaming.finish()
        _ = await sending.value
    }

    @Test func progressIsSavedOneWriteAtATimeWithTheNewestTextNext() async throws {
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming)
        history.holdUpdates(true)
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        streaming.yield("a")
        #expect(await ConditionWait.until { history.heldUpdates == 1 })
        for delta in ["b", "c", "d"] { streaming.yield(delta) }
        #expect(await ConditionWait.until { model.messages.last?.text == "abcd" })
        #expect(history.updates.count == 1, "no second write while the first is in flight")
        history.releaseUpdates()
        #expect(await ConditionWait.until { history.heldUpdates == 1 && history.updates.count == 2 })
        streaming.finish()
        history.holdUpdates(false)
        history.releaseUpdates()
        _ = await sending.value
        #expect(history.maxUpdatesInFlight == 1)
        #expect(history.updates.map(\.text) == ["a", "abcd", "abcd"], "b and c were skipped for the newer abcd")
        #expect(history.updates.map(\.state) == [.streaming, .streaming, .complete], "the ending is written last")
    }

    @Test func aReplyLeftStreamingByACrashOpensAsInterruptedWithRetry() async throws {
        try await history.createConversation(ChatConversationRecord(id: "c1", title: "Hi", createdAt: 1, updatedAt: 2))
        try await history.appendMessage(
            ChatMessageRecord(id: "u1", conversationId: "c1", role: .user, text: "Hi", model: "m1", createdAt: 1))
        try await history.appendMessage(
            ChatMessageRecord(
                id: "a1", conversationId: "c1", role: .assistant, text: "Hal", model: "m1", state: .streaming,
                createdAt: 2))
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming, conversationId: "c1")
        await model.enter()
        let interrupted = ChatMessageRecord.State.failed(reason: ChatConversationModel.interruptedReason)
        #expect(model.messages.last?.state == .failed(reason: ChatConversationModel.interruptedReason))
        #expect(model.lastError == ChatConversationModel.interruptedReason)
        #expect(try await history.messages(inConversation: "c1").last?.state == interrupted, "saved as such")
        #expect(model.canRetry)
        let retrying = Task { await model.retry() }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        #expect(
            streaming.requests.first?.messages == [ChatMessage(role: "user", content: "Hi")],
            "the question again, without the broken reply")
        streaming.yield("Hallo")
        streaming.finish()
        await retrying.value
        let saved = try await history.messages(inConversation: "c1")
        #expect(saved.filter { $0.role == .user }.count == 1, "the question is not saved twice")
        #expect(saved.map(\.state) == [.complete, interrupted, .complete])
        #expect(!model.canRetry)
    }

    @Test func nothingIsSentWhileTheSavedChatIsStillLoading() async throws {
        try await history.createConversation(ChatConversationRecord(id: "c1", title: "Hi", createdAt: 1, updatedAt: 2))
        try await history.appendMessage(
            ChatMessageRecord(id: "u1", conversationId: "c1", role: .user, text: "Hi", createdAt: 1))
        let streaming = ControlledStreaming(history: history)
        let model = makeModel(streaming, conversationId: "c1")
        history.holdReads(true)
        let entering = Task { await model.enter() }
        #expect(await ConditionWait.until { history.heldReadCount == 1 })
        #expect(model.isLoading)
        #expect(await model.send("Too early") == false, "refused, the draft stays with the person")
        #expect(!model.canRetry)
        #expect(history.appended.map(\.id) == ["u1"], "nothing saved")
        #expect(streaming.requests.isEmpty)
        history.holdReads(false)
        history.releaseReads()
        await entering.value
        #expect(!model.isLoading)
        let sending = Task { await model.send("Now") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        #expect(streaming.requests.first?.messages.map(\.content) == ["Hi", "Now"], "on the loaded transcript")
        streaming.finish()
        #expect(await sending.value)
    }

    @Test func aCompleteConversationOpensUnchangedAndEnteringAsksForAWarmUp() async throws {
        try await history.createConversation(ChatConversationRecord(id: "c1", title: "Hi", createdAt: 1, updatedAt: 2))
        try await history.appendMessage(
            ChatMessageRecord(id: "u1", conversationId: "c1", role: .user, text: "Hi", createdAt: 1))
        let model = makeModel(ControlledStreaming(), conversationId: "c1")
        await model.enter()
        #expect(warmUp.triggers == [.enteredChat])
        #expect(model.messages.map(\.id) == ["u1"])
        #expect(model.lastError == nil)
        #expect(history.updates.isEmpty)
        #expect(model.conversation?.title == "Hi")
    }

    @Test func anUnknownConversationSaysSo() async {
        let model = makeModel(ControlledStreaming(), conversationId: "gone")
        await model.enter()
        #expect(model.lastError == "This chat is no longer saved. Start a new chat.")
    }

    @Test func theFirstMessageTitlesTheConversationAndLaterOnesCarryTheExchange() async throws {
        let streaming = ScriptedStreaming(deltas: ["Antwort"], ending: nil)
        let recorder = ControlledStreaming()
        let model = makeModel(streaming)
        let first = String(repeating: "Wort ", count: 20) + "\nzweite Zeile"
        await model.send(first)
        let id = try #require(model.conversationId)
        #expect(try await history.conversation(id: id)?.title == ChatTitle.make(from: first))
        #expect(model.conversation?.title.count ?? 99 <= 60)
        await model.send("Und weiter?")
        #expect(try await history.conversation(id: id)?.title == ChatTitle.make(from: first), "titled once")
        // The request of a continued conversation carries the earlier exchange.
        let continued = ChatConversationModel(
            streaming: recorder, store: history, model: "m1", now: time.now,
            ids: SequentialIDGenerator(prefix: "x"), warmUp: nil, conversationId: id)
        await continued.enter()
        let sending = Task { await continued.send("Drittens") }
        #expect(await ConditionWait.until { recorder.requests.count == 1 })
        #expect(recorder.requests.first?.messages.map(\.role) == ["user", "assistant", "user", "assistant", "user"])
        recorder.yield("ok")
        recorder.finish()
        _ = await sending.value
    }

    @Test func aSystemPromptGoesFirstAndIsNotSaved() async throws {
        let recorder = ControlledStreaming()
        let model = ChatConversationModel(
            streaming: recorder, store: history, model: "m1", now: time.now,
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil, systemPrompt: "Answer briefly.")
        let sending = Task { await model.send("Hi") }
        #expect(await ConditionWait.until { recorder.requests.count == 1 })
        #expect(recorder.requests.first?.messages.first == ChatMessage(role: "system", content: "Answer briefly."))
        recorder.yield("ok")
        recorder.finish()
        _ = await sending.value
        #expect(try await history.messages(inConversation: #require(model.conversationId)).count == 2)
    }
}
