import SybilCore
import SybilHTTP
import SybilWire

/// The web-search surface (docs/api/web-search.md): `POST v1/web-search` with a
/// ``WebSearchRequest`` answers one ``WebSearchAnswer``. The scripted search answers unless
/// the server forwards to an upstream with a model named, which then writes the answer.
/// Nothing is stored on the server: the client saves the search in its own history.
final class WebSearchService: Sendable {
    private let scripted: ScriptedWebSearch
    private let upstream: WebSearchUpstream?

    init(options: SybilServerOptions, upstream http: (any HTTPClient)?) {
        scripted = ScriptedWebSearch(seed: options.seed)
        if let base = options.upstream, let model = options.upstreamModel, let http {
            upstream = WebSearchUpstream(base: base, model: model, key: options.upstreamKey, http: http)
        } else {
            upstream = nil
        }
    }

    /// `POST v1/web-search`: a body that is not a request is a 400 naming the member.
    func search(_ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let value = try RequestBody.json(request.body)
        let search: WebSearchRequest
        do {
            search = try WebSearchRequest.decode(value, at: .root)
        } catch {
            throw APIError.invalid(
                error.path.isRoot ? "The body \(error.message)." : "\(error.path): \(error.message).",
                param: error.path.isRoot ? "body" : error.path.description)
        }
        let answer = try await upstream?.answer(to: search.query) ?? scripted.answer(to: search.query)
        return .json(answer.jsonValue)
    }
}
