import Foundation
import Testing

@testable import SybilStore

/// A conversation's system prompt is kept with it (migration `chat-history-6-system-prompt`),
/// a history written before that migration opens with none, and deleting a conversation takes
/// it out of search in both stores.
@Suite("chat history: system prompts and deletion", .timeLimit(.minutes(2)))
struct ChatHistorySystemPromptTests {
    typealias F = ChatHistoryFixture

    @Test func theSystemPromptIsSavedAndReadBack() async throws {
        let fixture = F()
        defer { fixture.remove() }
        var record = F.conversation("c1")
        record.systemPrompt = "Answer in French."
        do {
            let store = try fixture.open()
            try await store.createConversation(record)
            try await store.createConversation(F.conversation("c2", at: 500))
        }
        let reopened = try fixture.open()
        #expect(try await reopened.conversation(id: "c1")?.systemPrompt == "Answer in French.")
        #expect(try await reopened.conversation(id: "c2")?.systemPrompt == nil)
        #expect(try await reopened.recentConversations(limit: 5).map(\.systemPrompt) == ["Answer in French.", nil])
        let memory = InMemoryChatHistory()
        try await memory.createConversation(record)
        #expect(await memory.conversation(id: "c1")?.systemPrompt == "Answer in French.")
    }

    @Test func aHistoryFromBeforeTheMigrationOpensWithNoSystemPrompts() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let before = SQLiteChatHistory.migrations.filter { $0.name != "chat-history-6-system-prompt" }
        #expect(before.count == SQLiteChatHistory.migrations.count - 1)
        do {
            let old = try SQLiteDatabase.open(path: fixture.path, migrations: before)
            try old.query(
                "INSERT INTO chat_conversations (id, title, created_at, updated_at) VALUES ('old', 'Kept', 1, 2)")
        }
        let store = try fixture.open()
        #expect(
            try await store.conversation(id: "old")
                == ChatConversationRecord(id: "old", title: "Kept", createdAt: 1, updatedAt: 2, systemPrompt: nil))
    }

    @Test(arguments: [true, false])
    func aDeletedConversationIsGoneFromSearchToo(sqlite: Bool) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store: any ChatHistoryStore = sqlite ? try fixture.open() : InMemoryChatHistory()
        try await store.createConversation(F.conversation("c1", title: "Kyoto temples"))
        try await store.appendMessage(F.message("m1", text: "gardens of Kyoto"))
        try await store.createConversation(F.conversation("c2", title: "Kyoto food"))
        #expect(try await store.search("kyoto", limit: 10).hits.count == 3)
        try await store.deleteConversation(id: "c1")
        let left = try await store.search("kyoto", limit: 10).hits.map(\.source)
        #expect(left == [.title(conversationId: "c2")])
        #expect(try await store.search("gardens", limit: 10) == .empty)
        #expect(try await store.conversation(id: "c1") == nil)
    }
}
