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
    /// `prompt_tokens_details` are ignored), and counts left out are completed as
    /// ``completing(prompt:completion:total:)`` does; `nil` for an object with none of them.
    public static func decode(_ value: JSONValue, at path: JSONPath) throws(JSONError) -> ChatCompletionUsage? {
        let reader = try JSONObjectReader(value, at: path)
        let range = 0...maximumCount
        func count(_ key: String) throws(JSONError) -> Int64? {
            guard reader.object[key] != nil else { return nil }
            return try reader.integer(key, in: range)
        }
        return completing(
            prompt: try count("prompt_tokens"), completion: try count("completion_tokens"),
            total: try count("total_tokens"))
    }

    /// Usage from the counts a server sent, the missing ones worked out from the others: servers
    /// leave some out (Databricks the total, vLLM's continuous usage the completion tokens,
    /// MiniMax all of them in `"usage": {}`), and the chunk that carries them must still be
    /// read. A missing total is the sum; a missing part is the total less the other part, or 0.
    /// `nil` when none is given.
    public static func completing(prompt: Int64?, completion: Int64?, total: Int64?) -> ChatCompletionUsage? {
        if prompt == nil, completion == nil, total == nil { return nil }
        let promptTokens = prompt ?? max(0, (total ?? 0) - (completion ?? total ?? 0))
        let completionTokens = completion ?? max(0, (total ?? 0) - promptTokens)
        return ChatCompletionUsage(
            promptTokens: promptTokens, completionTokens: completionTokens, totalTokens: total)
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
