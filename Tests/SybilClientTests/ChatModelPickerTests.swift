import SybilClient
import SybilCore
import SybilNet
import SybilStore
import SybilTesting
import Testing

/// A model per ordinary chat (seed 003): chosen from the server's list, kept with the
/// conversation so it survives a relaunch, the one each request asks for; unknown names are
/// refused naming listed ones; Quick Question's own choice is never touched.
@MainActor
@Suite("Chat model picker", .timeLimit(.minutes(2)))
struct ChatModelPickerTests {
    let store = InMemoryChatHistory()
    let time = TestTime()
    let asked = Asked()

    /// The models each stream was made for, in order.
    @MainActor
    final class Asked {
        var models: [String] = []
        var lists = 0
    }

    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    /// A chats list over the shared store whose streams record the model they were made for.
    func makeList(model: String = "a") -> ChatListModel {
        ChatListModel(
            streaming: ScriptedStreaming(deltas: ["unused"]), store: store, model: model, now: time.now,
            ids: SequentialIDGenerator(prefix: "id"), warmUp: nil,
            streamingFor: { [asked] model in
                asked.models.append(model)
                return ScriptedStreaming(deltas: ["ok"])
            })
    }

    func makePicker(_ models: [String] = ["a", "b", "c"], default model: String = "a") -> ChatModelPicker {
        ChatModelPicker(defaultModel: model) { [asked] in
            await MainActor.run { asked.lists += 1 }
            return models
        }
    }

    @Test func aNewChatAsksTheDefaultThenTheModelChosenForIt() async throws {
        let list = makeList()
        let picker = makePicker()
        let chat = await list.newChat()
        #expect(chat.model == "a")
        #expect(await picker.choose("b", for: chat) == .chosen("b"))
        #expect(await chat.send("Hello"))
        #expect(Set(asked.models) == ["b"], "the request names the chat's model")
        let id = try #require(chat.conversationId)
        #expect(try await store.conversation(id: id)?.model == "b", "saved with the conversation")
        #expect(try await store.messages(inConversation: id).map(\.model) == ["b", "b"])
        // Another new chat starts with the default again.
        let other = await list.newChat()
        #expect(other.model == "a")
    }

    @Test func theChoiceIsSavedAndSurvivesARelaunch() async throws {
        let picker = makePicker()
        let chat = await makeList().newChat()
        #expect(await chat.send("Hello"))
        let id = try #require(chat.conversationId)
        #expect(await picker.choose("c", for: chat) == .chosen("c"))
        #expect(try await store.conversation(id: id)?.model == "c")
        // A new process: a new list and picker over the same history.
        let reopened = await makeList().open(id)
        #expect(reopened.model == "c")
        #expect(await reopened.send("Again"))
        #expect(asked.models.first == "a" && asked.models.last == "c" && Set(asked.models) == ["a", "c"])
    }

    @Test func aModelTheServerDoesNotListIsRefusedNamingSomeItDoes() async throws {
        let picker = makePicker(["a", "b", "c", "d", "e", "f", "g"])
        let chat = await makeList().newChat()
        #expect(await chat.send("Hello"))
        let id = try #require(chat.conversationId)
        let outcome = await picker.choose("gpt-9", for: chat)
        #expect(outcome == .refused("The server does not list gpt-9; it offers a, b, c, d, e and 2 more."))
        #expect(chat.model == "a")
        #expect(try await store.conversation(id: id)?.model == "a")
        guard case .refused = await picker.choose("   ", for: chat) else {
            Issue.record("a blank name was taken")
            return
        }
        guard case .refused = await picker.choose("a\u{1B}[2J", for: chat) else {
            Issue.record("a name with a control character was taken")
            return
        }
        #expect(await picker.choose(String(repeating: "m", count: 201), for: chat) != .chosen(""))
        #expect(chat.model == "a")
        #expect(await picker.choose("a", for: chat) == .unchanged("a"))
        #expect(asked.lists == 1, "the list is read once")
    }

    @Test func whenTheListCannotBeReadTheNameIsTakenAsGiven() async throws {
        let picker = ChatModelPicker(defaultModel: "a") { throw Unreachable() }
        let chat = await makeList().newChat()
        #expect(await picker.choose("local-7b", for: chat) == .unverified("local-7b", reason: "connection refused"))
        #expect(chat.model == "local-7b")
        #expect(
            await picker.chooseNext(for: chat)
                == .refused("The server's models could not be listed: connection refused."))
        #expect(picker.listing(current: chat.model).contains("could not be listed: connection refused"))
    }

    @Test func theNextKeyCyclesThroughTheList() async throws {
        let picker = makePicker()
        let chat = await makeList(model: "unlisted").newChat()
        var seen: [ChatModelPicker.Outcome] = []
        for _ in 0..<4 { seen.append(await picker.chooseNext(for: chat)) }
        #expect(seen == [.chosen("a"), .chosen("b"), .chosen("c"), .chosen("a")])
        #expect(picker.listing(current: "b") == "Models: a, [b], c · /model NAME picks one for this chat")
        #expect(picker.listing(current: "x").contains("[x] (not listed)"))
    }

    @Test func aConversationSavedBeforeModelsWereKeptAsksItsLastQuestionsModel() async throws {
        try await store.createConversation(ChatConversationRecord(id: "old", title: "Old", createdAt: 1, updatedAt: 1))
        try await store.appendMessage(
            ChatMessageRecord(id: "m1", conversationId: "old", role: .user, text: "q", model: "b", createdAt: 2))
        #expect(try await ChatModelPicker.savedModel(ofConversation: "old", in: store) == "b")
        #expect(try await ChatModelPicker.savedModel(ofConversation: "missing", in: store) == nil)
        let chat = await makeList().open("old")
        #expect(chat.model == "b")
    }

    @Test func choosingAChatsModelLeavesQuickQuestionsOwn() async throws {
        let preferences = InMemoryKeyValueStore()
        let quick = QuickQuestionModel(
            preferences: preferences, store: store, makeStreaming: { _ in ScriptedStreaming(deltas: ["ok"]) },
            now: time.now, ids: SequentialIDGenerator(prefix: "q"), platform: .desktop)
        let picker = makePicker(["a", "chat-latest", "c"])
        let chat = await makeList().newChat()
        #expect(await picker.choose("c", for: chat) == .chosen("c"))
        #expect(quick.choice == .quickQuestionDefault)
        #expect(try preferences.data(forKey: ChatModelChoice.quickQuestionKey) == nil)
        #expect(try preferences.data(forKey: ChatModelChoice.regularChatKey) == nil)
    }
}
