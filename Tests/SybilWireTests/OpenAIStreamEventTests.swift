import SybilCore
import SybilWire
import Testing

@Suite("OpenAI stream chunks", .timeLimit(.minutes(2)))
struct OpenAIStreamEventTests {
    private func decode(_ data: String) throws(JSONError) -> OpenAIStreamEvent {
        try OpenAIStreamEvent.decode(ServerSentEvent(data: data))
    }

    @Test func contentDelta() throws {
        let event = try decode(
            #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hal"},"finish_reason":null}]}"#
        )
        guard case .chunk(let chunk) = event else {
            Issue.record("expected a chunk, got \(event)")
            return
        }
        #expect(chunk.id == "c1")
        #expect(chunk.model == "m")
        #expect(chunk.created == 1)
        #expect(chunk.content == "Hal")
        #expect(chunk.choices == [.init(index: 0, role: "assistant", content: "Hal", finishReason: nil)])
    }

    @Test func finishReasons() throws {
        for (text, reason) in [
            ("stop", ChatCompletionChunk.FinishReason.stop), ("length", .length), ("content_filter", .contentFilter),
            ("tool_calls", .toolCalls), ("something_new", .other("something_new")),
        ] {
            let event = try decode(#"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"\#(text)"}]}"#)
            guard case .chunk(let chunk) = event else {
                Issue.record("expected a chunk")
                continue
            }
            #expect(chunk.choices.first?.finishReason == reason)
            #expect(chunk.choices.first?.finishReason?.rawValue == text)
        }
    }

    @Test func doneMarker() throws {
        #expect(try decode("[DONE]") == .done)
    }

    @Test func errorObject() throws {
        let event = try decode(#"{"error":{"message":"Upstream overloaded","type":"server_error","code":503}}"#)
        #expect(event == .error(APIErrorBody(message: "Upstream overloaded", type: "server_error", code: "503")))
        let named = try OpenAIStreamEvent.decode(
            ServerSentEvent(type: "error", data: #"{"error":{"message":"quota","code":"rate_limited"}}"#))
        #expect(named == .error(APIErrorBody(message: "quota", code: "rate_limited")))
    }

    /// The error frames of servers that do not use OpenAI's shape: TGI's `{"error": "text"}`
    /// and vLLM's older top-level `{"object": "error", …}`.
    @Test func errorFramesOfOtherServers() throws {
        #expect(
            try decode(#"{"error":"Request failed during generation: CUDA out of memory","error_type":"generation"}"#)
                == .error(
                    APIErrorBody(message: "Request failed during generation: CUDA out of memory", type: "generation")))
        #expect(
            try decode(
                #"{"object":"error","message":"engine dead","type":"InternalServerError","param":null,"code":500}"#)
                == .error(APIErrorBody(message: "engine dead", type: "InternalServerError", code: "500")))
        #expect(try decode(#"{"object":"error","choices":[]}"#) == .chunk(ChatCompletionChunk(id: "", choices: [])))
    }

    @Test func malformedChunksFailWithAPath() throws {
        let missingChoices = try #require(throws: JSONError.self) { try decode(#"{"id":"c"}"#) }
        #expect(missingChoices.path.description == "choices")
        let badContent = try #require(throws: JSONError.self) {
            try decode(#"{"id":"c","choices":[{"index":0,"delta":{"content":5}}]}"#)
        }
        #expect(badContent.path.description == "choices[0].delta.content")
        #expect(throws: JSONError.self) { try decode("{not json") }
        #expect(throws: JSONError.self) { try decode(#"{"error":{"type":"x"}}"#) }
    }

    @Test func unknownMembersAreTolerated() throws {
        let event = try decode(
            #"{"id":"c","system_fingerprint":"fp","usage":null,"choices":[{"index":0,"logprobs":null,"delta":{"content":"x","refusal":null}}]}"#
        )
        guard case .chunk(let chunk) = event else {
            Issue.record("expected a chunk")
            return
        }
        #expect(chunk.content == "x")
    }
}
