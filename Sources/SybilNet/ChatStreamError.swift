import SybilHTTP
import SybilWire

/// How a streamed chat request failed (SPEC §5.2). Every case keeps what the server said.
public enum ChatStreamError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HTTP 400: the request broke a rule.
    case badRequest(APIErrorBody?)
    /// HTTP 401: the token is missing, wrong or expired.
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
            guard let message = body?.message, !message.isEmpty else { return "." }
            return ": " + message + (message.last.map { ".!?".contains($0) } == true ? "" : ".")
        }
        switch self {
        case .badRequest(let body): return "The request was not accepted (400)\(server(body))"
        case .unauthorized(let body): return "Signing in is needed again (401)\(server(body))"
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

    /// The server's `Retry-After`, if it gave one.
    public var retryAfter: Duration? {
        switch self {
        case .serverError(_, _, let retryAfter), .unexpectedStatus(_, _, let retryAfter): retryAfter
        default: nil
        }
    }

    /// Maps a non-streaming answer to its error: 400, 401, 404, 5xx and the rest stay distinct.
    public static func forStatus(_ status: Int, body: APIErrorBody?, retryAfter: Duration?) -> ChatStreamError {
        switch status {
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
