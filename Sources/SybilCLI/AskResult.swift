import SybilCore
import SybilNet
import SybilWire

/// What `sybil ask --json` writes on standard output when the reply ends: one object, the
/// shape documented in `docs/cli-json.md` (`## sybil ask --json`). Every member is always
/// present; the ones that may be unknown are `null`.
struct AskResult: Equatable {
    /// The conversation's id (`null` when nothing was saved or created).
    var conversationId: String?
    /// The model asked.
    var model: String
    /// The reply's text as the model sent it (Markdown, unrendered).
    var text: String
    /// The model's reasoning, `null` when it sent none.
    var reasoning: String?
    /// The wire finish reason (`stop`, `length`, …), `null` when the stream ended without one.
    var finishReason: String?
    /// The token counts, `null` when the server sent none.
    var usage: ChatDelta.Usage?
    /// The tool calls the model made (never run), in order; empty when it made none.
    var toolCalls: [ChatToolCall] = []

    /// The members, in the order they are written.
    static let keys = ["conversationId", "model", "text", "reasoning", "finishReason", "usage", "toolCalls"]
    /// The members of each of `toolCalls`.
    static let toolCallKeys = ["id", "name", "arguments", "truncated"]
    /// The members of `usage`.
    static let usageKeys = ["promptTokens", "completionTokens", "totalTokens"]

    /// The object.
    var jsonValue: JSONValue {
        let usageValue: JSONValue =
            usage.map { usage in
                .object(
                    JSONObject([
                        JSONMember("promptTokens", .number(JSONNumber(usage.promptTokens))),
                        JSONMember("completionTokens", .number(JSONNumber(usage.completionTokens))),
                        JSONMember("totalTokens", .number(JSONNumber(usage.totalTokens))),
                    ]))
            } ?? .null
        return .object(
            JSONObject([
                JSONMember("conversationId", conversationId.map(JSONValue.string) ?? .null),
                JSONMember("model", .string(model)),
                JSONMember("text", .string(text)),
                JSONMember("reasoning", reasoning.map(JSONValue.string) ?? .null),
                JSONMember("finishReason", finishReason.map(JSONValue.string) ?? .null),
                JSONMember("usage", usageValue),
                JSONMember("toolCalls", .array(toolCalls.map(\.jsonValue))),
            ]))
    }

    /// Decodes the object strictly: exactly the documented members, each of its type.
    static func decode(_ value: JSONValue, at path: JSONPath = .root) throws(JSONError) -> AskResult {
        let reader = try JSONObjectReader(value, at: path)
        try reader.requireExactKeys(keys)
        var usage: ChatDelta.Usage?
        if let object = try reader.nullableObject("usage") {
            let counts = try JSONObjectReader(.object(object), at: path.appending(key: "usage"))
            try counts.requireExactKeys(usageKeys)
            let range = 0...ChatDelta.Usage.maximumCount
            usage = ChatDelta.Usage(
                promptTokens: try counts.integer("promptTokens", in: range),
                completionTokens: try counts.integer("completionTokens", in: range),
                totalTokens: try counts.integer("totalTokens", in: range))
        }
        var toolCalls: [ChatToolCall] = []
        for (position, value) in try reader.array("toolCalls").enumerated() {
            let call = try JSONObjectReader(value, at: path.appending(key: "toolCalls").appending(index: position))
            try call.requireExactKeys(toolCallKeys)
            toolCalls.append(
                ChatToolCall(
                    index: position, id: try call.nullableString("id"), name: try call.string("name"),
                    arguments: try call.string("arguments"), truncated: try call.bool("truncated")))
        }
        return AskResult(
            conversationId: try reader.nullableString("conversationId"), model: try reader.string("model"),
            text: try reader.string("text"), reasoning: try reader.nullableString("reasoning"),
            finishReason: try reader.nullableString("finishReason"), usage: usage, toolCalls: toolCalls)
    }
}
