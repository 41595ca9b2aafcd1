import SybilCore

/// The token counts of one completion, in OpenAI's `usage` shape: sent with every whole
/// reply and, when a streamed request asks with `stream_options.include_usage`, in a last
/// chunk whose `choices` is empty.
public struct ChatCompletionUsage: Sendable, Hashable {
    /// The largest count accepted from a peer (a sanity bound, far above any real context).
    public static let maximumCount: Int64 = Int64(Int32.max)

    /// Tokens in the request's messages.
    public var promptTokens: Int64
    /// Tokens in the reply.
    public var completionTokens: Int64
    /// Both together.
    public var totalTokens: Int64

    /// Usage from its parts; the total is their sum unless given.
    public init(promptTokens: Int64, completionTokens: Int64, totalTokens: Int64? = nil) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens ?? promptTokens + completionTokens
    }

    /// Decodes a `usage` object; each count is an integer in `0…2^31−1` (extra members such as
    /// `prompt_tokens_details` are ignored).
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatCompletionUsage {
        let reader = try JSONObjectReader(value, at: path)
        let range = 0...maximumCount
        return ChatCompletionUsage(
            promptTokens: try reader.integer("prompt_tokens", in: range),
            completionTokens: try reader.integer("completion_tokens", in: range),
            totalTokens: try reader.integer("total_tokens", in: range))
    }

    /// The `usage` object.
    public var jsonValue: JSONValue {
        .object(
            JSONObject([
                JSONMember("prompt_tokens", .number(JSONNumber(promptTokens))),
                JSONMember("completion_tokens", .number(JSONNumber(completionTokens))),
                JSONMember("total_tokens", .number(JSONNumber(totalTokens))),
            ]))
    }
}
