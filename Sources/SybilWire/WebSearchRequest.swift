import SybilCore

/// The body of `POST v1/web-search` (docs/api/web-search.md): the question a person searches
/// the web for. Exactly one member, `query`: a string of at most ``maxQueryBytes`` bytes of
/// UTF-8 that is not blank.
public struct WebSearchRequest: Sendable, Hashable {
    /// What to search for.
    public var query: String

    /// The most UTF-8 bytes a query may have (8 KiB): a search question, not a document.
    public static let maxQueryBytes = 8 << 10
    /// The members, in the order they are written.
    public static let keys = ["query"]

    /// Creates a request.
    public init(query: String) {
        self.query = query
    }

    /// Decodes a request body strictly: exactly `query`, a non-blank string within
    /// ``maxQueryBytes``. Errors name the member and never quote the query back.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> WebSearchRequest {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        let query = try reader.string("query")
        try WebSearchText.check(query, at: path.appending(key: "query"), maxBytes: maxQueryBytes, blank: false)
        return WebSearchRequest(query: query)
    }

    /// The body as contract JSON.
    public var jsonValue: JSONValue {
        .object(JSONObject([JSONMember("query", .string(query))]))
    }
}
