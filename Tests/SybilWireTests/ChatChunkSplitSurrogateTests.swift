import SybilCore
import SybilWire
import Testing

/// Unpaired UTF-16 surrogate escapes in a chat stream (RFC 8259 §8.2 allows them): JavaScript
/// gateways cut a reply by UTF-16 code unit and `JSON.stringify` each piece, so `\ud83d` ends
/// one chunk's `content` and `\ude00` starts the next. A decoder kept for the stream joins the
/// pair; an unpaired half is U+FFFD, never a failed reply; nothing else is loosened.
@Suite("Chat chunks: surrogate pairs split between deltas", .timeLimit(.minutes(2)))
struct ChatChunkSplitSurrogateTests {
    /// A chunk of choice `index` with these delta members, and a finish reason when given.
    static func chunk(_ delta: String, index: Int = 0, finish: String? = nil) -> String {
        let reason = finish.map { #""\#($0)""# } ?? "null"
        return #"{"id":"c","choices":[{"index":\#(index),"delta":{\#(delta)},"finish_reason":\#(reason)}]}"#
    }

    /// The UTF-16 code units `units` as `JSON.stringify` writes them (ES2019): a lone
    /// surrogate as a lowercase `\u` escape, a pair as its character, the rest as JSON needs.
    static func stringify(_ units: ArraySlice<UInt16>) -> String {
        var out = "\""
        var position = units.startIndex
        while position < units.endIndex {
            let unit = units[position]
            if UTF16.isLeadSurrogate(unit), position + 1 < units.endIndex, UTF16.isTrailSurrogate(units[position + 1]) {
                out += String(decoding: [unit, units[position + 1]], as: UTF16.self)
                position += 2
                continue
            }
            position += 1
            switch unit {
            case 0xD800...0xDFFF: out += "\\u" + String(unit, radix: 16)
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0..<0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(unit, radix: 16).count) + String(unit, radix: 16)
            default: out += String(decoding: [unit], as: UTF16.self)
            }
        }
        return out + "\""
    }

    /// `units` cut at `cuts` (code unit offsets) and stringified, one piece per chunk.
    static func pieces(_ units: [UInt16], cuts: [Int]) -> [String] {
        let bounds = [0] + cuts + [units.count]
        return zip(bounds, bounds.dropFirst()).map { stringify(units[$0..<$1]) }
    }

    /// Decodes `texts` with one decoder, as a stream, and ends it: every chunk, the one
    /// `finish()` gives last when it gives one.
    static func stream(_ texts: [String]) throws -> [ChatCompletionChunk] {
        var decoder = ChatCompletionChunkDecoder()
        var chunks: [ChatCompletionChunk] = []
        for text in texts {
            guard case .chunk(let chunk) = try decoder.decode(Array(text.utf8)) else {
                Issue.record("not a chunk: \(text)")
                continue
            }
            chunks.append(chunk)
        }
        if let tail = decoder.finish() { chunks.append(tail) }
        return chunks
    }

    /// The chunk the tree decoder reads from `text`.
    static func tree(_ text: String) throws -> ChatCompletionChunk {
        guard
            case .chunk(let chunk) = try OpenAIStreamEvent.decodeWithTree(ServerSentEvent(dataBytes: Array(text.utf8)))
        else { throw Unexpected() }
        return chunk
    }

    struct Unexpected: Error {}

    static func arguments(_ chunks: [ChatCompletionChunk]) -> [String] {
        var calls: [ChatToolCall] = []
        for chunk in chunks { ChatToolCall.merge(chunk.toolCalls, into: &calls) }
        return calls.map(\.arguments)
    }

    // MARK: What each case gives

    @Test func aPairSplitBetweenTwoContentDeltasJoinsIntoTheOneCharacter() throws {
        let chunks = try Self.stream([
            Self.chunk(#""content":"Hi \ud83d""#), Self.chunk(#""content":"\ude00 there""#),
        ])
        #expect(chunks.map(\.content) == ["Hi ", "😀 there"])
    }

    @Test func aLoneHighSurrogateAtTheEndOfTheStreamIsAReplacementCharacter() throws {
        // Let go of when the choice finishes, in the finishing chunk.
        let finished = try Self.stream([
            Self.chunk(#""content":"Hi \ud83d""#), Self.chunk("", finish: "stop"),
        ])
        #expect(finished.map(\.content) == ["Hi ", "\u{FFFD}"])
        #expect(finished.last?.finishReason == .stop)
        // One that finishes in the same chunk is never held.
        #expect(
            try Self.stream([Self.chunk(#""content":"Hi \ud83d""#, finish: "stop")]).map(\.content) == ["Hi \u{FFFD}"])
        // A stream that ends without a finish reason: `finish()` gives it back.
        var decoder = ChatCompletionChunkDecoder()
        guard case .chunk(let chunk) = try decoder.decode(Array(Self.chunk(#""content":"Hi \ud83d""#).utf8)) else {
            throw Unexpected()
        }
        #expect(chunk.content == "Hi ")
        let tail = decoder.finish()
        #expect(tail == ChatCompletionChunk(id: "c", choices: [.init(index: 0, content: "\u{FFFD}")]))
        #expect(decoder.finish() == nil)
    }

    @Test func aLoneHighSurrogateBeforeOrdinaryTextIsAReplacementCharacter() throws {
        #expect(try Self.stream([Self.chunk(#""content":"Hi \ud83dthere""#)]).map(\.content) == ["Hi \u{FFFD}there"])
        #expect(
            try Self.stream([Self.chunk(#""content":"Hi \ud83d""#), Self.chunk(#""content":"there""#)]).map(\.content)
                == ["Hi ", "\u{FFFD}there"])
        // Two high surrogates in a row: the first is unpaired, the second pairs.
        #expect(
            try Self.stream([Self.chunk(#""content":"\ud83d""#), Self.chunk(#""content":"\ud83d\ude00""#)])
                .map(\.content) == ["", "\u{FFFD}😀"])
        #expect(
            try Self.stream([Self.chunk(#""content":"\ud83d\u0041""#)]).map(\.content) == ["\u{FFFD}A"])
    }

    @Test func aLoneLowSurrogateIsAReplacementCharacter() throws {
        #expect(try Self.stream([Self.chunk(#""content":"\ude00 x""#)]).map(\.content) == ["\u{FFFD} x"])
        #expect(try Self.stream([Self.chunk(#""content":"a\udc00b""#)]).map(\.content) == ["a\u{FFFD}b"])
        #expect(try Self.tree(Self.chunk(#""content":"\ude00 x""#)).content == "\u{FFFD} x")
    }

    @Test func reasoningAndToolCallArgumentsJoinTheirOwnPairs() throws {
        let reasoning = try Self.stream([
            Self.chunk(#""reasoning_content":"Hmm \ud83e""#), Self.chunk(#""reasoning_content":"\udd14.""#),
        ])
        #expect(reasoning.map(\.reasoning) == ["Hmm ", "🤔."])
        let ollama = try Self.stream([Self.chunk(#""reasoning":"\ud83e""#), Self.chunk(#""reasoning":"\udd14""#)])
        #expect(ollama.map(\.reasoning).joined() == "🤔")
        let calls = try Self.stream([
            Self.chunk(
                #""tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"say","arguments":"{\"t\":\"\ud83d"}}]"#
            ),
            Self.chunk(#""tool_calls":[{"index":1,"function":{"name":"other","arguments":"\ude00"}}]"#),
            Self.chunk(#""tool_calls":[{"index":0,"function":{"arguments":"\ude00\"}"}}]"#),
        ])
        #expect(Self.arguments(calls) == [#"{"t":"😀"}"#, "\u{FFFD}"])
        #expect(calls[0].toolCalls.first?.arguments == #"{"t":""#)
    }

    @Test func eachMemberAndChoiceKeepsItsOwnHalf() throws {
        let chunks = try Self.stream([
            Self.chunk(#""content":"a\ud83d","reasoning_content":"r\ud83e""#),
            Self.chunk(#""content":"\udd14""#, index: 1),
            Self.chunk(#""reasoning_content":"\udd14""#),
            Self.chunk(#""content":"\ude00""#),
        ])
        #expect(chunks.map(\.content) == ["a", "\u{FFFD}", "", "😀"])
        #expect(chunks.map(\.reasoning) == ["r", "", "🤔", ""])
    }

    @Test func aChunkWithoutTheMemberOrWithItEmptyLeavesTheHalfHeld() throws {
        let chunks = try Self.stream([
            Self.chunk(#""content":"a\ud83d""#), Self.chunk(#""role":"assistant""#), Self.chunk(#""content":"""#),
            Self.chunk(#""content":null"#), Self.chunk(#""reasoning_content":"x""#),
            Self.chunk(#""content":"\ude00b""#),
        ])
        #expect(chunks.map(\.content).joined() == "a😀b")
    }

    @Test func theQuickWayForTheCommonShapeLeavesAnUnpairedHalfToTheGeneralWay() throws {
        let first =
            #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi \ud83d"},"finish_reason":null}]}"#
        let second =
            #"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"\ude00!"},"finish_reason":null}]}"#
        #expect(try Self.stream([first, second]).map(\.content) == ["Hi ", "😀!"])
    }

    /// A hostile stream cannot make the decoder hold without bound: past the limit a half is
    /// U+FFFD where it stands, and nothing is lost.
    @Test func atMostALimitedNumberOfHalvesAreHeld() throws {
        let choices = (0..<80).map { #"{"index":\#($0),"delta":{"content":"\ud83d"}}"# }.joined(separator: ",")
        var decoder = ChatCompletionChunkDecoder()
        guard case .chunk(let chunk) = try decoder.decode(Array(#"{"id":"c","choices":[\#(choices)]}"#.utf8)) else {
            throw Unexpected()
        }
        #expect(chunk.choices.filter { $0.content == "" }.count == 64)
        #expect(chunk.choices.filter { $0.content == "\u{FFFD}" }.count == 16)
        let tail = decoder.finish()
        #expect(tail?.choices.count == 64 && tail?.choices.allSatisfy { $0.content == "\u{FFFD}" } == true)
    }

    // MARK: Nothing else is loosened

    @Test func badEscapesAndMalformedChunksStillFailNamingThePath() {
        var decoder = ChatCompletionChunkDecoder()
        func failure(_ text: String) -> String {
            do {
                return "decoded \(try decoder.decode(Array(text.utf8)))"
            } catch {
                return error.description
            }
        }
        #expect(
            failure(Self.chunk(#""content":"\uZZ12""#))
                .hasPrefix("choices[0].delta.content: a \\u escape needs four hexadecimal digits"))
        #expect(
            failure(Self.chunk(#""content":"\ud83d\uZZ12""#))
                .hasPrefix("choices[0].delta.content: a \\u escape needs four hexadecimal digits"))
        #expect(
            failure(Self.chunk(#""reasoning_content":"\ud83d\x""#))
                .hasPrefix("choices[0].delta.reasoning_content: invalid escape '\\x' in a string"))
        #expect(failure(#"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"}}]"#).contains("unexpected end"))
        #expect(
            failure(#"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"#)
                .contains("a string is not terminated"))
        // The strict reader the other contracts use still refuses an unpaired surrogate.
        #expect(throws: JSONError.self) { try JSONReader().parse(#"{"a":"\ud83d"}"#) }
        #expect(throws: JSONError.self) { try JSONReader().parse(#"{"a":"\ude00"}"#) }
    }

    // MARK: Against the tree: the whole text read at once

    /// Texts a model writes: emoji (a supplementary character is a pair), a family emoji of
    /// joined pairs, CJK, and escapes; plus truly unpaired halves.
    static let texts: [[UInt16]] = [
        Array("Hi 😀 there".utf16), Array("👨‍👩‍👧 fam".utf16), Array("我想 🤔 \"q\" \\ \n end𝄞".utf16),
        Array("😀😀😀".utf16), [0x61, 0xD83D, 0x62, 0xDE00, 0xD83D], [0xDE00, 0xD83D, 0xDE00, 0xDBFF],
    ]

    /// Every cut of each text into two pieces and into a piece per code unit, streamed as
    /// content, reasoning and arguments: the stream's texts put together are what the tree
    /// reads from the whole text in one chunk.
    @Test func theStreamsTextsPutTogetherAreTheWholeTextAsTheTreeReadsIt() throws {
        for units in Self.texts {
            var cuttings = (0...units.count).map { [$0] }
            cuttings.append(Array(1..<units.count))
            for cuts in cuttings {
                let pieces = Self.pieces(units, cuts: cuts)
                let whole = Self.stringify(units[...])
                let label = "\(units) cut at \(cuts)"
                let content = try Self.stream(pieces.map { Self.chunk(#""content":\#($0)"#) })
                #expect(
                    content.map(\.content).joined() == (try Self.tree(Self.chunk(#""content":\#(whole)"#)).content),
                    "\(label)")
                let reasoning = try Self.stream(pieces.map { Self.chunk(#""reasoning_content":\#($0)"#) })
                #expect(
                    reasoning.map(\.reasoning).joined()
                        == (try Self.tree(Self.chunk(#""reasoning_content":\#(whole)"#)).reasoning), "\(label)")
                let calls = try Self.stream(
                    pieces.map { Self.chunk(#""tool_calls":[{"index":0,"function":{"arguments":\#($0)}}]"#) })
                let treeCalls = try Self.tree(
                    Self.chunk(#""tool_calls":[{"index":0,"function":{"arguments":\#(whole)}}]"#))
                #expect(Self.arguments(calls) == Self.arguments([treeCalls]), "\(label)")
                // Without unpaired halves, the text comes out whole, whatever the cut.
                if Array(String(decoding: units, as: UTF16.self).utf16) == units {
                    #expect(content.map(\.content).joined() == String(decoding: units, as: UTF16.self), "\(label)")
                }
                // Each chunk alone reads as the tree reads it.
                for piece in pieces {
                    let text = Self.chunk(#""content":\#(piece)"#)
                    let event = ServerSentEvent(dataBytes: Array(text.utf8))
                    #expect(
                        (try? OpenAIStreamEvent.decode(event)) == (try? OpenAIStreamEvent.decodeWithTree(event)),
                        "\(text)")
                }
            }
        }
    }
}
