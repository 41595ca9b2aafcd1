import SybilCore

/// A `POST /v1/chat/completions` body checked against docs/api/chats.md: every member the
/// OpenAI SDKs and `llm` send is type- and range-checked (a bad value is a 400 naming it),
/// unknown members are ignored, and `null` counts as absent.
struct ChatCompletionRequest: Sendable, Hashable {
    /// One message: its role and its text (text parts joined).
    struct Message: Sendable, Hashable {
        var role: String
        var content: String
    }

    /// The largest `max_tokens` / `max_completion_tokens`.
    static let maximumTokensCap: Int64 = 4096
    /// The most `stop` sequences.
    static let maximumStopSequences = 4
    /// The longest `stop` sequence and `user`, in UTF-8 bytes.
    static let maximumStopBytes = 256
    static let maximumUserBytes = 256
    /// The roles a message may have (`developer` is the newer name for `system`).
    static let roles: Set<String> = ["system", "developer", "user", "assistant"]

    var model: String
    var messages: [Message]
    var stream = false
    /// `stream_options.include_usage`.
    var includeUsage = false
    /// The smaller of `max_tokens` and `max_completion_tokens` when given.
    var maxTokens: Int?
    /// The stop sequences (none when absent).
    var stop: [String] = []
    /// Accepted and range-checked; the scripted agent is deterministic and ignores it.
    var temperature: Double?

    /// The last user message's text: what the scripted agent answers.
    var prompt: String { messages.last(where: { $0.role == "user" })?.content ?? "" }

    /// Checks `value`; `forwarding` lets any model name through (the upstream decides).
    static func validate(_ value: JSONValue, models: [String], forwarding: Bool) throws(APIError)
        -> ChatCompletionRequest
    {
        guard case .object(let object) = value else {
            throw .invalid("The body must be a JSON object.", param: "body")
        }
        func member(_ key: String) -> JSONValue? {
            guard let value = object[key], !value.isNull else { return nil }
            return value
        }
        guard case .string(let model)? = member("model"), !model.isEmpty else {
            throw .invalid("'model' is required and must be a non-empty string.", param: "model")
        }
        if !forwarding && !models.contains(model) {
            throw APIError(
                status: 404,
                message: "The model '\(model)' does not exist; this server offers \(models.joined(separator: ", ")).",
                code: "model_not_found", param: "model")
        }
        var request = ChatCompletionRequest(model: model, messages: try messages(member("messages")))
        if let value = member("stream") {
            guard case .bool(let flag) = value else { throw .invalid("'stream' must be a boolean.", param: "stream") }
            request.stream = flag
        }
        if let value = member("stream_options") {
            guard request.stream else {
                throw .invalid("'stream_options' is only allowed with \"stream\": true.", param: "stream_options")
            }
            guard case .object(let options) = value else {
                throw .invalid("'stream_options' must be an object.", param: "stream_options")
            }
            if let include = options["include_usage"], !include.isNull {
                guard case .bool(let flag) = include else {
                    throw .invalid(
                        "'stream_options.include_usage' must be a boolean.", param: "stream_options.include_usage")
                }
                request.includeUsage = flag
            }
        }
        for key in ["max_tokens", "max_completion_tokens"] {
            guard let value = member(key) else { continue }
            let limit = Int(try integer(value, key, in: 1...maximumTokensCap))
            request.maxTokens = min(request.maxTokens ?? limit, limit)
        }
        if let value = member("n") {
            guard case .number(let number) = value, number.isIntegerLiteral, number.int64Value == 1 else {
                throw .invalid("'n' must be 1: this server returns one choice.", param: "n")
            }
        }
        request.stop = try stop(member("stop"))
        request.temperature = try member("temperature").map { value throws(APIError) in
            try number(value, "temperature", in: 0...2)
        }
        _ = try member("top_p").map { value throws(APIError) in try number(value, "top_p", in: 0...1) }
        for key in ["presence_penalty", "frequency_penalty"] {
            _ = try member(key).map { value throws(APIError) in try number(value, key, in: -2...2) }
        }
        _ = try member("seed").map { value throws(APIError) in try integer(value, "seed", in: Int64.min...Int64.max) }
        if let value = member("user") {
            guard case .string(let user) = value, user.utf8.count <= maximumUserBytes else {
                throw .invalid("'user' must be a string of at most \(maximumUserBytes) bytes.", param: "user")
            }
        }
        return request
    }

    // MARK: Members

    private static func messages(_ value: JSONValue?) throws(APIError) -> [Message] {
        guard case .array(let items)? = value, !items.isEmpty else {
            throw .invalid("'messages' is required and must be a non-empty array.", param: "messages")
        }
        var messages: [Message] = []
        for (index, item) in items.enumerated() {
            let path = "messages[\(index)]"
            guard case .object(let message) = item else { throw .invalid("\(path) must be an object.", param: path) }
            guard case .string(let role)? = message["role"], roles.contains(role) else {
                throw .invalid(
                    "\(path).role must be one of system, developer, user, assistant.", param: "\(path).role")
            }
            messages.append(Message(role: role, content: try content(message["content"], at: "\(path).content")))
        }
        return messages
    }

    /// A string, or an array of `{"type": "text", "text": …}` parts joined without separator.
    private static func content(_ value: JSONValue?, at path: String) throws(APIError) -> String {
        switch value {
        case .string(let text)?: return text
        case .array(let parts)?:
            var text = ""
            for (index, part) in parts.enumerated() {
                let partPath = "\(path)[\(index)]"
                guard case .object(let object) = part else {
                    throw .invalid("\(partPath) must be an object.", param: partPath)
                }
                guard case .string(let type)? = object["type"] else {
                    throw .invalid("\(partPath).type must be a string.", param: "\(partPath).type")
                }
                if type == "image_url" {
                    // An image goes with the question (an ordinary chat's attachment); the
                    // scripted replies answer the text, so only its shape is checked.
                    guard case .object(let image)? = object["image_url"], case .string? = image["url"] else {
                        throw .invalid("\(partPath).image_url.url must be a string.", param: "\(partPath).image_url")
                    }
                    continue
                }
                guard type == "text" else {
                    throw .invalid(
                        "\(partPath).type '\(type)' is not supported: this server takes text and image_url parts.",
                        param: "\(partPath).type", code: "unsupported_content")
                }
                guard case .string(let piece)? = object["text"] else {
                    throw .invalid("\(partPath).text must be a string.", param: "\(partPath).text")
                }
                text += piece
            }
            return text
        default:
            throw .invalid("\(path) must be a string or an array of content parts.", param: path)
        }
    }

    private static func stop(_ value: JSONValue?) throws(APIError) -> [String] {
        let sequences: [JSONValue]
        switch value {
        case nil: return []
        case .string?: sequences = [value!]
        case .array(let items)?:
            guard items.count <= maximumStopSequences else {
                throw .invalid("'stop' takes at most \(maximumStopSequences) sequences.", param: "stop")
            }
            sequences = items
        default:
            throw .invalid("'stop' must be a string or an array of strings.", param: "stop")
        }
        return try sequences.map { item throws(APIError) in
            guard case .string(let text) = item, !text.isEmpty, text.utf8.count <= maximumStopBytes else {
                throw .invalid(
                    "Each 'stop' sequence must be a non-empty string of at most \(maximumStopBytes) bytes.",
                    param: "stop")
            }
            return text
        }
    }

    private static func integer(_ value: JSONValue, _ key: String, in range: ClosedRange<Int64>) throws(APIError)
        -> Int64
    {
        guard case .number(let number) = value, number.isIntegerLiteral, let integer = number.int64Value,
            range.contains(integer)
        else {
            throw .invalid("'\(key)' must be an integer in \(range.lowerBound)…\(range.upperBound).", param: key)
        }
        return integer
    }

    private static func number(_ value: JSONValue, _ key: String, in range: ClosedRange<Double>) throws(APIError)
        -> Double
    {
        guard case .number(let number) = value, range.contains(number.doubleValue) else {
            throw .invalid("'\(key)' must be a number in \(range.lowerBound)…\(range.upperBound).", param: key)
        }
        return number.doubleValue
    }
}
