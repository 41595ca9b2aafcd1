import SybilCore
import SybilWire
import Testing

/// The web-search contract (docs/api/web-search.md): a request `{query}` and an answer
/// `{answer, sources: [{title, url}]}`, decoded strictly with errors naming the member, and
/// every size bounded, whatever a peer sends.
@Suite("Web search contract", .timeLimit(.minutes(2)))
struct WebSearchContractTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONReader().parse(Array(text.utf8)) }

    private static func source(_ title: String = "A page", url: String = "https://example.com/a") -> JSONValue {
        ["title": .string(title), "url": .string(url)]
    }

    @Test func theDocumentedExamplesDecodeWithTheirTypes() throws {
        let examples = try APIDocsTests.examples().filter { $0.file == "web-search.md" && $0.language == "json" }
        #expect(examples.count == 2)
        let request = try WebSearchRequest.decode(try JSONReader().parse(try #require(examples.first).body), at: .root)
        #expect(request.query == "How warm is Kyoto in May?")
        let answer = try WebSearchAnswer.decode(try JSONReader().parse(try #require(examples.last).body), at: .root)
        #expect(answer.sources.map(\.title) == ["Kyoto weather by month", ""])
    }

    @Test func aRequestAndAnAnswerRoundTrip() throws {
        let request = WebSearchRequest(query: "Wie funktioniert ein Kaltstart?")
        #expect(try WebSearchRequest.decode(request.jsonValue, at: .root) == request)
        let answer = WebSearchAnswer(
            answer: "**Kurz**: der erste Start.",
            sources: [WebSearchSource(title: "Kaltstart", url: "https://example.com/k?x=1#y")])
        #expect(try WebSearchAnswer.decode(answer.jsonValue, at: .root) == answer)
        #expect(try WebSearchAnswer.decode(parse(#"{"answer":"x","sources":[]}"#), at: .root).sources.isEmpty)
    }

    @Test func aRequestNamesTheMemberThatIsWrong() throws {
        expectContractRejection(at: "query", "required member is missing") {
            try WebSearchRequest.decode(parse("{}"), at: .root)
        }
        expectContractRejection(at: "query", "expected a string") {
            try WebSearchRequest.decode(parse(#"{"query": 42}"#), at: .root)
        }
        expectContractRejection(at: "query", "must not be empty or only white space") {
            try WebSearchRequest.decode(parse(#"{"query": " \n\t"}"#), at: .root)
        }
        expectContractRejection(at: "extra", "unexpected member") {
            try WebSearchRequest.decode(parse(#"{"query": "q", "extra": 1}"#), at: .root)
        }
        expectContractRejection(at: "$", "expected an object") {
            try WebSearchRequest.decode(parse(#"["query"]"#), at: .root)
        }
        expectContractRejection(at: "query", "duplicate key") {
            try WebSearchRequest.decode(parse(#"{"query": "a", "query": "b"}"#), at: .root)
        }
    }

    @Test func aQueryIsBoundedAndTheErrorDoesNotQuoteIt() throws {
        let limit = WebSearchRequest.maxQueryBytes
        let fits = String(repeating: "ä", count: limit / 2)
        #expect(try WebSearchRequest.decode(["query": .string(fits)], at: .root).query == fits)
        let over = String(repeating: "ä", count: limit / 2) + "x"
        expectContractRejection(at: "query", "must be at most \(limit) bytes of UTF-8, got \(limit + 1)") {
            try WebSearchRequest.decode(["query": .string(over)], at: .root)
        }
        do {
            _ = try WebSearchRequest.decode(["query": .string(over)], at: .root)
        } catch {
            #expect(!"\(error)".contains("ää"), "the query is never echoed")
        }
    }

    @Test func anAnswerIsBoundedEverywhere() throws {
        let answerLimit = WebSearchAnswer.maxAnswerBytes
        expectContractRejection(at: "answer", "must be at most \(answerLimit) bytes") {
            try WebSearchAnswer.decode(
                ["answer": .string(String(repeating: "a", count: answerLimit + 1)), "sources": []], at: .root)
        }
        let many = Array(repeating: Self.source(), count: WebSearchAnswer.maxSources + 1)
        expectContractRejection(at: "sources", "at most \(WebSearchAnswer.maxSources) sources, got 21") {
            try WebSearchAnswer.decode(["answer": "a", "sources": .array(many)], at: .root)
        }
        let longTitle = String(repeating: "t", count: WebSearchSource.maxTitleBytes + 1)
        expectContractRejection(at: "sources[1].title", "must be at most \(WebSearchSource.maxTitleBytes) bytes") {
            try WebSearchAnswer.decode(
                ["answer": "a", "sources": [Self.source(), Self.source(longTitle)]], at: .root)
        }
        let longURL = "https://example.com/" + String(repeating: "u", count: WebSearchSource.maxURLBytes)
        expectContractRejection(at: "sources[0].url", "must be at most \(WebSearchSource.maxURLBytes) bytes") {
            try WebSearchAnswer.decode(["answer": "a", "sources": [Self.source(url: longURL)]], at: .root)
        }
    }

    @Test func anAnswerNamesTheMemberThatIsWrong() throws {
        expectContractRejection(at: "sources", "required member is missing") {
            try WebSearchAnswer.decode(["answer": "a"], at: .root)
        }
        expectContractRejection(at: "answer", "must not be empty or only white space") {
            try WebSearchAnswer.decode(["answer": "  ", "sources": []], at: .root)
        }
        expectContractRejection(at: "sources", "expected an array") {
            try WebSearchAnswer.decode(["answer": "a", "sources": "https://example.com"], at: .root)
        }
        expectContractRejection(at: "sources[0]", "expected an object") {
            try WebSearchAnswer.decode(["answer": "a", "sources": ["https://example.com"]], at: .root)
        }
        expectContractRejection(at: "sources[0].url", "required member is missing") {
            try WebSearchAnswer.decode(["answer": "a", "sources": [["title": "t"]]], at: .root)
        }
        expectContractRejection(at: "sources[0].rank", "unexpected member") {
            try WebSearchAnswer.decode(
                ["answer": "a", "sources": [["title": "t", "url": "https://e.com", "rank": 1]]], at: .root)
        }
        expectContractRejection(at: "model", "unexpected member") {
            try WebSearchAnswer.decode(["answer": "a", "sources": [], "model": "m"], at: .root)
        }
    }

    @Test(
        "a source's URL is an absolute http or https URL without spaces or control characters",
        arguments: [
            ("https://example.com/a?b=c#d", true), ("HTTP://EXAMPLE.COM", true), ("http://127.0.0.1:8080/x", true),
            ("javascript:alert(1)", false), ("file:///etc/passwd", false), ("ftp://example.com", false),
            ("//example.com", false), ("https://", false), ("https:///path", false), ("https://a b", false),
            ("https://example.com/\u{1B}[2J", false), ("https://example.com/\u{9B}31m", false),
            ("https://example.com/\n", false), ("example.com", false), ("https://@evil", false),
        ])
    func sourceURLs(url: String, valid: Bool) throws {
        #expect(WebSearchSource.isWebURL(url) == valid)
        let value: JSONValue = ["answer": "a", "sources": [Self.source(url: url)]]
        if valid {
            #expect(try WebSearchAnswer.decode(value, at: .root).sources.first?.url == url)
        } else {
            expectContractRejection(at: "sources[0].url", "must") { try WebSearchAnswer.decode(value, at: .root) }
        }
    }
}
