import Foundation
import SybilStore
import Testing

@Suite("Chat history search", .timeLimit(.minutes(2)))
struct ChatHistorySearchTests {
    typealias F = ChatHistoryFixture

    /// A store holding one conversation with `texts` as its messages (ids m0, m1, …).
    private func store(_ fixture: F, title: String = "Notes", texts: [String]) async throws -> SQLiteChatHistory {
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1", title: title))
        try await store.appendMessages(
            texts.enumerated().map { F.message("m\($0.offset)", text: $0.element, at: 2_000 + Int64($0.offset)) })
        return store
    }

    private func messageIds(_ results: ChatSearchResults) -> [String] {
        results.hits.compactMap {
            if case .message(_, let id) = $0.source { return id }
            return nil
        }
    }

    @Test func wordsMatchAsPrefixesOfWordsOnly() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: ["Planning the trip", "An airplane ride", "plan B"])
        #expect(Set(messageIds(try await store.search("plan", limit: 10))) == ["m0", "m2"])
        #expect(messageIds(try await store.search("PLANNING trip", limit: 10)) == ["m0"])
        #expect(messageIds(try await store.search("plan ride", limit: 10)) == [])
        let hit = try #require(try await store.search("tri", limit: 10).hits.first)
        #expect(hit.title == "Notes")
        #expect(hit.text == "Planning the trip")
        #expect(hit.terms == ["tri"])
    }

    @Test(
        "hostile text is never a syntax error",
        arguments: [
            "\"", "\"plan", "plan\"", "\"\"\"", "'", "-", "-plan", "plan-", "e-mail", "*", "plan*", "**", "*plan",
            "NEAR", "NEAR(plan trip)", "plan NEAR trip", "NEAR/2", "AND", "OR", "NOT", "plan AND", "OR plan",
            "NOT plan", "plan NOT trip", "(", ")", "((plan", "plan))", "(plan OR", "^plan", "plan:", "title:plan",
            "{title}: plan", "+", "🙂", "plan 🙂", "👩‍👩‍👧", "Привет", "مرحبا", "天气", "东京の天气", "한국어",
            "\u{301}", "e\u{301}", "\0", "a\u{0}b", "\\", "%", "_", "plan;DROP TABLE chat_messages", "   ", "",
            String(repeating: "plan ", count: 500), String(repeating: "x", count: 5_000),
        ])
    func hostile(_ text: String) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: ["plan the trip", "e-mail NEAR AND OR NOT title"])
        _ = try await store.search(text, limit: 100)
        #expect(try await store.messages(inConversation: "c1").count == 2)
    }

    @Test func operatorWordsAreSearchedAsWords() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: ["you OR me", "near the lake", "plan-b ready"])
        #expect(messageIds(try await store.search("or", limit: 10)) == ["m0"])
        #expect(messageIds(try await store.search("NEAR", limit: 10)) == ["m1"])
        #expect(messageIds(try await store.search("\"plan-b", limit: 10)) == ["m2"])
        #expect(messageIds(try await store.search("-ready*", limit: 10)) == ["m2"])
    }

    @Test func scriptsMatch() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(
            fixture,
            texts: [
                "Привет, как дела?", "مرحبا بالعالم", "今天天气很好", "東京の天気はどう", "Café crème", "Größe zählt",
                "한국어 공부",
            ])
        #expect(messageIds(try await store.search("прив", limit: 10)) == ["m0"])
        #expect(messageIds(try await store.search("مرح", limit: 10)) == ["m1"])
        #expect(messageIds(try await store.search("天气", limit: 10)) == ["m2"])
        #expect(messageIds(try await store.search("气很", limit: 10)) == ["m2"])
        #expect(messageIds(try await store.search("天", limit: 10)).sorted() == ["m2", "m3"])
        #expect(messageIds(try await store.search("東京 天気", limit: 10)) == ["m3"])
        #expect(messageIds(try await store.search("cafe", limit: 10)) == ["m4"])
        // The term dictionary folds ß to ss (as the excerpt does), so a long word finds it too.
        #expect(messageIds(try await store.search("GROSSE", limit: 10)) == ["m5"])
        #expect(messageIds(try await store.search("gro", limit: 10)) == ["m5"])
        #expect(messageIds(try await store.search("zah", limit: 10)) == ["m5"])
        #expect(messageIds(try await store.search("한국", limit: 10)) == ["m6"])
    }

    @Test func blankOrWordlessQueriesFindNothing() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: ["anything"])
        for text in ["", "   ", "\n\t", "***", "🙂", "\"-()"] {
            #expect(try await store.search(text, limit: 100) == .empty)
        }
        #expect(try await store.search("any", limit: 0) == .empty)
    }

    @Test(
        "at most the limit, and hasMore past it",
        arguments: [(99, false), (100, false), (101, true)])
    func cap(matching: Int, hasMore: Bool) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: (0..<matching).map { "match number \($0)" } + ["other"])
        let results = try await store.search("match", limit: 100)
        #expect(results.hits.count == min(matching, 100))
        #expect(results.hasMore == hasMore)
    }

    @Test func pastTheCapTheNewestComeFirstAndACompleteListIsRanked() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(
            fixture,
            texts: ["match match match match"] + (1...100).map { "a longer message with one match, number \($0)" })
        let capped = try await store.search("match", limit: 100)
        #expect(capped.hasMore)
        #expect(messageIds(capped) == (1...100).reversed().map { "m\($0)" })
        let complete = try await store.search("match", limit: 101)
        #expect(!complete.hasMore)
        #expect(messageIds(complete).first == "m0")
        #expect(messageIds(complete).dropFirst() == ArraySlice((1...100).reversed().map { "m\($0)" }))
    }

    @Test func bestMatchFirstThenNewest() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(
            fixture,
            texts: [
                "budget budget budget", "a long note that mentions the budget once among many other words here",
                "budget budget budget",
            ])
        #expect(messageIds(try await store.search("budget", limit: 10)) == ["m2", "m0", "m1"])
    }

    @Test func titlesAndWebSearchesAreFound() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, title: "Kyoto itinerary", texts: ["temples"])
        try await store.saveWebSearch(
            SavedWebSearch(id: "w1", query: "kyoto weather", answer: "Mild and sunny in spring", createdAt: 9_000))
        try await store.saveWebSearch(
            SavedWebSearch(id: "w2", query: "rainfall", answer: "Kyoto gets most rain in June", createdAt: 9_001))
        let kyoto = try await store.search("kyoto", limit: 10)
        #expect(
            Set(kyoto.hits.map(\.source)) == [.title(conversationId: "c1"), .webSearch(id: "w1"), .webSearch(id: "w2")])
        let byQuery = try #require(try await store.search("weather", limit: 10).hits.first)
        #expect(byQuery.title == "kyoto weather")
        #expect(byQuery.text == "kyoto weather")
        #expect(byQuery.updatedAt == 9_000)
        let byAnswer = try #require(try await store.search("sunny", limit: 10).hits.first)
        #expect(byAnswer.title == "kyoto weather")
        #expect(byAnswer.text == "Mild and sunny in spring")
        let title = try #require(try await store.search("itin", limit: 10).hits.first)
        #expect(title.source == .title(conversationId: "c1"))
        #expect(title.text == "Kyoto itinerary")
    }

    @Test func aStreamingReplyIsFoundByWhatArrived() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try await store(fixture, texts: [])
        try await store.appendMessage(F.message("r", role: .assistant, text: "The first", state: .streaming))
        try await store.updateMessage(id: "r", text: "The first paragraph", state: .streaming, finishedAt: nil, at: 3)
        #expect(messageIds(try await store.search("paragraph", limit: 10)) == ["r"])
        #expect(try await store.search("first", limit: 10).hits.count == 1)
    }
}
