import SybilStore
import Testing

/// The in-memory history keeps the rules of the seam: ids once, order kept, `updatedAt` bumped,
/// word-prefix search with a cap.
@Suite("In-memory chat history", .timeLimit(.minutes(2)))
struct InMemoryChatHistoryTests {
    func conversation(_ id: String, title: String = "t", at time: Int64 = 1) -> ChatConversationRecord {
        ChatConversationRecord(id: id, title: title, createdAt: time, updatedAt: time)
    }

    func message(_ id: String, in conversation: String, text: String, at time: Int64) -> ChatMessageRecord {
        ChatMessageRecord(id: id, conversationId: conversation, role: .user, text: text, createdAt: time)
    }

    @Test func messagesKeepTheirOrderAndBumpTheConversation() async throws {
        let history = InMemoryChatHistory()
        try await history.createConversation(conversation("a", at: 1))
        try await history.createConversation(conversation("b", at: 2))
        try await history.appendMessage(message("m1", in: "a", text: "eins", at: 5))
        try await history.appendMessage(message("m2", in: "a", text: "zwei", at: 6))
        #expect(await history.recentConversations(limit: 10).map(\.id) == ["a", "b"])
        #expect(await history.recentConversations(limit: 1).map(\.id) == ["a"])
        #expect(await history.recentConversations(limit: 0).isEmpty)
        try await history.updateMessage(id: "m1", text: "eins!", state: .stopped, finishedAt: 9, at: 9)
        let messages = await history.messages(inConversation: "a")
        #expect(messages.map(\.text) == ["eins!", "zwei"])
        #expect(messages.first?.state == .stopped)
        #expect(messages.first?.finishedAt == 9)
        #expect(await history.conversation(id: "a")?.updatedAt == 9)
        try await history.renameConversation(id: "b", title: "neu", at: 10)
        #expect(await history.recentConversations(limit: 10).map(\.title) == ["neu", "t"])
    }

    @Test func anIdIsAddedOnceAndUnknownIdsAreErrors() async throws {
        let history = InMemoryChatHistory()
        try await history.createConversation(conversation("a"))
        await #expect(throws: StorageError.self) { try await history.createConversation(conversation("a")) }
        try await history.appendMessage(message("m", in: "a", text: "x", at: 1))
        await #expect(throws: StorageError.self) {
            try await history.appendMessage(message("m", in: "a", text: "y", at: 2))
        }
        await #expect(throws: StorageError.self) {
            try await history.appendMessage(message("n", in: "nope", text: "y", at: 2))
        }
        await #expect(throws: StorageError.self) {
            try await history.updateMessage(id: "nope", text: "", state: .complete, finishedAt: nil, at: 1)
        }
        try await history.deleteConversation(id: "a")
        #expect(await history.messages(inConversation: "a").isEmpty)
        try await history.createConversation(conversation("a2"))
        try await history.appendMessage(message("m", in: "a2", text: "again", at: 3))  // its id is free again
        try await history.deleteConversation(id: "a")  // gone already: nothing to do, as in the SQLite store
        #expect(await history.conversation(id: "a2") != nil)
    }

    @Test func searchMatchesWordPrefixesCaseInsensitivelyInTitlesMessagesAndWebSearches() async throws {
        let history = InMemoryChatHistory()
        try await history.createConversation(conversation("a", title: "Planning the trip", at: 1))
        try await history.appendMessage(message("m", in: "a", text: "Kaltstart verstecken", at: 2))
        try await history.saveWebSearch(SavedWebSearch(id: "w", query: "cold start", answer: "wake it", createdAt: 3))
        #expect(await history.search("plan", limit: 10).hits.map(\.source) == [.title(conversationId: "a")])
        #expect(
            await history.search("KALT", limit: 10).hits.map(\.source) == [
                .message(conversationId: "a", messageId: "m")
            ])
        #expect(await history.search("wake col", limit: 10).hits.map(\.source) == [.webSearch(id: "w")])
        #expect(await history.search("lanning", limit: 10).hits.isEmpty, "a prefix, not a substring")
        #expect(await history.search("\"*( NEAR", limit: 10).hits.isEmpty)
        #expect(await history.search("", limit: 10) == .empty)
    }

    @Test(
        "the limit caps the hits and says when more matched",
        arguments: [(2, false), (3, false), (4, true)])
    func limit(matches: Int, hasMore: Bool) async throws {
        let history = InMemoryChatHistory()
        for index in 0..<matches {
            try await history.createConversation(conversation("c\(index)", title: "plan \(index)", at: Int64(index)))
        }
        let results = await history.search("plan", limit: 3)
        #expect(results.hits.count == min(matches, 3))
        #expect(results.hasMore == hasMore)
        #expect(results.hits.first?.updatedAt == Int64(matches - 1), "newest first")
    }
}
