import SybilCore
import SybilStore
import SybilWire

/// Asks the server's web-search route and saves the answer to history as a web search (query,
/// answer, sources): what `sybil ask --web` does, for every front end.
public struct WebSearchAsker: Sendable {
    /// What asking came to.
    public enum Outcome: Sendable, Hashable {
        /// Answered and saved.
        case saved(WebSearchResult)
        /// Answered, but saving failed (with why).
        case notSaved(WebSearchResult, reason: String)
        /// The server did not answer it.
        case failed(WebSearchError)
    }

    private let client: WebSearchClient
    private let store: any ChatHistoryStore
    private let ids: any IDGenerator
    private let now: @Sendable () -> Int64

    /// An asker sending through `client`, saving into `store` with ids from `ids` and the time
    /// from `now` (milliseconds since 1970).
    public init(
        client: WebSearchClient, store: any ChatHistoryStore, ids: any IDGenerator,
        now: @escaping @Sendable () -> Int64
    ) {
        self.client = client
        self.store = store
        self.ids = ids
        self.now = now
    }

    /// Asks `query` (within ``WebSearchRequest/maxQueryBytes``, else it fails as refused
    /// without sending) and saves the answer.
    public func ask(_ query: String) async -> Outcome {
        guard query.utf8.count <= WebSearchRequest.maxQueryBytes else {
            return .failed(
                .rejected(
                    status: 400,
                    error: APIErrorBody(
                        message: "query: at most \(WebSearchRequest.maxQueryBytes) bytes",
                        type: "invalid_request_error", param: "query")))
        }
        let answer: WebSearchAnswer
        do {
            answer = try await client.search(query)
        } catch {
            return .failed(error)
        }
        let search = SavedWebSearch(
            id: ids.makeID(), query: query, answer: answer.answer, sources: answer.sources, createdAt: now())
        do {
            try await store.saveWebSearch(search)
            return .saved(WebSearchResult(search))
        } catch {
            return .notSaved(WebSearchResult(search), reason: "\(error)")
        }
    }
}
