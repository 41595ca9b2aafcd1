import SybilCore
import Testing

@testable import SybilWire

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

    @Test func noChoicesAnOpenChoiceAndAFinishedOneStayDistinct() {
        let none = ChatCompletionChunk(id: "c", choices: [])
        let open = ChatCompletionChunk(id: "c", choices: [ChatCompletionChunk.Choice(index: 0)])
        let finished = ChatCompletionChunk(
            id: "c", choices: [ChatCompletionChunk.Choice(index: 0, finishReason: .other("x"))])
        #expect(none.choices.isEmpty)
        #expect(open.choices == [ChatCompletionChunk.Choice(index: 0)])
        #expect(open.finishReason == nil)
        #expect(finished.finishReason == .other("x"))
        #expect(Set([none, open, finished]).count == 3)
        var reopened = finished
        reopened.choices[0].finishReason = nil
        #expect(reopened == open)
        reopened.choices = []
        #expect(reopened == none)
    }

    #if canImport(Glibc)
        /// A chunk's box is freed on the consumer's thread; at 120 bytes or fewer glibc's
        /// `malloc` takes it back into a fast bin without the lock the decoder's thread holds.
        @Test func theBoxFitsGlibcsFastBins() throws {
            let chunks = [
                try decoded(),
                ChatCompletionChunk(id: "c", choices: []),
                ChatCompletionChunk(
                    id: "c", choices: [ChatCompletionChunk.Choice(index: 3, reasoning: "r", finishReason: .stop)]),
            ]
            for chunk in chunks {
                #expect(mallocUsableSize(Unmanaged.passUnretained(chunk.storageObject).toOpaque()) <= 120)
            }
        }
    #endif
}

#if canImport(Glibc)
    /// glibc's `malloc_usable_size`, which its Swift module does not export.
    @_silgen_name("malloc_usable_size")
    private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int
#endif
