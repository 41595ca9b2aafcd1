import SybilCore

/// A server's error as JSON: `{"error": {"message": …, "type": …, "code": …}}`.
///
/// The shape of OpenAI-compatible error bodies and stream error frames, and of every Sybil
/// server error. The message is required; `code` may be a string or an integer on the wire
/// and is kept as text. Unknown members are ignored (OpenAI-compatible servers add fields).
public struct APIErrorBody: Sendable, Hashable {
    /// Human-readable message from the server.
    public var message: String
    /// Error family, e.g. `invalid_request_error`.
    public var type: String?
    /// Machine-readable code, e.g. `rate_limit_exceeded` or `503`.
    public var code: String?
    /// The request parameter the error refers to.
    public var param: String?
    /// What a client shows or waits for (`limitBytes`, `retryAfterSeconds`, `quota`, …).
    public var details: JSONObject?

    /// Creates an error body.
    public init(
        message: String, type: String? = nil, code: String? = nil, param: String? = nil, details: JSONObject? = nil
    ) {
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.details = details
    }

    /// Decodes `{"error": {...}}`.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> APIErrorBody {
        let outer = try JSONObjectReader(value, at: path)
        let errorPath = path.appending(key: "error")
        let inner = try JSONObjectReader(try outer.value("error"), at: errorPath)
        let message = try inner.string("message")
        let type = try inner.optionalString("type")
        let param = try inner.optionalString("param")
        var code: String?
        if let codeValue = inner.optionalValue("code") {
            switch codeValue {
            case .string(let text): code = text
            case .number(let number) where number.isIntegerLiteral: code = number.literal
            default:
                throw .contract(
                    errorPath.appending(key: "code"),
                    "expected a string or an integer, got \(codeValue.kindDescription)")
            }
        }
        var details: JSONObject?
        if let detailsValue = inner.optionalValue("details") {
            guard case .object(let object) = detailsValue else {
                throw .contract(
                    errorPath.appending(key: "details"), "expected an object, got \(detailsValue.kindDescription)")
            }
            details = object
        }
        return APIErrorBody(message: message, type: type, code: code, param: param, details: details)
    }

    /// The body as JSON, absent members omitted.
    public var jsonValue: JSONValue {
        var members = [JSONMember("message", .string(message))]
        if let type { members.append(JSONMember("type", .string(type))) }
        if let code { members.append(JSONMember("code", .string(code))) }
        if let param { members.append(JSONMember("param", .string(param))) }
        if let details { members.append(JSONMember("details", .object(details))) }
        return ["error": .object(JSONObject(members))]
    }
}
