import SybilCore

/// The answer of `POST v1/web-search` (docs/api/web-search.md): the answer's text (Markdown)
/// and the sources it was drawn from, best first. The reference server's scripted answers
/// say they are scripted, in the text and in each source's title.
public struct WebSearchAnswer: Sendable, Hashable {
    /// The answer (Markdown, not blank).
    public var answer: String
    /// The sources, at most ``maxSources`` (may be empty).
    public var sources: [WebSearchSource]

    /// The most UTF-8 bytes of an answer (256 KiB).
    public static let maxAnswerBytes = 256 << 10
    /// The most sources an answer lists.
    public static let maxSources = 20
    /// The largest answer body a client reads (1 MiB): an answer and its sources at their
    /// limits, with room for escaping.
    public static let maxBodyBytes = 1 << 20
    /// The members, in the order they are written.
    public static let keys = ["answer", "sources"]

    /// Creates an answer.
    public init(answer: String, sources: [WebSearchSource]) {
        self.answer = answer
        self.sources = sources
    }

    /// Decodes an answer strictly: exactly `answer` (non-blank, within ``maxAnswerBytes``)
    /// and `sources` (an array of at most ``maxSources`` ``WebSearchSource`` objects).
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WebSearchAnswer {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let answer = try reader.string("answer")
        try WebSearchText.check(answer, at: path.appending(key: "answer"), maxBytes: maxAnswerBytes, blank: false)
        let items = try reader.array("sources")
        let listPath = path.appending(key: "sources")
        guard items.count <= maxSources else {
            throw .contract(listPath, "must list at most \(maxSources) sources, got \(items.count)")
        }
        var sources: [WebSearchSource] = []
        for (index, item) in items.enumerated() {
            sources.append(try WebSearchSource.decode(item, at: listPath.appending(index: index)))
        }
        return WebSearchAnswer(answer: answer, sources: sources)
    }

    /// The answer as contract JSON.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("answer", .string(answer)), JSONMember("sources", .array(sources.map(\.jsonValue))),
            ]))
    }
}
