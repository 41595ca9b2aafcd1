import SybilHTTP
import SybilWire

/// How a streamed chat request failed (SPEC §5.2). Every case keeps what the server said.
public enum ChatStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HTTP 400: the request broke a rule.
    case badRequest(APIErrorBody?)
    /// HTTP 401 (or a 400 that says so, see ``refusesKey(status:body:)``): the token is missing,
    /// wrong or expired.
    case unauthorized(APIErrorBody?)
    /// HTTP 404: unknown route or model.
    case notFound(APIErrorBody?)
    /// HTTP 5xx (a cold start answers 503), with `Retry-After` when given.
    case serverError(status: Int, body: APIErrorBody?, retryAfter: Duration?)
    /// Any other status (429 and friends), with `Retry-After` when given.
    case unexpectedStatus(status: Int, body: APIErrorBody?, retryAfter: Duration?)
    /// HTTP 200 but not `text/event-stream`.
    case wrongContentType(String?)
    /// An `error` frame inside the stream.
    case errorFrame(APIErrorBody)
    /// The stream ended without `data: [DONE]`: the reply is incomplete.
    case interrupted
    /// No bytes arrived for this long (a stalled stream), or no response head within the
    /// request's timeout.
    case stalled(after: Duration)
    /// A chunk was not valid chat-completion JSON.
    case malformedChunk(String)
    /// The connection failed.
    case transport(String)
    /// The server redirected the request, which is never followed (the question would go to
    /// an address the user did not choose).
    case redirected(HTTPRedirectRefused)
    /// The stream went past a limit (a line or an event too large): it was refused.
    case tooLarge(String)

    /// One sentence for the user.
    public var description: String {
        // The server's own message usually ends its sentence already: one full stop, not two.
        func server(_ body: APIErrorBody?) -> String {
            guard let message = Self.serverMessage(body) else { return "." }
            return ": " + message + (message.last.map { ".!?".contains($0) } == true ? "" : ".")
        }
        switch self {
        case .badRequest(let body): return "The request was not accepted (400)\(server(body))"
        case .unauthorized(let body):
            let status = body?.type == Self.keyLookupUnavailableType ? "400" : "401"
            return "Signing in is needed again (\(status))\(server(body))"
        case .notFound(let body): return "The chat service was not found (404)\(server(body))"
        case .serverError(let status, let body, _): return "The chat service failed (\(status))\(server(body))"
        case .unexpectedStatus(let status, let body, _): return "The chat service answered \(status)\(server(body))"
        case .wrongContentType(let type): return "The chat service did not stream (content type \(type ?? "none"))."
        case .errorFrame(let body): return "The reply stopped with an error\(server(body))"
        case .interrupted: return "The reply was cut off before it finished."
        case .stalled(let after): return "The reply stalled (nothing for \(after))."
        case .malformedChunk(let reason): return "The reply could not be read: \(reason)"
        case .transport(let reason): return "The connection failed: \(reason)"
        case .redirected(let refusal): return "The chat service could not be used: \(refusal)."
        case .tooLarge(let reason): return "The reply was refused: \(reason)."
        }
    }

    /// The server's message in `body` as one line, or `nil` when it gave none: the lines of a
    /// message written in paragraphs (LiteLLM adds "LiteLLM: model group … failed with the error
    /// above." after a blank line) are joined with a space, so the sentence it goes into, and
    /// the advice after it, stay one line on standard error and in the history.
    public static func serverMessage(_ body: APIErrorBody?) -> String? {
        guard let message = body?.message else { return nil }
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        let joined = lines.filter { !$0.isEmpty }.joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }

    /// The server's `Retry-After`, if it gave one.
    public var retryAfter: Duration? {
        switch self {
        case .serverError(_, _, let retryAfter), .unexpectedStatus(_, _, let retryAfter): retryAfter
        default: nil
        }
    }

    /// The error `type` LiteLLM's proxy sends with a 400 when it was started with a master key
    /// but no database and is sent any other key: it has nowhere to look the key up, so the key
    /// is refused (`{"error": {"message": "No connected db.", "type": "no_db_connection"}}`).
    /// The same type with a 5xx is its database being down, which is not about the key.
    public static let keyLookupUnavailableType = "no_db_connection"

    /// Whether a failed answer with `status` and `body` refuses the key: a 401, or LiteLLM's 400
    /// for a key it cannot look up (``keyLookupUnavailableType``). A 403 is left to the caller:
    /// some servers send it for a key without access, others for a route they do not offer.
    public static func refusesKey(status: Int, body: APIErrorBody?) -> Bool {
        status == 401 || (status == 400 && body?.type == keyLookupUnavailableType)
    }

    /// What a person needs to know besides the server's words when it refused the key with
    /// `body`, or `nil`: LiteLLM's "No connected db." alone does not say the key is the problem.
    public static func keyRefusalNote(_ body: APIErrorBody?) -> String? {
        guard body?.type == keyLookupUnavailableType else { return nil }
        return "the proxy has no database to look keys up in, so it takes only its master key"
    }

    /// Maps a non-streaming answer to its error: 400, 401, 404, 5xx and the rest stay distinct,
    /// except that a 400 refusing the key (``refusesKey(status:body:)``) is ``unauthorized(_:)``.
    public static func forStatus(_ status: Int, body: APIErrorBody?, retryAfter: Duration?) -> ChatStreamError {
        switch status {
        case 400 where refusesKey(status: status, body: body): .unauthorized(body)
        case 400: .badRequest(body)
        case 401: .unauthorized(body)
        case 404: .notFound(body)
        case 500...599: .serverError(status: status, body: body, retryAfter: retryAfter)
        default: .unexpectedStatus(status: status, body: body, retryAfter: retryAfter)
        }
    }

    /// `Retry-After` in seconds (an HTTP date is not used: clocks disagree).
    public static func parseRetryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }
}
