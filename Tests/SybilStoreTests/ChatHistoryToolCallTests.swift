import Foundation
import SybilWire
import Testing

@testable import SybilStore

/// The tool calls a reply made are kept with its message (migration
/// `chat-history-10-message-tool-calls`), written in the message's own transaction and read
/// back in order within ``ChatToolCall``'s bounds; a history written before the migration keeps
/// its rows and reads them back with none, and a damaged column is an error naming it.
@Suite("chat history: a reply's tool calls", .timeLimit(.minutes(2)))
struct ChatHistoryToolCallTests {
    typealias F = ChatHistoryFixture

    static let calls = [
        ChatToolCall(index: 0, id: "call_1", name: "get_weather", arguments: #"{"city":"Paris"}"#),
        ChatToolCall(index: 1, name: "rm\u{1B}[2J", arguments: "{}", truncated: true),
    ]

    @Test func toolCallsAreSavedWithTheReplyAndReadBackInOrder() async throws {
        let fixture = F()
        defer { fixture.remove() }
        var reply = F.message("m2", role: .assistant, text: "Let me check.")
        reply.toolCalls = Self.calls
        var streaming = F.message("m3", role: .assistant, text: "", state: .streaming, at: 3_000)
        do {
            let store = try fixture.open()
            try await store.createConversation(F.conversation("c1"))
            try await store.appendMessages([F.message("m1", text: "weather?"), reply, streaming])
            // A streaming reply's calls arrive with its ending, in the same update.
            try await store.updateMessage(
                id: "m3", text: "", state: .complete, finishedAt: 3_005, toolCalls: [Self.calls[0]], at: 3_005)
            // Progress without calls leaves them as they are.
            try await store.updateMessage(id: "m2", text: "Let me check!", state: .complete, finishedAt: 9, at: 9)
        }
        let read = try await fixture.open().messages(inConversation: "c1")
        #expect(read.map(\.toolCalls) == [[], Self.calls, [Self.calls[0]]])
        reply.text = "Let me check!"
        reply.finishedAt = 9
        #expect(read[1] == reply)
        streaming.state = .complete
        streaming.finishedAt = 3_005
        streaming.toolCalls = [Self.calls[0]]
        #expect(read[2] == streaming)

        let memory = InMemoryChatHistory()
        try await memory.createConversation(F.conversation("c1"))
        try await memory.appendMessage(reply)
        try await memory.updateMessage(id: "m2", text: "x", state: .complete, finishedAt: 10, at: 10)
        #expect(try await memory.messages(inConversation: "c1").first?.toolCalls == Self.calls)
        try await memory.updateMessage(id: "m2", text: "x", state: .complete, finishedAt: 10, toolCalls: [], at: 10)
        #expect(try await memory.messages(inConversation: "c1").first?.toolCalls == [])
    }

    @Test func callsPastTheBoundsAreCutWhenSavedInBothStores() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let many = (0..<(ChatToolCall.maximumCalls + 3)).map {
            ChatToolCall(
                index: $0, id: String(repeating: "i", count: 300), name: String(repeating: "n", count: 300),
                arguments: String(repeating: "a", count: ChatToolCall.maximumArgumentBytes + 10))
        }
        var reply = F.message("m1", role: .assistant, text: "")
        reply.toolCalls = many
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1"))
        try await store.appendMessage(reply)
        let memory = InMemoryChatHistory()
        try await memory.createConversation(F.conversation("c1"))
        try await memory.appendMessage(reply)
        for read in [
            try await store.messages(inConversation: "c1")[0].toolCalls,
            await memory.messages(inConversation: "c1")[0].toolCalls,
        ] {
            #expect(read.count == ChatToolCall.maximumCalls)
            #expect(read.allSatisfy { $0.truncated })
            #expect(read.allSatisfy { $0.name.utf8.count == ChatToolCall.maximumNameBytes })
            #expect(read.allSatisfy { $0.id?.utf8.count == ChatToolCall.maximumIDBytes })
            #expect(read.allSatisfy { $0.arguments.utf8.count == ChatToolCall.maximumArgumentBytes })
        }
    }

    @Test func aHistoryWrittenAtTheVersionBeforeKeepsItsRowsWithNoCalls() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let before = SQLiteChatHistory.migrations.filter { $0.name != "chat-history-10-message-tool-calls" }
        #expect(before.count == SQLiteChatHistory.migrations.count - 1)
        #expect(before.last?.name == "chat-history-9-message-attachments")
        do {
            let old = try SQLiteDatabase.open(path: fixture.path, migrations: before)
            try old.query(
                "INSERT INTO chat_conversations (id, title, created_at, updated_at, model) VALUES ('old', 'Kept', 1, 2, 'm')"
            )
            try old.query(
                """
                INSERT INTO chat_messages (id, conversation_seq, position, role, text, model, state, created_at,
                    finished_at)
                VALUES ('q', 1, 0, 'user', 'weather?', 'm', 'complete', 1, NULL),
                    ('a', 1, 1, 'assistant', 'Sunny.', 'm', 'complete', 2, 3)
                """)
        }
        let store = try fixture.open()
        #expect(try await store.conversation(id: "old")?.title == "Kept")
        let read = try await store.messages(inConversation: "old")
        #expect(read.map(\.id) == ["q", "a"])
        #expect(read.map(\.text) == ["weather?", "Sunny."])
        #expect(read.map(\.toolCalls) == [[], []])
        // The migrated rows take calls like new ones.
        try await store.updateMessage(
            id: "a", text: "Sunny.", state: .complete, finishedAt: 3, toolCalls: Self.calls, at: 3)
        #expect(try await store.messages(inConversation: "old").last?.toolCalls == Self.calls)
    }

    @Test func aDamagedToolCallsColumnIsAnErrorNamingIt() async throws {
        let fixture = F()
        defer { fixture.remove() }
        do {
            let store = try fixture.open()
            try await store.createConversation(F.conversation("c1"))
            try await store.appendMessage(F.message("m1", role: .assistant, text: "a"))
        }
        do {
            let database = try SQLiteDatabase.open(path: fixture.path, migrations: SQLiteChatHistory.migrations)
            let long = String(repeating: "n", count: ChatToolCall.maximumNameBytes + 1)
            try database.query(
                "UPDATE chat_messages SET tool_calls = ?",
                [.text(#"[{"index":0,"id":null,"name":""# + long + #"","arguments":"{}","truncated":false}]"#)])
        }
        let error = await #expect(throws: StorageError.self) { try await fixture.open().messages(inConversation: "c1") }
        #expect(error?.reason.contains("chat_messages.tool_calls") == true)
        #expect(error?.reason.contains("more than \(ChatToolCall.maximumNameBytes)") == true)
    }
}
