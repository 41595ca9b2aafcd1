import SybilCore

/// One increment of a tool call in a streamed chat reply (`choices[].delta.tool_calls[]`):
/// the first for a call carries its `id` and `function.name`, the ones after it pieces of
/// `function.arguments`, all under the call's `index`. Sybil never runs tools; the increments
/// are read only to show what the model asked for (``ChatToolCall``).
///
/// Reading is lenient: the member is display information, so an element of the wrong shape is
/// skipped and a member of the wrong type read as absent, never an error (the tree decoder and
/// the byte scanner read it through the same ``list(from:)``, so they agree).
public struct ChatToolCallDelta: Sendable, Hashable {
    /// The most increments read from one `tool_calls` array.
    public static let maximumPerChunk = 64

    /// The call's position among the reply's calls.
    public var index: Int
    /// The call's id, in its first increment.
    public var id: String?
    /// The function's name, in its first increment (some servers send it in pieces).
    public var name: String?
    /// The next piece of the function's arguments (JSON text as the model writes it).
    public var arguments: String?

    /// Creates an increment.
    public init(index: Int, id: String? = nil, name: String? = nil, arguments: String? = nil) {
        self.index = index
        self.id = id
        self.name = name
        self.arguments = arguments
    }

    /// The increments of a `tool_calls` value: an array of objects (anything else gives none).
    /// An element without a usable `index` takes its position in the array.
    public static func list(from value: JSONValue) -> [ChatToolCallDelta] {
        guard case .array(let elements) = value else { return [] }
        var result: [ChatToolCallDelta] = []
        for (position, element) in elements.prefix(maximumPerChunk).enumerated() {
            guard case .object(let object) = element else { continue }
            var delta = ChatToolCallDelta(index: position)
            if case .number(let number)? = object["index"], let index = number.int64Value,
                (0...Int64(maximumPerChunk * 16)).contains(index)
            {
                delta.index = Int(index)
            }
            if case .string(let id)? = object["id"] { delta.id = id }
            if case .object(let function)? = object["function"] {
                if case .string(let name)? = function["name"] { delta.name = name }
                if case .string(let arguments)? = function["arguments"] { delta.arguments = arguments }
            }
            result.append(delta)
        }
        return result
    }

    /// The increments of the `tool_calls` value written in `bytes` (already checked to be
    /// well-formed JSON by the caller, an unpaired surrogate escape allowed and read as U+FFFD
    /// as the chunk decoders read it); none when it does not parse.
    public static func list(fromJSON bytes: some Collection<UInt8>) -> [ChatToolCallDelta] {
        let parsed: JSONValue?
        if let replaced = UnpairedSurrogateEscapes.replaced(in: bytes) {
            parsed = try? JSONReader().parse(replaced)
        } else {
            parsed = try? JSONReader().parse(bytes)
        }
        guard let value = parsed else { return [] }
        return list(from: value)
    }

    /// The increment as OpenAI writes it.
    public var jsonValue: JSONValue {
        var members = [JSONMember("index", .number(JSONNumber(Int64(index))))]
        if let id { members.append(JSONMember("id", .string(id))) }
        var function: [JSONMember] = []
        if let name { function.append(JSONMember("name", .string(name))) }
        if let arguments { function.append(JSONMember("arguments", .string(arguments))) }
        if id != nil || name != nil { members.append(JSONMember("type", "function")) }
        members.append(JSONMember("function", .object(JSONObject(function))))
        return .object(JSONObject(members))
    }
}
