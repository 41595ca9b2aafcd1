import Foundation
import Testing

@testable import SybilStore

/// The term dictionary: long query words become OR groups of exact words (fast on a large
/// history) and find exactly what the prefix string finds.
@Suite("Chat search term dictionary", .timeLimit(.minutes(2)))
struct ChatSearchTermsTests {
    typealias F = ChatHistoryFixture

    private func expression(_ query: String, _ store: SQLiteChatHistory) async throws -> String {
        try await store.run { database in try SQLiteChatHistory.expressions(for: ChatSearchQuery(query), database).all }
    }

    @Test func longWordsExpandToTheWordsThatStartWithThem() async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1", title: "Plans"))
        try await store.appendMessages([
            F.message("m1", text: "Planning ahead"), F.message("m2", text: "we PLANNED it"),
            F.message("m3", text: "plants and a plan"), F.message("m4", text: "Café planétaire"),
        ])
        let plan = try await expression("plan", store)
        #expect(plan == "(\"plan\" OR \"planétaire\" OR \"PLANNED\" OR \"Planning\" OR \"Plans\" OR \"plants\")")
        #expect(try await expression("pla", store) == "\"pla\"*")
        #expect(try await expression("plannx", store) == "\"plannx\"*")
        let two = try await expression("plann cafe", store)
        #expect(two == "(\"PLANNED\" OR \"Planning\") AND (\"Café\")")
        let found = try await store.search("plan", limit: 10).hits.map(\.source)
        #expect(
            Set(found) == [
                .title(conversationId: "c1"), .message(conversationId: "c1", messageId: "m1"),
                .message(conversationId: "c1", messageId: "m2"), .message(conversationId: "c1", messageId: "m3"),
                .message(conversationId: "c1", messageId: "m4"),
            ])
        #expect(try await store.search("plann", limit: 10).hits.count == 2)
        #expect(try await store.search("plane", limit: 10).hits.map(\.text) == ["Café planétaire"])
    }

    @Test(
        "a word with more than 64 expansions stays a prefix string and finds the same",
        arguments: [63, 64, 65])
    func expansionCap(words: Int) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1", title: "t"))
        try await store.appendMessages((0..<words).map { F.message("m\($0)", text: "wordy\($0) filler") })
        let expression = try await expression("wordy", store)
        #expect(expression.hasPrefix("(") == (words <= 64))
        #expect(try await store.search("wordy", limit: 100).hits.count == words)
    }

    /// What FTS5 finds for `query` as a plain prefix string, without the dictionary.
    private func prefixMatches(_ word: String, _ store: SQLiteChatHistory) async throws -> Int {
        try await store.run { database in
            let rows = try database.query(
                "SELECT count(*) FROM chat_search WHERE chat_search MATCH ?", [.text("\"\(word)\"*")])
            return Int(rows.first?.first?.integerValue ?? -1)
        }
    }

    @Test(
        "the dictionary never finds less than the prefix string: long words and words FTS5 splits",
        arguments: [
            ["qwertyuiop" + String(repeating: "a", count: 110), "qwertyuiopz"],
            ["qwertyuiop" + String(repeating: "b", count: 90), "qwertyuiopz"],
            ["foo\u{0903}barbaz", "barbell"],
            ["नमस्ते दुनिया", "नमस्कार"],
        ])
    func neverLessThanThePrefixString(texts: [String]) async throws {
        let fixture = F()
        defer { fixture.remove() }
        let store = try fixture.open()
        try await store.createConversation(F.conversation("c1", title: "t"))
        try await store.appendMessages(texts.enumerated().map { F.message("m\($0.offset)", text: $0.element) })
        let words = texts.flatMap { ChatSearchQuery.words(in: $0).map(\.text) }
        var prefixes = Set<String>()
        for word in words {
            for piece in SQLiteChatHistory.pieces(of: word) where piece.count >= 4 {
                prefixes.insert(String(piece.prefix(4)))
            }
        }
        #expect(!prefixes.isEmpty)
        for prefix in prefixes {
            let expected = try await prefixMatches(prefix, store)
            let found = try await store.search(prefix, limit: 100).hits.count
            let expression = try await expression(prefix, store)
            #expect(found == expected, "\(prefix): \(expression)")
        }
    }
}
