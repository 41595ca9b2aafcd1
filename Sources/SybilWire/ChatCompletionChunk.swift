import SybilCore

/// One `chat.completion.chunk` of an OpenAI-compatible streaming response.
///
/// Known members are type-checked; unknown members are ignored, because compatible servers
/// add fields freely (`obfuscation`, `timings`, `system_fingerprint`, `service_tier`, `logprobs`,
/// …). `choices` may be empty: the usage chunk that ends a stream asked for with
/// `stream_options.include_usage` carries only ``usage``. A reasoning model's thinking arrives
/// as `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp) or `delta.reasoning` (Ollama,
/// OpenRouter); both land in ``Choice/reasoning``.
public struct ChatCompletionChunk: Sendable, Hashable {
    /// One choice's increment.
    public struct Choice: Sendable, Hashable {
        /// The choice's position.
        public var index: Int64
        /// The role, usually only in the first chunk.
        public var role: String?
        /// The next piece of content, if any.
        public var content: String?
        /// The next piece of the model's reasoning (`reasoning_content` or `reasoning`), if any.
        public var reasoning: String?
        /// Why the choice ended, in its last chunk.
        public var finishReason: FinishReason?

        /// Creates a choice increment.
        public init(
            index: Int64, role: String? = nil, content: String? = nil, reasoning: String? = nil,
            finishReason: FinishReason? = nil
        ) {
            self.index = index
            self.role = role
            self.content = content
            self.reasoning = reasoning
            self.finishReason = finishReason
        }
    }

    /// Why a choice stopped.
    public enum FinishReason: Sendable, Hashable {
        /// The model finished its answer.
        case stop
        /// The token limit cut the answer.
        case length
        /// A content filter cut the answer.
        case contentFilter
        /// The model called tools.
        case toolCalls
        /// A reason this client does not know, kept verbatim.
        case other(String)

        /// Maps the wire string.
        public init(_ text: String) {
            switch text {
            case "stop": self = .stop
            case "length": self = .length
            case "content_filter": self = .contentFilter
            case "tool_calls", "function_call": self = .toolCalls
            default: self = .other(text)
            }
        }

        /// The wire string.
        public var rawValue: String {
            switch self {
            case .stop: "stop"
            case .length: "length"
            case .contentFilter: "content_filter"
            case .toolCalls: "tool_calls"
            case .other(let text): text
            }
        }
    }

    /// The completion's id.
    public var id: String
    /// The model that produced it.
    public var model: String?
    /// When the completion was created, in seconds since 1970 (OpenAI sends it; optional here).
    public var created: Int64?
    /// The increments, one per choice (none in a usage chunk).
    public var choices: [Choice] {
        get {
            guard let firstChoice else { return [] }
            return otherChoices.isEmpty ? [firstChoice] : [firstChoice] + otherChoices
        }
        set {
            firstChoice = newValue.first
            otherChoices = Array(newValue.dropFirst())
        }
    }
    /// The completion's token counts, in the usage chunk (`null` or absent in the others).
    public var usage: ChatCompletionUsage?
    /// The first choice, kept without an array (nearly every chunk has exactly one); `nil` only
    /// when there are none, so that equal chunks compare and hash equal.
    private var firstChoice: Choice?
    /// The choices after the first (empty, so allocation-free, in nearly every chunk).
    private var otherChoices: [Choice]

    /// Creates a chunk.
    public init(
        id: String, model: String? = nil, created: Int64? = nil, choices: [Choice], usage: ChatCompletionUsage? = nil
    ) {
        self.id = id
        self.model = model
        self.created = created
        self.firstChoice = choices.first
        self.otherChoices = Array(choices.dropFirst())
        self.usage = usage
    }

    /// Creates a chunk from its first choice and the ones after it, without building an array
    /// for the usual single choice: the stream decoder's way. `otherChoices` must be empty when
    /// `firstChoice` is `nil`.
    init(
        id: String, model: String?, created: Int64?, firstChoice: Choice?, otherChoices: [Choice],
        usage: ChatCompletionUsage?
    ) {
        self.id = id
        self.model = model
        self.created = created
        self.firstChoice = firstChoice
        self.otherChoices = otherChoices
        self.usage = usage
    }

    /// The concatenated content of all choices (usually one).
    public var content: String {
        if otherChoices.isEmpty { return firstChoice?.content ?? "" }
        return choices.compactMap(\.content).joined()
    }

    /// The concatenated reasoning of all choices (usually one; empty for most models).
    public var reasoning: String {
        if otherChoices.isEmpty { return firstChoice?.reasoning ?? "" }
        return choices.compactMap(\.reasoning).joined()
    }

    /// The first finish reason among the choices, in a choice's last chunk.
    public var finishReason: FinishReason? {
        if otherChoices.isEmpty { return firstChoice?.finishReason }
        return choices.lazy.compactMap(\.finishReason).first
    }

    /// Decodes a chunk object.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatCompletionChunk {
        let reader = try JSONObjectReader(value, at: path)
        let id = try reader.string("id")
        let model = try reader.optionalString("model")
        let created = try reader.optionalValue("created").map { value throws(JSONError) in
            try JSONValueReader.integer(value, at: path.appending(key: "created"))
        }
        var choices: [Choice] = []
        for (position, element) in try reader.array("choices").enumerated() {
            choices.append(try decodeChoice(element, at: path.appending(key: "choices").appending(index: position)))
        }
        var usage: ChatCompletionUsage?
        if let value = reader.optionalValue("usage"), !value.isNull {
            usage = try ChatCompletionUsage.decode(value, at: path.appending(key: "usage"))
        }
        return ChatCompletionChunk(id: id, model: model, created: created, choices: choices, usage: usage)
    }

    private static func decodeChoice(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> Choice {
        let reader = try JSONObjectReader(value, at: path)
        var choice = Choice(index: try reader.integer("index", in: 0...Int64(Int32.max)))
        choice.finishReason = try reader.optionalString("finish_reason").map(FinishReason.init)
        guard let deltaValue = reader.optionalValue("delta") else { return choice }
        let delta = try JSONObjectReader(deltaValue, at: path.appending(key: "delta"))
        choice.role = try delta.optionalString("role")
        choice.content = try delta.optionalString("content")
        // Servers name it one way or the other; one that sends both sends the same text twice.
        choice.reasoning = try delta.optionalString("reasoning_content")
        if choice.reasoning == nil { choice.reasoning = try delta.optionalString("reasoning") }
        return choice
    }

    /// The chunk as JSON in OpenAI's shape.
    public var jsonValue: JSONValue {
        var members = [
            JSONMember("id", .string(id)),
            JSONMember("object", "chat.completion.chunk"),
        ]
        if let created { members.append(JSONMember("created", .number(JSONNumber(created)))) }
        if let model { members.append(JSONMember("model", .string(model))) }
        let choiceValues: [JSONValue] = choices.map { choice in
            var delta: [JSONMember] = []
            if let role = choice.role { delta.append(JSONMember("role", .string(role))) }
            if let content = choice.content { delta.append(JSONMember("content", .string(content))) }
            if let reasoning = choice.reasoning {
                delta.append(JSONMember("reasoning_content", .string(reasoning)))
            }
            return [
                "index": .number(JSONNumber(choice.index)),
                "delta": .object(JSONObject(delta)),
                "finish_reason": choice.finishReason.map { .string($0.rawValue) } ?? .null,
            ]
        }
        members.append(JSONMember("choices", .array(choiceValues)))
        if let usage { members.append(JSONMember("usage", usage.jsonValue)) }
        return .object(JSONObject(members))
    }
}
