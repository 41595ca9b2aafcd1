import Foundation
import SybilCore
import SybilHTTP
import SybilNet
import SybilWire

/// `GET /v1/models` of an OpenAI-compatible server (or `models` under its ``APIPrefix``): the
/// models it offers, in its order.
public struct ModelListClient: Sendable {
    /// The largest answer read.
    public static let maximumAnswerBytes = 4 << 20

    private let baseURL: URL
    private let http: any HTTPClient
    private let key: String?
    private let headers: HTTPHeaders
    private let apiPrefix: APIPrefix

    /// A client for the server at `baseURL`, sending `key` as a bearer token when there is one;
    /// the list is `models` under `apiPrefix` (`/v1/models` by default).
    public init(
        baseURL: URL, http: any HTTPClient, key: String?, headers: HTTPHeaders = HTTPHeaders(),
        apiPrefix: APIPrefix = .v1
    ) {
        self.baseURL = baseURL
        self.http = http
        self.key = key
        self.headers = headers
        self.apiPrefix = apiPrefix
    }

    /// The server's models.
    public func models() async throws(ModelListError) -> ModelList {
        var headers = headers
        if let key { headers.set("Authorization", "Bearer \(key)") }
        headers.set("Accept", "application/json")
        let request = HTTPRequest(
            url: apiPrefix.url(base: baseURL, route: "models"), headers: headers, timeout: .seconds(30))
        let bytes: [UInt8]
        let status: Int
        do {
            let response = try await http.send(request)
            status = response.head.status
            bytes = try await response.collect(limit: Self.maximumAnswerBytes + 1)
        } catch {
            throw .unreachable(String(describing: error))
        }
        guard bytes.count <= Self.maximumAnswerBytes else {
            throw .malformed("the answer is larger than \(Self.maximumAnswerBytes) bytes")
        }
        guard status == 200 else {
            let body = (try? JSONReader().parse(bytes)).flatMap(APIErrorBody.readLeniently)
            let message = body.map { body in
                TerminalText.oneLine(
                    body.message + (ChatStreamError.keyRefusalNote(body).map { " (\($0))" } ?? ""))
            }
            if status == 403 || ChatStreamError.refusesKey(status: status, body: body) {
                throw .keyRefused(status: status, message: message)
            }
            throw .refused(status: status, message: message)
        }
        do {
            return try ModelList.decode(try JSONReader().parse(bytes))
        } catch {
            throw .malformed(error.description)
        }
    }
}

/// Why the model list could not be had.
public enum ModelListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached.
    case unreachable(String)
    /// It refused the key: a 401 or 403, or a 400 that says so (LiteLLM without a database,
    /// see ``ChatStreamError/refusesKey(status:body:)``), with its own message when it gave one.
    case keyRefused(status: Int, message: String?)
    /// It answered with another error status (and its own message, when it gave one).
    case refused(status: Int, message: String?)
    /// The answer is not a model list.
    case malformed(String)

    /// One sentence.
    public var description: String {
        switch self {
        case .unreachable(let reason): "the server could not be reached: \(reason)"
        case .keyRefused(let status, let message):
            "the server refused the key (\(status))" + (message.map { ": \($0)" } ?? "")
        case .refused(let status, let message):
            "the server answered \(status) to GET /v1/models" + (message.map { ": \($0)" } ?? "")
        case .malformed(let reason): "the model list could not be read: \(reason)"
        }
    }
}
