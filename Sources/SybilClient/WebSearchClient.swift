import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// Web searches over HTTP (docs/api/web-search.md): `POST v1/web-search` with a
/// ``WebSearchRequest``; the answer is read bounded (``WebSearchAnswer/maxBodyBytes``) and
/// decoded strictly, a `401` renews the token once through the token chain, and a `3xx` is
/// never followed. A server without the route (`404`) is ``WebSearchError/notOffered``.
///
/// Give it an ``HTTPClient`` that does not follow redirects
/// (`DefaultHTTPClient.make(redirects: .deliver)`).
public struct WebSearchClient: Sendable {
    /// The largest error body read.
    public static let maximumErrorBytes = 64 << 10

    private let base: AgentAPIBase
    private let http: any HTTPClient
    private let tokens: TokenProvider
    private let timeout: Duration

    /// A client of the server at `base`, sending through `http` with the token from `tokens`;
    /// an upstream model may take a while, hence the long default `timeout`.
    public init(base: AgentAPIBase, http: any HTTPClient, tokens: TokenProvider, timeout: Duration = .seconds(180)) {
        self.base = base
        self.http = http
        self.tokens = tokens
        self.timeout = timeout
    }

    /// Searches for `query`, which must be within ``WebSearchRequest/maxQueryBytes`` (checked
    /// by the caller before anything is sent).
    public func search(_ query: String) async throws(WebSearchError) -> WebSearchAnswer {
        precondition(query.utf8.count <= WebSearchRequest.maxQueryBytes, "the caller checks the query's size")
        let requester = SybilAPIRequester<WebSearchError>(
            base: base, http: http, tokens: tokens, timeout: timeout, maximumErrorBytes: Self.maximumErrorBytes,
            transport: { .transport($0) }, malformed: { .malformedAnswer($0) },
            refused: { status, body, _ in WebSearchError.from(status: status, body: body) })
        let call = SybilAPIRequester<WebSearchError>.Call(
            method: "POST", route: ["v1", "web-search"], contentType: "application/json",
            body: JSONWriter().bytes(from: WebSearchRequest(query: query).jsonValue))
        return try await requester.json(
            call, maximumBytes: WebSearchAnswer.maxBodyBytes, maximumDepth: 8, WebSearchAnswer.decode)
    }
}
