import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// The one look `sybil profile add` takes at a base URL whose path is neither the root nor
/// `/v1` (`https://generativelanguage.googleapis.com/v1beta/openai/`), to learn where its
/// OpenAI routes are: `GET <base>/models` (the base URL is the whole prefix, as the OpenAI SDKs
/// take it) and `GET <base>/v1/models` (it is the server's root, as `sybil` takes one), with
/// the key. A model list (2xx) wins over a refused key (401, 403, or the 400 LiteLLM's proxy
/// sends for a key it cannot look up), which still shows the route is there; when both answer
/// alike `/v1` is kept, as before. When neither does, the error
/// names both URLs and what each answered. The answer is stored in the profile, so no request
/// guesses again.
public struct APIPrefixProbe: Sendable {
    /// How long each request may wait for its response's head.
    public static let timeout: Duration = .seconds(15)
    /// The most of a 400's body read to learn whether it refuses the key.
    public static let refusalBodyLimit = 4096
    /// How long a 400's body may take to arrive before it is given up on (and the 400 taken
    /// for what its status says).
    public static let refusalBodyTimeout: Duration = .seconds(2)

    private let http: any HTTPClient
    private let key: String?
    private let headers: HTTPHeaders
    private let clock: AnyClock

    /// A probe over `http` sending `key` as a bearer token when there is one, with `headers`;
    /// `clock` bounds the reading of a 400's body.
    public init(
        http: any HTTPClient, key: String?, headers: HTTPHeaders = HTTPHeaders(),
        clock: AnyClock = AnyClock(ContinuousClock())
    ) {
        self.http = http
        self.key = key
        self.headers = headers
        self.clock = clock
    }

    /// What one URL answered.
    public struct Answer: Sendable, Hashable {
        /// The URL asked.
        public var url: URL
        /// Its status, `nil` when it could not be asked.
        public var status: Int?
        /// What went wrong when it could not be asked.
        public var failure: String?
        /// The server's error, when its answer was a 400 whose body was read.
        public var body: APIErrorBody?

        /// How far it shows the route is there: 2 a model list, 1 a refused key, 0 nothing.
        var weight: Int {
            guard let status else { return 0 }
            if (200..<300).contains(status) { return 2 }
            return status == 403 || ChatStreamError.refusesKey(status: status, body: body) ? 1 : 0
        }

        /// `HTTP 404`, or the failure; a key refused with a 400 says so, in the server's words.
        public var summary: String {
            guard let status else { return failure ?? "no answer" }
            guard status == 400, ChatStreamError.refusesKey(status: status, body: body) else { return "HTTP \(status)" }
            let message = ChatStreamError.serverMessage(body).map { ": \($0)" } ?? ""
            let note = ChatStreamError.keyRefusalNote(body).map { " (\($0))" } ?? ""
            return "HTTP \(status), the key was refused\(message)\(note)"
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
            let status = response.head.status
            guard status == 400 else { return Answer(url: url, status: status) }
            return Answer(url: url, status: status, body: await refusal(in: response))
        } catch {
            return Answer(url: url, failure: String(describing: error))
        }
    }
}

extension APIPrefixProbe {
    /// The error in a 400's body, read only so far (``refusalBodyLimit`` bytes, for
    /// ``refusalBodyTimeout``) that a server trickling it cannot hold the command: LiteLLM's
    /// proxy refuses a key it cannot look up with a 400, which only the body tells apart.
    fileprivate func refusal(in response: HTTPStreamingResponse) async -> APIErrorBody? {
        let clock = clock
        let bytes: [UInt8]? = await withTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { try? await response.collect(limit: Self.refusalBodyLimit + 1) }
            group.addTask {
                try? await clock.sleep(for: Self.refusalBodyTimeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()  // cancelling the read cancels the request
            return first
        }
        guard let bytes, bytes.count <= Self.refusalBodyLimit else { return nil }
        return (try? JSONReader().parse(bytes)).flatMap(APIErrorBody.readLeniently)
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
