import SybilCore
import Testing

@testable import SybilWire

/// Tool calls in a streamed reply (`choices[].delta.tool_calls`): read alike by the byte
/// scanner and the tree decoder, leniently (display information never fails a chunk), and put
/// together from their increments within bounds.
@Suite("chat tool calls")
struct ChatToolCallTests {
    static let chunks = [
        #"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"finish_reason":null}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{"tool_c\u0061lls":[{"index":0,"function":{"arguments":"ation\":\"Paris\"}"}},{"index":1,"id":"call_2","function":{"name":"add","arguments":"{}"}}]},"finish_reason":null}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    ]

    func scanned(_ text: String) throws -> ChatCompletionChunk {
        var decoder = ChatCompletionChunkDecoder()
        guard case .chunk(let chunk) = try decoder.decode(Array(text.utf8)) else {
            throw JSONError(kind: .contract, path: .root, message: "no chunk")
        }
        return chunk
    }

    func tree(_ text: String) throws -> ChatCompletionChunk {
        try ChatCompletionChunk.decode(try JSONReader().parse(Array(text.utf8)), at: .root)
    }

    @Test func theScannerAndTheTreeReadTheSameIncrements() throws {
        for text in Self.chunks {
            #expect(try scanned(text) == tree(text), "\(text)")
        }
        #expect(
            try scanned(Self.chunks[0]).toolCalls
                == [ChatToolCallDelta(index: 0, id: "call_abc", name: "get_weather", arguments: "")])
        #expect(
            try scanned(Self.chunks[2]).toolCalls.map(\.index) == [0, 1], "an escaped member name is the same name")
    }

    @Test func theIncrementsMakeWholeCalls() throws {
        var calls: [ChatToolCall] = []
        for text in Self.chunks { ChatToolCall.merge(try scanned(text).toolCalls, into: &calls) }
        #expect(
            calls == [
                ChatToolCall(index: 0, id: "call_abc", name: "get_weather", arguments: #"{"location":"Paris"}"#),
                ChatToolCall(index: 1, id: "call_2", name: "add", arguments: "{}"),
            ])
        #expect(calls[0].summary() == #"get_weather({"location":"Paris"})"#)
    }

    @Test func aMalformedToolCallsMemberIsReadAsNoneByBoth() throws {
        for member in [#""tool_calls":null"#, #""tool_calls":7"#, #""tool_calls":[1,"x",{"function":3}]"#] {
            let text = #"{"id":"c","choices":[{"index":0,"delta":{"content":"a","# + member + "}}]}"
            #expect(try scanned(text) == tree(text), "\(member)")
            #expect(try scanned(text).content == "a")
        }
        let odd = #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[1,{"index":-4,"function":{"name":5}}]}}]}"#
        #expect(try scanned(odd).toolCalls == [ChatToolCallDelta(index: 1)], "a bad index takes the position")
    }

    @Test func callsAreBoundedAndTerminalSafe() {
        var calls: [ChatToolCall] = []
        let long = String(repeating: "a", count: ChatToolCall.maximumArgumentBytes - 1)
        ChatToolCall.merge([ChatToolCallDelta(index: 0, name: "run\u{1B}[2J", arguments: long)], into: &calls)
        ChatToolCall.merge([ChatToolCallDelta(index: 0, arguments: "éé")], into: &calls)
        #expect(calls[0].arguments.utf8.count == ChatToolCall.maximumArgumentBytes - 1, "a character is never split")
        #expect(calls[0].truncated)
        #expect(!calls[0].summary().contains("\u{1B}"))
        #expect(calls[0].summary(width: 20).count == 20)
        let many = (0..<(ChatToolCall.maximumCalls + 5)).map { ChatToolCallDelta(index: $0, name: "f") }
        var bounded: [ChatToolCall] = []
        ChatToolCall.merge(many, into: &bounded)
        #expect(bounded.count == ChatToolCall.maximumCalls)
    }
}
