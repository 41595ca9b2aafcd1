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
        /// Increments of the tool calls the model makes (`delta.tool_calls`), read leniently.
        public var toolCalls: [ChatToolCallDelta]

        /// Creates a choice increment.
        public init(
            index: Int64, role: String? = nil, content: String? = nil, reasoning: String? = nil,
            finishReason: FinishReason? = nil, toolCalls: [ChatToolCallDelta] = []
        ) {
            self.index = index
            self.role = role
            self.content = content
            self.reasoning = reasoning
            self.finishReason = finishReason
            self.toolCalls = toolCalls
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

    /// The completion's id; empty when the chunk has none (Gemini's OpenAI-compatible
    /// endpoint sent none).
    public var id: String {
        get { storage.id }
        set { storage = Storage(id: newValue, firstChoice: firstChoice, extras: extras) }
    }
    /// The model that produced it.
    public var model: String? {
        get { extras?.model }
        set { extras = Extras.make(model: newValue, created: created, usage: usage, otherChoices: otherChoices) }
    }
    /// When the completion was created, in seconds since 1970 (OpenAI sends it; optional here;
    /// a fraction some servers add is dropped).
    public var created: Int64? {
        get { extras?.created }
        set { extras = Extras.make(model: model, created: newValue, usage: usage, otherChoices: otherChoices) }
    }
    /// The increments, one per choice (none in a usage chunk).
    public var choices: [Choice] {
        get {
            guard let firstChoice else { return [] }
            return otherChoices.isEmpty ? [firstChoice] : [firstChoice] + otherChoices
        }
        set {
            storage = Storage(
                id: id, firstChoice: newValue.first,
                extras: Extras.make(
                    model: model, created: created, usage: usage, otherChoices: Array(newValue.dropFirst())))
        }
    }
    /// The completion's token counts, in the usage chunk (`null` or absent in the others).
    public var usage: ChatCompletionUsage? {
        get { extras?.usage }
        set { extras = Extras.make(model: model, created: created, usage: newValue, otherChoices: otherChoices) }
    }
    /// Every member, in one immutable box, so that a chunk is one reference: handing it on
    /// (out of the decoder, into an event, a delivery, a batch, to the consumer) retains and
    /// releases that reference instead of the id, every string of the choice and its tool
    /// calls one by one (those copies were about a fifth of the stream decoder's
    /// instructions). A setter puts a new box in place, so values stay independent.
    private var storage: Storage

    /// The first choice, kept without an array (nearly every chunk has exactly one); `nil` only
    /// when there are none, so that equal chunks compare and hash equal.
    private var firstChoice: Choice? {
        get { storage.firstChoice }
        set { storage = Storage(id: id, firstChoice: newValue, extras: extras) }
    }
    /// The other members, out of line; the decoder gives every chunk of a stream whose model
    /// and creation time repeat the same box.
    private var extras: Extras? {
        get { storage.extras }
        set { storage = Storage(id: id, firstChoice: firstChoice, extras: newValue) }
    }

    /// The choices after the first (empty in nearly every chunk).
    private var otherChoices: [Choice] { extras?.otherChoices ?? [] }
    /// Whether there are choices after the first, without copying them out.
    private var hasOtherChoices: Bool { !(storage.extras?.otherChoices.isEmpty ?? true) }

    /// A chunk's members; immutable, so shared freely. The first choice's members are kept
    /// one by one rather than as a `Choice`: the decoder builds them in place (a `Choice`
    /// built outside and moved in was copied and destroyed on the way), and ``content``,
    /// ``reasoning``, ``finishReason`` and ``toolCalls`` read one member without copying the
    /// choice out.
    private final class Storage: Sendable {
        let id: String
        let index: Int64
        let role: String?
        let content: String?
        let reasoning: String?
        /// Whether there is a first choice (the members above and below are its, or empty),
        /// and its finish reason: one member, where a `Bool` of its own would take 8 bytes with
        /// its padding. The box is 120 bytes, the most glibc's `malloc` keeps in its fast bins
        /// by default: the consumer frees chunks on another thread than the decoder made them,
        /// and a fast-bin free takes no lock, where a larger one took the arena lock the
        /// decoder's `malloc` holds (`SSETransportBenchmark`: a futex call per chunk).
        let end: FirstChoiceEnd
        let toolCalls: [ChatToolCallDelta]
        let extras: Extras?

        init(id: String, firstChoice: Choice?, extras: Extras?) {
            self.id = id
            index = firstChoice?.index ?? 0
            role = firstChoice?.role
            content = firstChoice?.content
            reasoning = firstChoice?.reasoning
            end = firstChoice.map { FirstChoiceEnd($0.finishReason) } ?? .absent
            toolCalls = firstChoice?.toolCalls ?? []
            self.extras = extras
        }

        init(
            id: String, index: Int64, role: String?, content: String?, finishReason: FinishReason?, extras: Extras?
        ) {
            self.id = id
            self.index = index
            self.role = role
            self.content = content
            reasoning = nil
            end = FirstChoiceEnd(finishReason)
            toolCalls = []
            self.extras = extras
        }

        var finishReason: FinishReason? {
            guard case .finished(let reason) = end else { return nil }
            return reason
        }

        var firstChoice: Choice? {
            if case .absent = end { return nil }
            return Choice(
                index: index, role: role, content: content, reasoning: reasoning, finishReason: finishReason,
                toolCalls: toolCalls)
        }
    }

    /// Whether a chunk has a first choice and how that choice ended (``Storage/end``).
    private enum FirstChoiceEnd: Sendable {
        /// The chunk has no choices.
        case absent
        /// The first choice has no finish reason.
        case open
        /// The first choice ended for this reason.
        case finished(FinishReason)

        init(_ reason: FinishReason?) {
            self = reason.map { .finished($0) } ?? .open
        }
    }

    /// The chunk's box, for a test of its size.
    var storageObject: AnyObject { storage }

    /// Whether the two chunks have equal members.
    public static func == (left: ChatCompletionChunk, right: ChatCompletionChunk) -> Bool {
        left.storage === right.storage
            || (left.id == right.id && left.firstChoice == right.firstChoice && left.extras == right.extras)
    }

    /// Hashes the members ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(firstChoice)
        hasher.combine(extras)
    }

    /// A chunk's members other than its id and first choice, never all absent
    /// (``make(model:created:usage:otherChoices:)`` answers `nil` then), so that equal chunks
    /// compare and hash equal. Immutable, so shared freely.
    final class Extras: Sendable, Hashable {
        let model: String?
        let created: Int64?
        let usage: ChatCompletionUsage?
        let otherChoices: [Choice]

        private init(model: String?, created: Int64?, usage: ChatCompletionUsage?, otherChoices: [Choice]) {
            self.model = model
            self.created = created
            self.usage = usage
            self.otherChoices = otherChoices
        }

        /// A box of these members, or `nil` when all are absent.
        static func make(model: String?, created: Int64?, usage: ChatCompletionUsage?, otherChoices: [Choice])
            -> Extras?
        {
            if model == nil, created == nil, usage == nil, otherChoices.isEmpty { return nil }
            return Extras(model: model, created: created, usage: usage, otherChoices: otherChoices)
        }

        /// Whether this box holds exactly these members and no further choices.
        func holds(model: String?, created: Int64?, usage: ChatCompletionUsage?) -> Bool {
            otherChoices.isEmpty && self.model == model && self.created == created && self.usage == usage
        }

        static func == (left: Extras, right: Extras) -> Bool {
            left === right
                || (left.model == right.model && left.created == right.created && left.usage == right.usage
                    && left.otherChoices == right.otherChoices)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(model)
            hasher.combine(created)
            hasher.combine(usage)
            hasher.combine(otherChoices)
        }
    }

    /// Creates a chunk.
    public init(
        id: String, model: String? = nil, created: Int64? = nil, choices: [Choice], usage: ChatCompletionUsage? = nil
    ) {
        storage = Storage(
            id: id, firstChoice: choices.first,
            extras: Extras.make(model: model, created: created, usage: usage, otherChoices: Array(choices.dropFirst())))
    }

    /// Creates a chunk from its first choice and its other members, without building an array
    /// for the usual single choice: the stream decoder's way. `extras` must hold no choices
    /// when `firstChoice` is `nil`.
    init(id: String, firstChoice: Choice?, extras: Extras?) {
        storage = Storage(id: id, firstChoice: firstChoice, extras: extras)
    }

    /// Creates a chunk of one choice with these members, the choice built in place in the
    /// chunk's box: the stream decoder's way for the common chunk.
    init(
        id: String, index: Int64, role: String?, content: String?, finishReason: FinishReason?, extras: Extras?
    ) {
        storage = Storage(
            id: id, index: index, role: role, content: content, finishReason: finishReason, extras: extras)
    }

    /// The whole seconds of a `created` written with a fraction or an exponent, as SambaNova,
    /// Parasail and some LiteLLM versions send it (`1744857525.254391`); `nil` when that is
    /// outside `Int64`. `literal` is a valid JSON number.
    static func wholeSeconds(_ literal: String) -> Int64? {
        guard let seconds = Double(literal)?.rounded(.down), seconds >= -0x1p63, seconds < 0x1p63 else { return nil }
        return Int64(seconds)
    }

    /// The concatenated content of all choices (usually one).
    public var content: String {
        if !hasOtherChoices { return storage.content ?? "" }
        return choices.compactMap(\.content).joined()
    }

    /// The concatenated reasoning of all choices (usually one; empty for most models).
    public var reasoning: String {
        if !hasOtherChoices { return storage.reasoning ?? "" }
        return choices.compactMap(\.reasoning).joined()
    }

    /// The first finish reason among the choices, in a choice's last chunk.
    public var finishReason: FinishReason? {
        if !hasOtherChoices { return storage.finishReason }
        return choices.lazy.compactMap(\.finishReason).first
    }

    /// The tool-call increments of all choices (usually one; empty for most chunks).
    public var toolCalls: [ChatToolCallDelta] {
        if !hasOtherChoices { return storage.toolCalls }
        return choices.flatMap(\.toolCalls)
    }

    /// Decodes a chunk object.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatCompletionChunk {
        try decode(value, at: path, increment: "delta")
    }

    /// Decodes a whole `chat.completion` object (the answer of a server that ignored
    /// `"stream": true`) as the one chunk of its reply: each choice's `message` is read as its
    /// `delta`, with the same rules and limits, and errors name `choices[n].message`. A tool
    /// call without `index` takes its position.
    public static func decodeCompletion(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatCompletionChunk
    {
        try decode(value, at: path, increment: "message")
    }

    /// Decodes a chunk object whose choices carry their text under `increment`.
    private static func decode(
        _ value: JSONValue, at path: JSONPath, increment: String
    ) throws(JSONError) -> ChatCompletionChunk {
        let reader = try JSONObjectReader(value, at: path)
        // Gemini's OpenAI-compatible endpoint left `id` out: an absent or `null` id is empty.
        let id = try reader.optionalString("id") ?? ""
        let model = try reader.optionalString("model")
        var created: Int64?
        if let value = reader.optionalValue("created") {
            if case .number(let number) = value, !number.isIntegerLiteral {
                created = wholeSeconds(number.literal)
            } else {
                created = try JSONValueReader.integer(value, at: path.appending(key: "created"))
            }
        }
        var choices: [Choice] = []
        for (position, element) in try reader.array("choices").enumerated() {
            choices.append(
                try decodeChoice(
                    element, position: position, at: path.appending(key: "choices").appending(index: position),
                    increment: increment))
        }
        var usage: ChatCompletionUsage?
        if let value = reader.optionalValue("usage"), !value.isNull {
            usage = try ChatCompletionUsage.decode(value, at: path.appending(key: "usage"))
        }
        return ChatCompletionChunk(id: id, model: model, created: created, choices: choices, usage: usage)
    }

    /// A choice without `index` (or with `null`) is the one at its `position`.
    private static func decodeChoice(
        _ value: JSONValue, position: Int, at path: JSONPath, increment: String
    ) throws(JSONError) -> Choice {
        let reader = try JSONObjectReader(value, at: path)
        var index = Int64(position)
        if reader.optionalValue("index") != nil { index = try reader.integer("index", in: 0...Int64(Int32.max)) }
        var choice = Choice(index: index)
        choice.finishReason = try reader.optionalString("finish_reason").map(FinishReason.init)
        guard let deltaValue = reader.optionalValue(increment) else { return choice }
        let delta = try JSONObjectReader(deltaValue, at: path.appending(key: increment))
        choice.role = try delta.optionalString("role")
        choice.content = try delta.optionalString("content")
        // Servers name it one way or the other; one that sends both sends the same text twice.
        choice.reasoning = try delta.optionalString("reasoning_content")
        if choice.reasoning == nil { choice.reasoning = try delta.optionalString("reasoning") }
        choice.toolCalls = delta.optionalValue("tool_calls").map(ChatToolCallDelta.list(from:)) ?? []
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
            if !choice.toolCalls.isEmpty {
                delta.append(JSONMember("tool_calls", .array(choice.toolCalls.map(\.jsonValue))))
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
