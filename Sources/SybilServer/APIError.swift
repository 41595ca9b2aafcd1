import SybilCore
import SybilHTTP
import SybilWire

/// An error answer in the shape every surface shares (docs/api/README.md): status, message,
/// `type`, `code`, optional `param` and `details`, and `Retry-After` for 429 and 503. The body
/// is SybilWire's ``APIErrorBody`` (the contract clients decode), encoded by it alone: this
/// type adds the status, the defaults and the header.
public struct APIError: Error, Sendable, Hashable {
    /// The HTTP status.
    public var status: Int
    /// One sentence a person can act on.
    public var message: String
    /// OpenAI's error class, e.g. `invalid_request_error`.
    public var type: String
    /// The machine-readable code, e.g. `invalid_parameter`.
    public var code: String
    /// The request member at fault, when there is one.
    public var param: String?
    /// Machine-readable facts (limits, quota, retry time).
    public var details: JSONObject?
    /// Seconds for the `Retry-After` header.
    public var retryAfterSeconds: Int?

    /// Creates an error; `type` and `code` default by status.
    public init(
        status: Int, message: String, type: String? = nil, code: String? = nil, param: String? = nil,
        details: JSONObject? = nil, retryAfterSeconds: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.type = type ?? Self.defaultType(status)
        self.code = code ?? Self.defaultCode(status)
        self.param = param
        self.details = details
        self.retryAfterSeconds = retryAfterSeconds ?? ((status == 503 || status == 429) ? 1 : nil)
    }

    /// Whole seconds for `Retry-After` after waiting `wait`, rounded up (at least 1).
    public static func retryAfterSeconds(for wait: Duration) -> Int {
        let (seconds, attoseconds) = wait.components
        return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    /// 400 naming the member at fault.
    public static func invalid(_ message: String, param: String?, code: String = "invalid_parameter") -> APIError {
        APIError(status: 400, message: message, code: code, param: param)
    }

    /// 404 for something unknown.
    public static func notFound(_ message: String) -> APIError {
        APIError(status: 404, message: message)
    }

    /// The 500 for a failure inside the server (a store that cannot read or write, a bug):
    /// generic on purpose, since the cause, with its SQL, paths and internals, goes to the
    /// server's log and never to a client.
    public static let internalFailure = APIError(
        status: 500, message: "The server could not complete this request; try again later.")

    /// The body as the wire contract has it.
    public var wireBody: APIErrorBody {
        APIErrorBody(message: message, type: type, code: code, param: param, details: details)
    }

    /// The error object (`{"error": {…}}`), encoded by ``APIErrorBody``.
    public var body: JSONValue { wireBody.jsonValue }

    /// The response carrying this error.
    public var response: HTTPServerResponse {
        var headers = HTTPHeaders()
        if let retryAfterSeconds { headers.set("Retry-After", String(retryAfterSeconds)) }
        return .json(body, status: status, headers: headers)
    }

    private static func defaultType(_ status: Int) -> String {
        switch status {
        case 401: "authentication_error"
        case 429: "rate_limit_error"
        case 507: "insufficient_storage"
        case 500...: "server_error"
        default: "invalid_request_error"
        }
    }

    private static func defaultCode(_ status: Int) -> String {
        switch status {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 408: "request_timeout"
        case 409: "conflict"
        case 413: "too_large"
        case 429: "rate_limited"
        case 431: "headers_too_large"
        case 501: "not_implemented"
        case 503: "unavailable"
        case 505: "http_version_not_supported"
        case 507: "quota_exceeded"
        default: "server_error"
        }
    }
}
