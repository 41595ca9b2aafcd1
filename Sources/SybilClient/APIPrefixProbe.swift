import Foundation
import SybilCore
import SybilHTTP
import SybilNet

/// The one look `sybil profile add` takes at a base URL whose path is neither the root nor
/// `/v1` (`https://generativelanguage.googleapis.com/v1beta/openai/`), to learn where its
/// OpenAI routes are: `GET <base>/models` (the base URL is the whole prefix, as the OpenAI SDKs
/// take it) and `GET <base>/v1/models` (it is the server's root, as `sybil` takes one), with
/// the key. A model list (2xx) wins over a refused key (401, 403), which still shows the route
/// is there; when both answer alike `/v1` is kept, as before. When neither does, the error
/// names both URLs and what each answered. The answer is stored in the profile, so no request
/// guesses again.
public struct APIPrefixProbe: Sendable {
    /// How long each request may wait for its response's head.
    public static let timeout: Duration = .seconds(15)

    private let http: any HTTPClient
    private let key: String?
    private let headers: HTTPHeaders

    /// A probe over `http` sending `key` as a bearer token when there is one, with `headers`.
    public init(http: any HTTPClient, key: String?, headers: HTTPHeaders = HTTPHeaders()) {
        self.http = http
        self.key = key
        self.headers = headers
    }

    /// What one URL answered.
    public struct Answer: Sendable, Hashable {
        /// The URL asked.
        public var url: URL
        /// Its status, `nil` when it could not be asked.
        public var status: Int?
        /// What went wrong when it could not be asked.
        public var failure: String?

        /// How far it shows the route is there: 2 a model list, 1 a refused key, 0 nothing.
        var weight: Int {
            guard let status else { return 0 }
            if (200..<300).contains(status) { return 2 }
            return status == 401 || status == 403 ? 1 : 0
        }

        /// `HTTP 404`, or the failure.
        public var summary: String {
            status.map { "HTTP \($0)" } ?? (failure ?? "no answer")
        }
    }

    /// The prefix found and the answer that showed it.
    public struct Found: Sendable, Hashable {
        /// Where the routes are.
        public var prefix: APIPrefix
        /// The answer that showed it.
        public var answer: Answer
    }

    /// Asks `base` (kept as given, without a trailing `/`) both ways.
    public func probe(base: URL) async -> Result<Found, APIPrefixProbeError> {
        let base = ServerAddress.withoutTrailingSlash(base)
        let bare = await ask(APIPrefix.root.url(base: base, route: "models"))
        let v1 = await ask(APIPrefix.v1.url(base: base, route: "models"))
        if v1.weight > 0, v1.weight >= bare.weight { return .success(Found(prefix: .v1, answer: v1)) }
        if bare.weight > 0 { return .success(Found(prefix: .root, answer: bare)) }
        return .failure(APIPrefixProbeError(answers: [bare, v1]))
    }

    private func ask(_ url: URL) async -> Answer {
        var fields = headers
        if let key { fields.set("Authorization", "Bearer \(key)") }
        fields.set("Accept", "application/json")
        do {
            // The status is the answer: the body is not read (a server trickling it could hold
            // the command as long as it liked), and dropping the response closes the exchange.
            let response = try await http.send(HTTPRequest(url: url, headers: fields, timeout: Self.timeout))
            return Answer(url: url, status: response.head.status)
        } catch {
            return Answer(url: url, failure: String(describing: error))
        }
    }
}

/// Neither probe of ``APIPrefixProbe`` found the model list: both URLs and what they answered.
public struct APIPrefixProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `<base>/models`, then `<base>/v1/models`.
    public var answers: [APIPrefixProbe.Answer]

    /// One sentence naming both URLs.
    public var description: String {
        "neither "
            + answers.map { "\($0.url.absoluteString) (\(TerminalText.oneLine($0.summary)))" }
            .joined(separator: " nor ")
            + " lists models; check the base URL, or say where the routes are with --api-prefix / (under the"
            + " base URL, as the OpenAI SDKs take it) or --api-prefix /v1"
    }
}
