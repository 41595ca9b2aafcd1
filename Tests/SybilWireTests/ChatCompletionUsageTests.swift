import SybilCore
import SybilWire
import Testing

@Suite("OpenAI usage chunks", .timeLimit(.minutes(2)))
struct ChatCompletionUsageTests {
    private func chunk(_ data: String) throws -> ChatCompletionChunk {
        guard case .chunk(let chunk) = try OpenAIStreamEvent.decode(ServerSentEvent(data: data)) else {
            throw JSONError.contract(.root, "not a chunk")
        }
        return chunk
    }

    @Test func theUsageChunkHasNoChoicesAndDecodesItsCounts() throws {
        let usage = try chunk(
            #"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":0}}}"#
        )
        #expect(usage.choices.isEmpty)
        #expect(usage.content == "")
        #expect(usage.usage == ChatCompletionUsage(promptTokens: 5, completionTokens: 7))
    }

    @Test func nullOrAbsentUsageIsNone() throws {
        #expect(try chunk(#"{"id":"c","choices":[],"usage":null}"#).usage == nil)
        #expect(try chunk(#"{"id":"c","choices":[]}"#).usage == nil)
    }

    @Test func usageRoundTripsThroughTheChunkJSON() throws {
        let original = ChatCompletionChunk(
            id: "c", model: "m", created: 1, choices: [],
            usage: ChatCompletionUsage(promptTokens: 1, completionTokens: 2))
        let decoded = try ChatCompletionChunk.decode(original.jsonValue, at: .root)
        #expect(decoded == original)
        #expect(
            JSONWriter().string(from: original.jsonValue).hasSuffix(
                #""choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#))
    }

    @Test(
        "each count is an integer in 0…2^31−1, checked at the bounds",
        arguments: [
            ("prompt_tokens", "-1", false), ("prompt_tokens", "0", true), ("completion_tokens", "2147483647", true),
            ("completion_tokens", "2147483648", false), ("total_tokens", "1.5", false),
            ("total_tokens", "\"3\"", false),
        ])
    func countsAreRangeChecked(member: String, value: String, accepted: Bool) throws {
        var members = ["prompt_tokens": "1", "completion_tokens": "1", "total_tokens": "2"]
        members[member] = value
        let usage = members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
        let data = #"{"id":"c","choices":[],"usage":{\#(usage)}}"#
        if accepted {
            #expect(throws: Never.self) { try chunk(data) }
        } else {
            let error = try #require(throws: JSONError.self) { try chunk(data) }
            #expect(error.path.description == "usage.\(member)")
        }
    }

    /// Servers leave counts out (Databricks the total, vLLM's continuous usage the completion
    /// tokens, MiniMax all of them): the others give them, and a wrong type still names the
    /// member.
    @Test func missingCountsAreWorkedOutFromTheOthers() throws {
        #expect(
            try chunk(#"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}"#).usage
                == ChatCompletionUsage(promptTokens: 1, completionTokens: 1, totalTokens: 2))
        #expect(
            try chunk(#"{"id":"c","choices":[],"usage":{"prompt_tokens":11,"total_tokens":11}}"#).usage
                == ChatCompletionUsage(promptTokens: 11, completionTokens: 0, totalTokens: 11))
        #expect(try chunk(#"{"id":"c","choices":[],"usage":{}}"#).usage == nil)
        let error = try #require(throws: JSONError.self) {
            try chunk(#"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"total_tokens":"2"}}"#)
        }
        #expect(error.path.description == "usage.total_tokens")
    }
}
