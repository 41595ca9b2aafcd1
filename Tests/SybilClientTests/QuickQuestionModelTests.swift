import SybilClient
import SybilNet
import SybilStore
import SybilTesting
import SybilTimeline
import Testing

/// Quick Question (seed 003, SPEC §5.5).
@MainActor
@Suite("Quick Question", .timeLimit(.minutes(2)))
struct QuickQuestionModelTests {
    let history = RecordingChatHistory()
    let preferences = InMemoryKeyValueStore()
    let time = TestTime()
    let streaming = ControlledStreaming()

    /// A model whose streams are `streaming`; `asked` records each choice a stream was made for.
    func makeModel(platform: ComposerKeyDecision.Platform = .desktop, asked: Recorder? = nil) -> QuickQuestionModel {
        QuickQuestionModel(
            preferences: preferences, store: history,
            makeStreaming: { [streaming] choice in
                asked?.choices.append(choice)
                return streaming
            }, now: time.now, ids: SequentialIDGenerator(prefix: "q"), platform: platform)
    }

    @MainActor
    final class Recorder {
        var choices: [ChatModelChoice] = []
    }

    @Test func theDefaultIsOpenAIChatLatestAndTheRegularChatsChoiceDoesNotCount() throws {
        try preferences.set(
            ChatModelChoice(provider: "other", model: "regular").bytes, forKey: ChatModelChoice.regularChatKey)
        let model = makeModel()
        #expect(model.choice == ChatModelChoice(provider: "openai", model: "chat-latest"))
        #expect(model.lastError == nil)
    }

    @Test func itsSavedChoiceWinsAndIsSavedUnderItsOwnKey() async throws {
        let asked = Recorder()
        let first = makeModel(asked: asked)
        first.select(ChatModelChoice(provider: "openai", model: "gpt-x"), remember: false)
        #expect(try preferences.data(forKey: ChatModelChoice.quickQuestionKey) == nil, "not remembered")
        first.select(ChatModelChoice(provider: "openai", model: "gpt-y"), remember: true)
        #expect(try preferences.data(forKey: ChatModelChoice.regularChatKey) == nil)
        let second = makeModel(asked: asked)
        #expect(second.choice.model == "gpt-y")
        second.type("Hi")
        second.submit()
        #expect(asked.choices == [ChatModelChoice(provider: "openai", model: "gpt-y")])
        streaming.finish()
        await second.waitForAnswer()
    }

    @Test(
        "an unreadable saved choice falls back to the default and says why",
        arguments: [
            "", "{}", #"{"provider":"openai"}"#, #"{"provider":" ","model":"m"}"#,
            #"{"provider":"openai","model":"m","extra":1}"#,
            #"{"provider":"openai","model":"\#(String(repeating: "m", count: 201))"}"#,
        ])
    func unreadableChoice(stored: String) throws {
        try preferences.set(Array(stored.utf8), forKey: ChatModelChoice.quickQuestionKey)
        let model = makeModel()
        #expect(model.choice == .quickQuestionDefault)
        #expect(model.lastError?.hasPrefix("The saved model choice could not be read") == true)
    }

    @Test func aModelNameOfTheLongestAllowedLengthIsRead() throws {
        let name = String(repeating: "m", count: ChatModelChoice.maximumNameBytes)
        try preferences.set(
            ChatModelChoice(provider: "openai", model: name).bytes, forKey: ChatModelChoice.quickQuestionKey)
        #expect(makeModel().choice.model == name)
    }

    @Test func openingSelectsTheWholePromptSoTypingReplacesIt() {
        let model = makeModel()
        model.open()
        #expect(model.selection == 0..<0)
        model.type("Alte Frage")
        #expect(model.selection == 10..<10)
        model.hide()
        model.open()
        #expect(model.selection == 0..<10)
        model.type("N")
        #expect(model.draft == "N")
    }

    @Test func returnSubmitsShiftReturnAddsALineAndAHeldReturnDoesNotSubmitAgain() async {
        let asked = Recorder()
        let model = makeModel(platform: .phone, asked: asked)
        model.open()
        model.type("Zeile")
        #expect(model.handleKey(.init(key: .return, shift: true)) == .insertNewline)
        model.type("zwei")
        #expect(model.draft == "Zeile\nzwei")
        #expect(asked.choices.isEmpty)
        #expect(model.handleKey(.init(key: .return)) == .submit)
        #expect(model.handleKey(.init(key: .return, isRepeat: true)) == .ignore)
        #expect(asked.choices.count == 1, "one question asked")
        #expect(model.question == "Zeile\nzwei")
        #expect(model.handleKey(.init(key: .other)) == .passThrough)
        streaming.yield("ok")
        streaming.finish()
        await model.waitForAnswer()
        #expect(model.draft == "Zeile\nzwei", "the prompt stays for the next open")
    }

    @Test func hidingMidAnswerKeepsDraftAndAnswerAndTheAnswerFinishes() async {
        let model = makeModel()
        model.open()
        model.type("Was ist ein Kaltstart?")
        model.submit()
        streaming.yield("Ein ")
        #expect(await ConditionWait.until { model.answer == "Ein " })
        model.hide()
        #expect(!model.isVisible)
        streaming.yield("Start.")
        streaming.finish()
        await model.waitForAnswer()
        #expect(model.answer == "Ein Start.")
        #expect(model.answerState == .complete)
        #expect(!model.isAnswering)
        #expect(model.draft == "Was ist ein Kaltstart?")
        #expect(streaming.cancelled == 0)
    }

    @Test func openInChatSavesQuestionAndAnswerAsARegularConversation() async throws {
        let model = makeModel()
        #expect(await model.openInChat() == nil)
        #expect(model.lastError == "Ask a question first; then it can be opened in a chat.")
        model.type("Frage?")
        model.submit()
        streaming.yield("Antwort.")
        time.set(3_000)
        streaming.finish()
        let id = try #require(await model.openInChat())
        #expect(try await history.conversation(id: id)?.title == "Frage?")
        let messages = try await history.messages(inConversation: id)
        #expect(messages.map(\.text) == ["Frage?", "Antwort."])
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages.map(\.model) == ["chat-latest", "chat-latest"])
        #expect(messages.last?.finishedAt == 3_000)
        #expect(messages.last?.state == .complete)
    }

    @Test func openInChatIsAllOrNothingAndNeverSavesTheSameAnswerTwice() async throws {
        let model = makeModel()
        model.type("Frage?")
        model.submit()
        streaming.yield("Antwort.")
        streaming.finish()
        history.failAppends(of: [.assistant])
        #expect(await model.openInChat() == nil)
        #expect(model.lastError?.hasPrefix("The question could not be saved as a chat") == true)
        #expect(try await history.recentConversations(limit: 10).isEmpty, "no chat with only the question")
        history.failAppends(of: [])
        let id = try #require(await model.openInChat())
        #expect(await model.openInChat() == id, "the same chat, not a second one")
        #expect(try await history.recentConversations(limit: 10).map(\.id) == [id])
        #expect(try await history.messages(inConversation: id).count == 2)
    }

    @Test func openInChatTwiceAtOnceSavesOneChat() async throws {
        let model = makeModel()
        model.type("Erste?")
        model.submit()
        streaming.yield("Eins.")
        streaming.finish()
        history.holdCreates(true)
        let first = Task { await model.openInChat() }
        #expect(await ConditionWait.until { history.heldCreateCount == 1 })
        #expect(model.isSavingChat)
        let second = Task { await model.openInChat() }
        #expect(await ConditionWait.until { model.joinedChatSaves == 1 }, "the second tap joined the first save")
        history.holdCreates(false)
        history.releaseCreates()
        let firstChat = try #require(await first.value)
        #expect(await second.value == firstChat)
        #expect(history.createsWithMessages == 1)
        #expect(!model.isSavingChat)
    }

    @Test func aQuestionAskedWhileTheLastAnswerIsSavedGetsItsOwnChat() async throws {
        let model = makeModel()
        model.type("Erste?")
        model.submit()
        streaming.yield("Eins.")
        streaming.finish()
        history.holdCreates(true)
        let first = Task { await model.openInChat() }
        #expect(await ConditionWait.until { history.heldCreateCount == 1 })
        model.open()
        model.type("Zweite?")
        model.submit()
        streaming.yield("Zwei.")
        streaming.finish()
        history.holdCreates(false)
        history.releaseCreates()
        let firstChat = try #require(await first.value)
        let newer = try #require(await model.openInChat())
        #expect(newer != firstChat, "the second answer gets its own chat, not the first one's")
        #expect(try await history.messages(inConversation: firstChat).map(\.text) == ["Erste?", "Eins."])
        #expect(try await history.messages(inConversation: newer).map(\.text) == ["Zweite?", "Zwei."])
        #expect(await model.openInChat() == newer)
        #expect(history.createsWithMessages == 2)
    }

    @Test func aModelChoiceTheNextStartCouldNotReadIsRefused() throws {
        let model = makeModel()
        let tooLong = String(repeating: "m", count: ChatModelChoice.maximumNameBytes + 1)
        model.select(ChatModelChoice(provider: "openai", model: tooLong), remember: true)
        #expect(model.choice == .quickQuestionDefault)
        #expect(model.lastError?.hasPrefix("That model choice cannot be used") == true)
        #expect(try preferences.data(forKey: ChatModelChoice.quickQuestionKey) == nil, "nothing saved")
        let longest = String(repeating: "m", count: ChatModelChoice.maximumNameBytes)
        model.select(ChatModelChoice(provider: "openai", model: longest), remember: true)
        #expect(model.choice.model == longest)
    }

    @Test func aFailedAnswerSaysWhyAndEndsAnswering() async {
        let model = makeModel()
        model.type("Frage?")
        model.submit()
        streaming.finish(throwing: ChatStreamError.notFound(nil))
        await model.waitForAnswer()
        #expect(!model.isAnswering)
        #expect(model.lastError == ChatConversationModel.sentence(for: ChatStreamError.notFound(nil)))
    }
}
