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

    /// The error in a body any OpenAI-compatible server sends with a failed status, or `nil`
    /// when it names none. Besides ``decode(_:at:)``'s shape it reads the ones other servers
    /// use: `{"error": "text"}` (Hugging Face TGI, Ollama's own routes), a top-level
    /// `{"object": "error", "message": …}` (vLLM before 0.10, FastChat, SGLang), `{"detail":
    /// "text"}` and `{"detail": [{"msg": …}]}` (FastAPI), and `{"message": "text"}` (gateways).
    /// An `error` object whose other members have other types (Google's `details` array, a
    /// `status` name) still gives its `message`, and Gemini's OpenAI-compatible endpoint, which
    /// sends its error as the one element of an array (`[{"error": {…}}]`), is read too.
    public static func readLeniently(_ value: JSONValue) -> APIErrorBody? {
        if case .array(let elements) = value {
            // One level only: an array of arrays is not an error anyone sends.
            for element in elements.prefix(4) {
                guard case .object = element, let body = readLeniently(element) else { continue }
                return body
            }
            return nil
        }
        if let body = try? decode(value, at: .root) { return body }
        guard case .object(let object) = value else { return nil }
        func text(_ value: JSONValue?) -> String? {
            guard case .string(let text)? = value, !text.isEmpty else { return nil }
            return text
        }
        func code(_ value: JSONValue?) -> String? {
            if case .number(let number)? = value, number.isIntegerLiteral { return number.literal }
            return text(value)
        }
        if let message = text(object["error"]) {
            return APIErrorBody(message: message, type: text(object["error_type"]) ?? text(object["type"]))
        }
        if case .object(let inner)? = object["error"], let message = text(inner["message"]) {
            return APIErrorBody(
                message: message, type: text(inner["type"]), code: code(inner["code"]),
                param: text(inner["param"]))
        }
        if let message = text(object["message"]) {
            return APIErrorBody(message: message, type: text(object["type"]), code: code(object["code"]))
        }
        if let message = text(object["detail"]) { return APIErrorBody(message: message) }
        if case .array(let items)? = object["detail"] {
            let messages: [String] = items.compactMap { item in
                guard case .object(let entry) = item, let message = text(entry["msg"]) else { return nil }
                guard case .array(let location)? = entry["loc"] else { return message }
                let names = location.compactMap { part -> String? in
                    switch part {
                    case .string(let name): name
                    case .number(let number): number.literal
                    default: nil
                    }
                }
                return names.isEmpty ? message : names.joined(separator: ".") + ": " + message
            }
            if !messages.isEmpty { return APIErrorBody(message: messages.joined(separator: "; ")) }
        }
        return nil
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
