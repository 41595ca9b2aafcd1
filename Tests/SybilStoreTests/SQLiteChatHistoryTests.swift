import Foundation
import SybilStore
import Testing

@Suite("SQLite chat history", .timeLimit(.minutes(2)))
struct SQLiteChatHistoryTests {
    typealias F = ChatHistoryFixture

    @Test func messagesRoundTripInOrderWithEveryState() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1"))
        let messages = [
            F.message("m1", text: "Plan a trip", at: 2_000),
            F.message("m2", role: .assistant, text: "Sure", at: 2_001),
            F.message("m3", role: .assistant, text: "half", state: .streaming, at: 2_002),
            F.message("m4", role: .assistant, text: "stop", state: .stopped, at: 2_003),
            F.message("m5", role: .assistant, text: "", state: .failed(reason: "HTTP 500"), at: 2_004),
            F.message("m6", role: .system, text: "Be brief", at: 2_005),
        ]
        for message in messages { try await store.appendMessage(message) }
        #expect(try await store.messages(inConversation: "c1") == messages)
        #expect(try await store.conversation(id: "c1")?.updatedAt == 2_005)
        #expect(try await store.messages(inConversation: "other") == [])
        #expect(try await store.conversation(id: "other") == nil)
    }

    @Test func updateReplacesTextStateAndEndAndBumpsTheConversation() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1"))
        try await store.appendMessage(F.message("r", role: .assistant, text: "Hel", state: .streaming))
        try await store.updateMessage(
            id: "r", text: "Hello", state: .failed(reason: "timeout"), finishedAt: 2_500, at: 2_600)
        let saved = try #require(try await store.messages(inConversation: "c1").first)
        #expect(saved.text == "Hello")
        #expect(saved.state == .failed(reason: "timeout"))
        #expect(saved.finishedAt == 2_500)
        #expect(try await store.conversation(id: "c1")?.updatedAt == 2_600)
        let error = await #expect(throws: StorageError.self) {
            try await store.updateMessage(id: "nope", text: "x", state: .complete, finishedAt: nil, at: 1)
        }
        #expect(error?.reason == "no such message 'nope'")
    }

    @Test func writesThatBreakARuleSaveNothing() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1"))
        let missing = await #expect(throws: StorageError.self) {
            try await store.appendMessage(F.message("m1", in: "ghost", text: "hi"))
        }
        #expect(missing?.reason == "no such conversation 'ghost'")
        await #expect(throws: SQLiteError.self) { try await store.createConversation(F.conversation("c1")) }
        try await store.appendMessage(F.message("m1", text: "first"))
        await #expect(throws: SQLiteError.self) {
            try await store.appendMessages([F.message("m2", text: "second"), F.message("m1", text: "dup")])
        }
        #expect(try await store.messages(inConversation: "c1").map(\.id) == ["m1"])
        #expect(try await store.search("second", limit: 10).hits.isEmpty)
    }

    @Test func aConversationWithItsFirstMessagesIsSavedAllOrNothing() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c0"))
        try await store.appendMessage(F.message("taken", in: "c0", text: "already here"))
        await #expect(throws: SQLiteError.self) {
            try await store.createConversation(
                F.conversation("c1", title: "Quick"),
                messages: [F.message("q", text: "Frage?"), F.message("taken", role: .assistant, text: "Antwort.")])
        }
        #expect(try await store.conversation(id: "c1") == nil, "no chat with only the question")
        #expect(try await store.search("Quick", limit: 10).hits.isEmpty)
        try await store.createConversation(
            F.conversation("c1", title: "Quick"),
            messages: [F.message("q", text: "Frage?"), F.message("a", role: .assistant, text: "Antwort.")])
        #expect(try await store.messages(inConversation: "c1").map(\.text) == ["Frage?", "Antwort."])
    }

    @Test func recentConversationsAreNewestFirstUpToTheLimit() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("a", at: 10))
        try await store.createConversation(F.conversation("b", at: 20))
        try await store.createConversation(F.conversation("c", at: 30))
        try await store.appendMessage(F.message("m", in: "a", text: "later", at: 40))
        #expect(try await store.recentConversations(limit: 3).map(\.id) == ["a", "c", "b"])
        #expect(try await store.recentConversations(limit: 2).map(\.id) == ["a", "c"])
        #expect(try await store.recentConversations(limit: 4).map(\.id) == ["a", "c", "b"])
        #expect(try await store.recentConversations(limit: 0) == [])
    }

    @Test func renameAndDeleteKeepTheSearchIndexInStep() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1", title: "Paris trip"))
        try await store.appendMessage(F.message("m1", text: "museums in Paris"))
        try await store.renameConversation(id: "c1", title: "Lyon weekend", at: 3_000)
        #expect(
            try await store.conversation(id: "c1")
                == ChatConversationRecord(
                    id: "c1", title: "Lyon weekend", createdAt: 1_000, updatedAt: 3_000))
        #expect(try await store.search("lyon", limit: 10).hits.map(\.source) == [.title(conversationId: "c1")])
        #expect(
            try await store.search("paris", limit: 10).hits.map(\.source) == [
                .message(conversationId: "c1", messageId: "m1")
            ])
        try await store.deleteConversation(id: "c1")
        #expect(try await store.conversation(id: "c1") == nil)
        #expect(try await store.messages(inConversation: "c1") == [])
        #expect(try await store.search("lyon", limit: 10) == .empty)
        #expect(try await store.search("paris", limit: 10) == .empty)
        await #expect(throws: StorageError.self) { try await store.renameConversation(id: "c1", title: "x", at: 1) }
    }

    @Test func everythingSurvivesReopeningAndMigrationsRunOnce() async throws {
        let fixture = F()
        defer { fixture.remove() }
        do {
            let store = try fixture.open()
            try await store.createConversation(F.conversation("c1"))
            try await store.appendMessage(F.message("m1", text: "kept"))
            try await store.saveWebSearch(SavedWebSearch(id: "w1", query: "weather", answer: "sunny", createdAt: 5))
        }
        let reopened = try fixture.open()
        #expect(try await reopened.messages(inConversation: "c1").map(\.text) == ["kept"])
        #expect(try await reopened.search("sunny", limit: 5).hits.map(\.source) == [.webSearch(id: "w1")])
        let raw = try SQLiteDatabase(.file(path: fixture.path))
        let names = try raw.query("SELECT name FROM schema_migrations ORDER BY rowid").map { $0[0] }
        #expect(
            names == [
                .text("chat-history-1-conversations"), .text("chat-history-2-messages"),
                .text("chat-history-3-web-searches"), .text("chat-history-4-search-index"),
                .text("chat-history-5-search-terms"), .text("chat-history-6-system-prompt"),
                .text("chat-history-7-web-search-sources"), .text("chat-history-8-conversation-model"),
                .text("chat-history-9-message-attachments"), .text("chat-history-10-message-tool-calls"),
            ])
        #expect(try raw.query("PRAGMA journal_mode") == [[.text("wal")]])
    }

    @Test(
        "an unreadable row is an error naming the column",
        arguments: [
            (
                "UPDATE chat_messages SET role = 'robot'",
                "column chat_messages.role holds 'robot', expected system, user or assistant"
            ),
            ("UPDATE chat_messages SET text = X'00'", "column chat_messages.text holds a blob, expected text"),
            (
                "UPDATE chat_messages SET state = 'failed'",
                "column chat_messages.failure_reason is NULL for a failed message"
            ),
            (
                "UPDATE chat_messages SET created_at = 1.5",
                "column chat_messages.created_at holds a real, expected an integer"
            ),
            (
                "UPDATE chat_messages SET finished_at = 'soon'",
                "column chat_messages.finished_at holds text, expected an integer"
            ),
        ])
    func strictDecoding(corruption: String, reason: String) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1"))
        try await store.appendMessage(F.message("m1", text: "hello"))
        try SQLiteDatabase(.file(path: fixture.path)).execute(corruption)
        let error = await #expect(throws: StorageError.self) { try await store.messages(inConversation: "c1") }
        #expect(error?.reason == reason)
        #expect(error?.path == fixture.path)
    }

    @Test func twoConnectionsWritingAtOnceLoseNothing() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let first = try fixture.open()
        let second = try fixture.open()
        try await first.createConversation(F.conversation("shared"))
        let perWriter = 60
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (name, store) in [("a", first), ("b", second)] {
                group.addTask {
                    for index in 0..<perWriter {
                        try await store.appendMessage(
                            F.message("\(name)\(index)", in: "shared", text: "from \(name) \(index)", at: Int64(index)))
                        try await store.createConversation(F.conversation("\(name)-c\(index)"))
                    }
                }
            }
            try await group.waitForAll()
        }
        let messages = try await second.messages(inConversation: "shared")
        #expect(messages.count == 2 * perWriter)
        #expect(Set(messages.map(\.id)).count == 2 * perWriter)
        #expect(messages.filter { $0.id.hasPrefix("a") }.map(\.id) == (0..<perWriter).map { "a\($0)" })
        #expect(try await first.recentConversations(limit: 1_000).count == 2 * perWriter + 1)
        #expect(try await first.search("from", limit: 1_000).hits.count == 2 * perWriter)
    }
}

extension SQLiteChatHistoryTests {
    /// A process opening the file while another closes it (closing the file's last handle
    /// checkpoints the WAL under an exclusive lock) waits instead of failing busy: each round
    /// opens a new store while the previous one is being released on its queue.
    @Test func openingWhileAnotherConnectionClosesWaits() async throws {
        let fixture = F()
        defer { fixture.remove() }
        try await fixture.open().createConversation(F.conversation("c1"))
        let rounds = 30
        for round in 0..<rounds {
            let store = try fixture.open()
            for index in 0..<5 {
                try await store.appendMessages(
                    (0..<20).map { F.message("m\(round)-\(index)-\($0)", text: String(repeating: "word ", count: 200)) }
                )
            }
        }
        #expect(try await fixture.open().messages(inConversation: "c1").count == rounds * 100)
    }
}
