import SybilCore
import SybilWire
import Testing

/// A chunk keeps its members in one shared box; it must still behave as a value: setters
/// change only the chunk they are called on, and equality and hashing look at the members,
/// not at which box holds them.
@Suite("Chat completion chunk as a value")
struct ChatCompletionChunkValueTests {
    private static let text =
        #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#

    private func decoded() throws -> ChatCompletionChunk {
        var decoder = ChatCompletionChunkDecoder()
        guard case .chunk(let chunk) = try decoder.decode(Array(Self.text.utf8)) else {
            Issue.record("not a chunk")
            return ChatCompletionChunk(id: "", choices: [])
        }
        return chunk
    }

    @Test func settersChangeOnlyTheirOwnCopy() throws {
        let original = try decoded()
        var copy = original
        copy.id = "other"
        copy.choices[0].content = "Bye"
        copy.model = "n"
        copy.usage = ChatCompletionUsage(promptTokens: 1, completionTokens: 2, totalTokens: 3)
        #expect(original.id == "chatcmpl-1")
        #expect(original.content == "Hi")
        #expect(original.model == "m")
        #expect(original.usage == nil)
        #expect(copy.id == "other")
        #expect(copy.content == "Bye")
        #expect(copy.choices[0].role == "assistant")
        #expect(copy.model == "n")
        #expect(copy.created == 7)
        #expect(copy.usage?.totalTokens == 3)
        #expect(copy != original)
    }

    @Test func equalMembersCompareAndHashEqualWhicheverWayTheChunkWasMade() throws {
        let fromBytes = try decoded()
        let made = ChatCompletionChunk(
            id: "chatcmpl-1", model: "m", created: 7,
            choices: [ChatCompletionChunk.Choice(index: 0, role: "assistant", content: "Hi")])
        #expect(fromBytes == made)
        #expect(fromBytes.hashValue == made.hashValue)
        #expect(Set([fromBytes, made]).count == 1)
        var changed = made
        changed.choices[0].content = "Ho"
        #expect(changed != fromBytes)
        changed.choices[0].content = "Hi"
        #expect(changed == fromBytes)
    }
}
