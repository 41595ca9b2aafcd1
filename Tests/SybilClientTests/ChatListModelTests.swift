import Foundation
import SybilClient
import SybilNet
import SybilStore
import SybilTesting
import Testing

/// The chats list over the history: recent conversations, new chat, open, delete, and the
/// warm-up triggers of SPEC §5.1.
@MainActor
@Suite("Chat list", .timeLimit(.minutes(2)))
struct ChatListModelTests {
    let history = RecordingChatHistory()
    let time = TestTime()

    func makeList(
        _ streaming: any ChatStreaming, warmUp: (any ChatWarmUp)?, kept: (any KeyValueStore)? = nil
    ) -> ChatListModel {
        ChatListModel(
            streaming: streaming, store: history, model: "m1", now: time.now,
            ids: SequentialIDGenerator(prefix: "id"), warmUp: warmUp,
            undelivered: kept.map { ChatUndeliveredMessages(persistence: .chats(in: $0)) } ?? ChatUndeliveredMessages())
    }

    @Test func aNewChatAppearsInTheListOnceItsFirstMessageIsSaved() async throws {
        let list = makeList(ScriptedStreaming(deltas: ["Antwort"], ending: nil), warmUp: nil)
        let chat = await list.newChat()
        #expect(list.conversations.isEmpty, "an empty chat is not saved")
        #expect(list.openConversation === chat)
        time.set(2_000)
        await chat.send("Erste Frage")
        #expect(list.conversations.map(\.title) == ["Erste Frage"])
        #expect(list.conversations.first?.updatedAt == 2_000)
        await list.refresh()
        #expect(list.conversations.map(\.title) == ["Erste Frage"], "the store agrees")
    }

    @Test func recentConversationsAreNewestFirstAndOpeningLoadsOne() async throws {
        for (id, updated) in [("old", Int64(10)), ("new", 30), ("mid", 20)] {
            try await history.createConversation(
                ChatConversationRecord(id: id, title: id, createdAt: 1, updatedAt: updated))
        }
        try await history.appendMessage(
            ChatMessageRecord(id: "u", conversationId: "mid", role: .user, text: "Hallo", createdAt: 20))
        let list = makeList(ScriptedStreaming(deltas: ["ok"], ending: nil), warmUp: nil)
        await list.refresh()
        #expect(list.conversations.map(\.id) == ["new", "mid", "old"])
        let chat = await list.open("mid")
        #expect(chat.messages.map(\.text) == ["Hallo"])
        #expect(await list.open("mid") === chat, "the open chat stays as it is")
        time.set(50)
        await chat.send("Noch was")
        #expect(list.conversations.map(\.id) == ["mid", "new", "old"], "a new message moves it to the top")
    }

    @Test(
        "the list holds at most the recent limit",
        arguments: [ChatListModel.recentLimit - 1, ChatListModel.recentLimit, ChatListModel.recentLimit + 1])
    func recentLimit(saved: Int) async throws {
        for index in 0..<saved {
            try await history.createConversation(
                ChatConversationRecord(id: "c\(index)", title: "t", createdAt: 1, updatedAt: Int64(10 + index)))
        }
        let list = makeList(ScriptedStreaming(deltas: ["ok"], ending: nil), warmUp: nil)
        await list.refresh()
        #expect(list.conversations.count == min(saved, ChatListModel.recentLimit))
        let chat = await list.newChat()
        time.set(100_000)
        await chat.send("Neu")
        #expect(list.conversations.count == min(saved + 1, ChatListModel.recentLimit))
        #expect(list.conversations.first?.id == chat.conversationId, "the new chat on top")
    }

    @Test func deletingTheOpenChatStopsAndClosesIt() async throws {
        let streaming = ControlledStreaming()
        let list = makeList(streaming, warmUp: nil)
        let chat = await list.newChat()
        let sending = Task { await chat.send("Hi") }
        #expect(await ConditionWait.until { streaming.requests.count == 1 })
        let id = try #require(chat.conversationId)
        await list.delete(id)
        _ = await sending.value
        #expect(!chat.isTyping)
        #expect(list.openConversation == nil)
        #expect(list.conversations.isEmpty)
        #expect(try await history.conversation(id: id) == nil)
        await list.delete(id)
        #expect(list.lastError == nil, "deleting a chat another window already deleted is no error")
        #expect(list.conversations.isEmpty)
    }

    @Test func tabSwitchesForegroundAndEnteringAChatEachAskForAWarmUp() async {
        let warmUp = RecordingWarmUp()
        let list = makeList(ControlledStreaming(), warmUp: warmUp)
        list.switchedTab()
        list.returnedToForeground()
        await list.newChat()
        #expect(warmUp.triggers == [.switchedTab, .returnedToForeground, .enteredChat])
    }

    @Test func manyTriggersGiveOneHealthCheckThroughTheRealWarmUpManager() async throws {
        let http = HealthCheckHTTPClient()
        let manager = WarmUpManager(http: http, baseURL: URL(string: "http://h/api")!, clock: ManualClock())
        let list = makeList(ControlledStreaming(), warmUp: manager)
        list.switchedTab()
        list.returnedToForeground()
        list.switchedTab()
        await list.newChat()
        try await history.createConversation(ChatConversationRecord(id: "c", title: "c", createdAt: 1, updatedAt: 1))
        await list.open("c")
        #expect(await ConditionWait.until { http.requests.count == 1 })
        #expect(manager.state == .warming)
        http.open()
        #expect(await ConditionWait.until { manager.state == .warm })
        list.returnedToForeground()
        #expect(manager.healthChecks == 1)
        #expect(http.requests.count == 1)
        #expect(http.requests.first?.url.absoluteString == "http://h/api/healthz")
    }

    @Test func aTextKeptInTheNewChatMovesToItsConversationAndADeletedOnesToTheNewChat() async throws {
        let list = makeList(ScriptedStreaming(deltas: ["Antwort"], ending: nil), warmUp: nil)
        let chat = await list.newChat()
        // Not sent while the person had typed a new draft: kept with the new chat.
        let handOver = list.giveBackUnsent(
            "Zuerst das.", reason: "Not attached: a.txt.", in: .newChat, toComposerHolding: "Mein Entwurf")
        #expect(handOver.restored == nil)
        #expect(list.undelivered(in: .newChat).map(\.text) == ["Zuerst das."])
        await chat.send("Erste Frage")
        let id = try #require(chat.conversationId)
        #expect(list.undelivered(in: .newChat).isEmpty, "saved, the new chat is that conversation")
        #expect(list.undelivered(in: .conversation(id)).map(\.text) == ["Zuerst das."])
        await list.delete(id)
        #expect(list.undelivered(in: .newChat).map(\.text) == ["Zuerst das."], "a deleted chat's text is not lost")
        #expect(
            list.takeBackOldest(in: .newChat, toComposerHolding: " ")
                == .restored(
                    ChatUndeliveredMessages.Message(
                        id: "unsent-1", chat: .newChat, text: "Zuerst das.", cause: .notSent,
                        reason: "Not attached: a.txt.")))
        #expect(list.undelivered(in: .newChat).isEmpty)
    }

    @Test func aBlankTextOrOneTheComposerHoldsIsGivenBackNotKept() {
        let list = makeList(ScriptedStreaming(deltas: [], ending: nil), warmUp: nil)
        #expect(list.giveBackUnsent(" ", reason: "r", in: .newChat, toComposerHolding: "Entwurf").restored != nil)
        #expect(list.giveBackUnsent("Gleich", reason: "r", in: .newChat, toComposerHolding: "Gleich").restored != nil)
        #expect(list.giveBackUnsent("Weg", reason: "r", in: .newChat, toComposerHolding: nil).restored == nil)
        #expect(list.undelivered(in: .newChat).map(\.text) == ["Weg"], "off screen, it is kept")
    }

    /// SPEC §2: a text kept because a draft was in the way is saved before it shows; a new
    /// process (the old one dropped, as a crash leaves it) restores it, names a new one apart
    /// from it, and one taken back stays gone.
    @Test func keptTextsSurviveARestartAndOneTakenBackStaysGone() async throws {
        let kept = InMemoryKeyValueStore()
        var list: ChatListModel? = makeList(ScriptedStreaming(deltas: [], ending: nil), warmUp: nil, kept: kept)
        _ = list?.giveBackUnsent("Zuerst das.", reason: "Not attached: a.txt.", in: .newChat, toComposerHolding: "E")
        _ = list?.giveBackUnsent("Im Gespräch.", reason: "r", in: .conversation("c1"), toComposerHolding: "E")
        list = nil

        let second = makeList(ScriptedStreaming(deltas: [], ending: nil), warmUp: nil, kept: kept)
        #expect(second.undelivered(in: .newChat).map(\.text) == ["Zuerst das."])
        #expect(second.undelivered(in: .newChat).first?.reason == "Not attached: a.txt.")
        #expect(second.undelivered(in: .conversation("c1")).map(\.text) == ["Im Gespräch."])
        // A text kept after the restart is a message of its own, not taken for the restored one.
        _ = second.giveBackUnsent("Danach.", reason: "r", in: .newChat, toComposerHolding: "E")
        #expect(second.undelivered(in: .newChat).map(\.text) == ["Zuerst das.", "Danach."])
        guard case .restored(let restored) = second.takeBackOldest(in: .newChat, toComposerHolding: "") else {
            Issue.record("the oldest text was not taken back")
            return
        }
        #expect(restored.text == "Zuerst das.")

        let third = makeList(ScriptedStreaming(deltas: [], ending: nil), warmUp: nil, kept: kept)
        #expect(third.undelivered(in: .newChat).map(\.text) == ["Danach."], "taken back, it is gone for good")
        #expect(third.undelivered(in: .conversation("c1")).map(\.text) == ["Im Gespräch."])
    }
}
