import SybilStore
import Testing

@Suite("Chat search query", .timeLimit(.minutes(2)))
struct ChatSearchQueryTests {
    @Test(
        "words become quoted prefix strings",
        arguments: [
            ("plan", "\"plan\"*", ["plan"]),
            ("  Plan   the-trip ", "\"Plan\"* AND \"the\"* AND \"trip\"*", ["Plan", "the", "trip"]),
            ("\"NEAR(a OR b)\"", "\"NEAR\"* AND \"a\"* AND \"OR\"* AND \"b\"*", ["NEAR", "a", "OR", "b"]),
            ("天气 iPhone用户", "\"天 气\"* AND \"iPhone\"* AND \"用 户\"*", ["天气", "iPhone", "用户"]),
            ("e\u{301}te\u{301}", "\"e\u{301}te\u{301}\"*", ["e\u{301}te\u{301}"]),
        ])
    func expression(text: String, expected: String, terms: [String]) {
        let query = ChatSearchQuery(text)
        #expect(query.matchExpression == expected)
        #expect(query.terms.map(\.text) == terms)
    }

    @Test func blankHasNoExpression() {
        #expect(ChatSearchQuery("").matchExpression == nil)
        #expect(ChatSearchQuery(" -*()\"🙂 ").isEmpty)
    }

    @Test func wordCountAndLengthAreBoundedAtTheirLimits() {
        let words = (0..<17).map { "w\($0)" }
        #expect(ChatSearchQuery(words.prefix(16).joined(separator: " ")).terms.count == 16)
        #expect(ChatSearchQuery(words.joined(separator: " ")).terms.map(\.text) == Array(words.prefix(16)))
        #expect(ChatSearchQuery(String(repeating: "a", count: 64)).terms.first?.text.count == 64)
        #expect(ChatSearchQuery(String(repeating: "a", count: 65)).terms.first?.text.count == 64)
    }

    @Test func indexTextSetsCJKCharactersApart() {
        #expect(ChatSearchQuery.indexText("plain text") == "plain text")
        #expect(ChatSearchQuery.indexText("今天ok") == " 今  天 ok")
        #expect(ChatSearchQuery.indexText("カタカナ") == " カ  タ  カ  ナ ")
    }
}
