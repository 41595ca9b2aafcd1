import Foundation
import Testing

@testable import SybilStore

/// A conversation's model is kept with it (migration `chat-history-8-conversation-model`):
/// saved when it is created, changed without reordering the list, read back after reopening,
/// and a history written before the migration opens with none.
@Suite("chat history: a model per conversation", .timeLimit(.minutes(2)))
struct ChatHistoryConversationModelTests {
    typealias F = ChatHistoryFixture

    @Test func theModelIsSavedChangedAndReadBack() async throws {
        let fixture = F()
        defer { fixture.remove() }
        var record = F.conversation("c1")
        record.model = "llama3.2"
        do {
            let store = try fixture.open()
            try await store.createConversation(record)
            try await store.createConversation(F.conversation("c2", at: 500))
            try await store.setConversationModel(id: "c2", model: "qwen3")
            await #expect(throws: StorageError.self) {
                try await store.setConversationModel(id: "missing", model: "qwen3")
            }
        }
        let reopened = try fixture.open()
        #expect(try await reopened.conversation(id: "c1")?.model == "llama3.2")
        let recent = try await reopened.recentConversations(limit: 5)
        #expect(recent.map(\.id) == ["c1", "c2"], "choosing a model does not bump a conversation")
        #expect(recent.map(\.model) == ["llama3.2", "qwen3"])
        #expect(recent.last?.updatedAt == 500)
    }

    @Test func theMemoryStoreKeepsTheModelToo() async throws {
        let memory = InMemoryChatHistory()
        try await memory.createConversation(F.conversation("c1"))
        #expect(await memory.conversation(id: "c1")?.model == nil)
        try await memory.setConversationModel(id: "c1", model: "qwen3")
        #expect(await memory.conversation(id: "c1")?.model == "qwen3")
        await #expect(throws: StorageError.self) { try await memory.setConversationModel(id: "c9", model: "m") }
    }

    @Test func aHistoryFromBeforeTheMigrationOpensWithNoModels() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let before = SQLiteChatHistory.migrations.filter { $0.name != "chat-history-8-conversation-model" }
        #expect(before.count == SQLiteChatHistory.migrations.count - 1)
        do {
            let old = try SQLiteDatabase.open(path: fixture.path, migrations: before)
            try old.query(
                "INSERT INTO chat_conversations (id, title, created_at, updated_at) VALUES ('old', 'Kept', 1, 2)")
        }
        let store = try fixture.open()
        #expect(try await store.conversation(id: "old")?.model == nil)
        try await store.setConversationModel(id: "old", model: "m2")
        #expect(try await store.conversation(id: "old")?.model == "m2")
    }
}
