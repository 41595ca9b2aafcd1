import SybilCore
import SybilWire
import Testing

/// The chunk shapes real OpenAI-compatible servers stream, as recorded from each: the members
/// they add are ignored, their reasoning is kept, and the usage chunk with no choices is read.
@Suite("Chat chunk shapes of real servers")
struct ChatChunkShapesTests {
    private func chunk(_ data: String) throws -> ChatCompletionChunk {
        guard case .chunk(let chunk) = try OpenAIStreamEvent.decode(ServerSentEvent(data: data)) else {
            Issue.record("not a chunk: \(data)")
            return ChatCompletionChunk(id: "", choices: [])
        }
        return chunk
    }

    @Test func openAIsObfuscationServiceTierAndFingerprintAreIgnoredAndItsUsageChunkIsRead() throws {
        let first = try chunk(
            #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"k3Fq"}"#
        )
        #expect(first.choices.first?.role == "assistant" && first.content.isEmpty && first.usage == nil)
        let last = try chunk(
            #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}],"usage":null,"obfuscation":"Zx"}"#
        )
        #expect(last.finishReason == .length)
        let usage = try chunk(
            #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"9c"}"#
        )
        #expect(usage.choices.isEmpty && usage.finishReason == nil)
        #expect(usage.usage == ChatCompletionUsage(promptTokens: 12, completionTokens: 16, totalTokens: 28))
    }

    @Test func ollamasReasoningMemberIsTheReasoning() throws {
        let thinking = try chunk(
            #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Okay, the user"},"finish_reason":null}]}"#
        )
        #expect(thinking.reasoning == "Okay, the user" && thinking.content.isEmpty)
        let answer = try chunk(
            #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Rayleigh"},"finish_reason":null}]}"#
        )
        #expect(answer.content == "Rayleigh" && answer.reasoning.isEmpty)
        let end = try chunk(
            #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":"stop"}]}"#
        )
        #expect(end.finishReason == .stop)
    }

    @Test func llamaCppsReasoningContentAndTimingsAndItsUsageChunk() throws {
        let thinking = try chunk(
            #"{"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"Let me think"}}],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b5000-2a0f3e7","object":"chat.completion.chunk"}"#
        )
        #expect(thinking.reasoning == "Let me think")
        let answer = try chunk(
            #"{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Blue"}}],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b5000-2a0f3e7","object":"chat.completion.chunk"}"#
        )
        #expect(answer.content == "Blue")
        let end = try chunk(
            #"{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b5000-2a0f3e7","object":"chat.completion.chunk","timings":{"prompt_n":9,"prompt_ms":20.1,"prompt_per_token_ms":2.23,"prompt_per_second":447.7,"predicted_n":16,"predicted_ms":130.4,"predicted_per_token_ms":8.15,"predicted_per_second":122.7}}"#
        )
        #expect(end.finishReason == .length && end.content.isEmpty)
        let usage = try chunk(
            #"{"choices":[],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b5000-2a0f3e7","object":"chat.completion.chunk","usage":{"completion_tokens":16,"prompt_tokens":9,"total_tokens":25},"timings":{"prompt_n":9,"prompt_ms":20.1,"predicted_n":16,"predicted_ms":130.4}}"#
        )
        #expect(usage.usage == ChatCompletionUsage(promptTokens: 9, completionTokens: 16, totalTokens: 25))
    }

    @Test func vllmsReasoningContentWithANullContentAndItsUsageChunk() throws {
        let thinking = try chunk(
            #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Hmm"},"logprobs":null,"finish_reason":null}]}"#
        )
        #expect(thinking.reasoning == "Hmm" && thinking.choices.first?.content == nil)
        let end = try chunk(
            #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}]}"#
        )
        #expect(end.finishReason == .stop)
        let usage = try chunk(
            #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[],"usage":{"prompt_tokens":10,"total_tokens":30,"completion_tokens":20}}"#
        )
        #expect(usage.usage?.totalTokens == 30)
    }

    @Test func aServerSendingBothNamesGivesTheReasoningOnce() throws {
        let both = try chunk(#"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":"a"}}]}"#)
        #expect(both.reasoning == "a")
    }

    @Test func knownMembersStayStrict() {
        #expect(throws: JSONError.self) {
            try chunk(#"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":5}}]}"#)
        }
        #expect(throws: JSONError.self) {
            try chunk(#"{"id":"c","choices":[{"index":0,"delta":{"reasoning":["a"]}}]}"#)
        }
        #expect(throws: JSONError.self) { try chunk(#"{"id":"c","choices":[],"usage":{"prompt_tokens":"1"}}"#) }
    }

    @Test func reasoningIsWrittenAsReasoningContentAndReadBack() throws {
        let original = ChatCompletionChunk(
            id: "c", choices: [ChatCompletionChunk.Choice(index: 0, reasoning: "think", finishReason: nil)])
        let written = JSONWriter().string(from: original.jsonValue)
        #expect(written.contains(#""reasoning_content":"think""#))
        #expect(try chunk(written) == original)
    }
}
