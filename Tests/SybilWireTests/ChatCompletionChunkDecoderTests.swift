import SybilCore
import SybilWire
import Testing

/// The tree-free chunk decoder against the tree decoder (JSON tree, then
/// `ChatCompletionChunk.decode`), on the chunk shapes real servers stream and on every prefix
/// and many single-byte corruptions of them; and its own errors, which name the path.
@Suite("Chat chunk decoder without a tree", .timeLimit(.minutes(2)))
struct ChatCompletionChunkDecoderTests {
    /// Recorded shapes: OpenAI, Ollama, llama.cpp, vLLM, LiteLLM, DeepSeek; usage-only final
    /// chunks, empty choices, null content, reasoning, tool-call deltas split across chunks,
    /// error objects; and the escapes servers send.
    static let shapes: [String] = [
        #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"k3Fq"}"#,
        #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":"9c"}"#,
        #"{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}],"refusal":null},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ation\":\"Paris\"}"}}]},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}]}"#,
        #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Okay, the user"},"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[{"id":"call_x1","index":0,"type":"function","function":{"name":"add","arguments":"{\"a\":1,\"b\":2}"}}]},"finish_reason":"tool_calls"}]}"#,
        #"{"choices":[{"finish_reason":null,"index":0,"delta":{"reasoning_content":"Let me think"}}],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","system_fingerprint":"b5000-2a0f3e7","object":"chat.completion.chunk"}"#,
        #"{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","object":"chat.completion.chunk","timings":{"prompt_n":9,"prompt_ms":20.1,"prompt_per_token_ms":2.23,"predicted_per_second":122.7e0}}"#,
        #"{"choices":[],"created":1733000002,"id":"chatcmpl-Xy","model":"gpt-3.5-turbo","object":"chat.completion.chunk","usage":{"completion_tokens":16,"prompt_tokens":9,"total_tokens":25},"timings":{"prompt_n":9,"predicted_ms":130.4}}"#,
        #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Hmm"},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":10,"total_tokens":30,"completion_tokens":20}}"#,
        #"{"id":"chatcmpl-lite","created":1733000004,"model":"claude-3-5-sonnet","object":"chat.completion.chunk","system_fingerprint":null,"choices":[{"index":0,"delta":{"content":"Hi","role":"assistant","function_call":null,"tool_calls":null,"audio":null},"finish_reason":null,"logprobs":null}],"stream_options":null,"citations":null}"#,
        #"{"id":"chatcmpl-lite","created":1733000004,"model":"claude-3-5-sonnet","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"provider_specific_fields":{"citation":null,"thinking_blocks":[{"type":"thinking","thinking":"x","signature":"s"}]},"reasoning_content":"x"}}]}"#,
        #"{"id":"ds-1","object":"chat.completion.chunk","created":1733000005,"model":"deepseek-reasoner","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"\u6211\u60f3 \ud83d\ude00 \"quoted\" \\ \/ \b\f\n\r\t"},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":"a"}}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":5}}]}"#,
        #"{"id":"c","choices":[{"index":1,"delta":{"content":"é 😀"}},{"index":0,"delta":{"content":"b"},"finish_reason":"content_filter"}]}"#,
        #"{"choices":[{"delta":{"content":"Hallo","role":"assistant"},"index":0}],"created":1747469284,"model":"gemini-2.0-flash","object":"chat.completion.chunk"}"#,
        #"{"id":null,"choices":[{"delta":{"content":"a"}},{"index":null,"delta":{"content":"b"},"finish_reason":"stop"}]}"#,
        #"{"choices":[{"delta":{"content":"A","role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1744857525.254391,"id":"7ab7172c","model":"Meta-Llama-3.3-70B-Instruct","object":"chat.completion.chunk","system_fingerprint":"fastcoe"}"#,
        #"{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
        #"{"error":{"message":"upstream failed","code":502,"details":{"retryAfterSeconds":3}}}"#,
        #"{"error":"Request failed during generation: CUDA out of memory","error_type":"generation"}"#,
        " \n\t{ \"\\u0069d\" : \"x\" , \"choices\" : [ ] , \"created\" : -9223372036854775808 } \r\n",
    ]

    /// Chunks a JavaScript gateway sends when it cuts a reply by UTF-16 code unit: a surrogate
    /// pair split between two deltas (content, reasoning, tool-call arguments), unpaired halves
    /// in the members read and in those skipped, and next to other escapes.
    static let splitSurrogateShapes: [String] = [
        #"{"id":"chatcmpl-js","object":"chat.completion.chunk","created":1733000006,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi \ud83d"},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-js","object":"chat.completion.chunk","created":1733000006,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"\ude00 there"},"logprobs":null,"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-js","choices":[{"index":0,"delta":{"reasoning_content":"\u6211 \ud83e"},"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-js","choices":[{"index":0,"delta":{"reasoning":"\udd14\n"},"finish_reason":"stop"}]}"#,
        #"{"id":"chatcmpl-js","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"say","arguments":"{\"t\":\"\ud83d"}}]}}]}"#,
        #"{"id":"chatcmpl-js","choices":[{"index":0,"delta":{"tool_calls":[null,{"index":0,"function":{"arguments":"\ude00\"}","arguments":"\ud800"}}]}}]}"#,
        #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ude00\ud83d\ude00\ud83d"}},{"index":1,"delta":{"content":"\udbff\udfff\udbff"}}]}"#,
        #"{"id":"\ud83d","model":"\ude00","choices":[],"x":["\ud800",{"\udc00":"\udbff"}]}"#,
    ]

    private func differential(_ bytes: [UInt8], _ label: String) {
        let event = ServerSentEvent(dataBytes: bytes)
        let tree = Result { () throws(JSONError) in try OpenAIStreamEvent.decodeWithTree(event) }
        let stream = Result { () throws(JSONError) in try OpenAIStreamEvent.decode(event) }
        #expect(stream == tree, "\(label)")
        var decoder = ChatCompletionChunkDecoder(joinsSplitSurrogates: false)
        let direct = Result { () throws(JSONError) in try decoder.decode(bytes) }
        // Kept for a stream, the decoder holds a trailing high surrogate back; ended, it gives
        // it back: the same texts.
        var kept = ChatCompletionChunkDecoder()
        let keptOutcome = Result { () throws(JSONError) in try kept.decode(bytes) }
        if case .success(.chunk(let chunk)) = keptOutcome, case .success(.chunk(let treeChunk)) = tree {
            #expect(Self.texts([chunk] + [kept.finish()].compactMap { $0 }) == Self.texts([treeChunk]), "\(label)")
        } else {
            #expect(String(describing: keptOutcome) == String(describing: direct), "\(label)")
        }
        switch (direct, tree) {
        case (.success(.chunk(let chunk)), .success(.chunk(let treeChunk))):
            #expect(chunk == treeChunk, "\(label)")
        case (.success(.errorMember), .success(.error)), (.success(.errorMember), .failure): break
        case (.failure(let error), .failure(let treeError)):
            #expect(error.kind == .contract || error.kind == treeError.kind, "\(label): \(error) vs \(treeError)")
        case (.failure(let error), .success(.error)):
            #expect(error.kind == .contract, "\(label)")
        default:
            Issue.record("\(label): the tree-free decoder gave \(direct), the tree \(tree)")
        }
    }

    /// Each choice's content, reasoning and arguments by call, put together across `chunks`.
    static func texts(_ chunks: [ChatCompletionChunk]) -> [String: String] {
        var texts: [String: String] = [:]
        for chunk in chunks {
            for choice in chunk.choices {
                texts["\(choice.index).content", default: ""] += choice.content ?? ""
                texts["\(choice.index).reasoning", default: ""] += choice.reasoning ?? ""
                for call in choice.toolCalls {
                    texts["\(choice.index).\(call.index).arguments", default: ""] += call.arguments ?? ""
                }
            }
        }
        return texts
    }

    @Test func recordedShapesDecodeAsTheTreeDecodesThem() throws {
        var decoder = ChatCompletionChunkDecoder()
        var chunks = 0
        for shape in Self.shapes {
            differential(Array(shape.utf8), shape)
            if case .chunk = try decoder.decode(Array(shape.utf8)) { chunks += 1 }
        }
        #expect(chunks == Self.shapes.count - 3)
    }

    @Test func everyPrefixAndManyCorruptionsOfTheShapesAgreeWithTheTree() {
        let replacements: [UInt8] = [
            0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x30, 0x2D, 0x2E, 0x65, 0x6E, 0x75, 0x00, 0x1F,
            0x80, 0xC3, 0xED, 0xF4, 0xFF,
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for shape in Self.shapes {
            let bytes = Array(shape.utf8)
            for end in 0..<bytes.count { differential(Array(bytes[..<end]), "prefix \(end) of \(shape)") }
            for position in bytes.indices {
                for _ in 0..<3 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    var mutated = bytes
                    mutated[position] = replacements[Int(state >> 33) % replacements.count]
                    differential(mutated, "byte \(position) of \(shape) set to \(mutated[position])")
                }
            }
        }
    }

    /// The split-surrogate shapes, every prefix and many corruptions: read alone, as the tree
    /// reads them; kept for a stream and ended, the same texts.
    @Test func splitSurrogateShapesTheirPrefixesAndCorruptionsAgreeWithTheTree() throws {
        let replacements: [UInt8] = [
            0x22, 0x5C, 0x7B, 0x7D, 0x2C, 0x30, 0x38, 0x39, 0x61, 0x63, 0x64, 0x66, 0x44, 0x46, 0x75, 0x5A, 0x00,
            0xED,
        ]
        var state: UInt64 = 0xD1B5_4A32_D192_ED03
        for shape in Self.splitSurrogateShapes {
            let bytes = Array(shape.utf8)
            guard case .chunk = try OpenAIStreamEvent.decodeWithTree(ServerSentEvent(dataBytes: bytes)) else {
                Issue.record("not read as a chunk: \(shape)")
                continue
            }
            for end in 0...bytes.count { differential(Array(bytes[..<end]), "prefix \(end) of \(shape)") }
            for position in bytes.indices {
                for _ in 0..<3 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    var mutated = bytes
                    mutated[position] = replacements[Int(state >> 33) % replacements.count]
                    differential(mutated, "byte \(position) of \(shape) set to \(mutated[position])")
                }
            }
        }
    }

    @Test func edgeCasesAgreeWithTheTree() {
        let deep = String(repeating: "[", count: 511) + String(repeating: "]", count: 511)
        let tooDeep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        let many = (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let cases = [
            #"{"id":"c","choices":[],"x":\#(deep)}"#,
            #"{"object":"error","message":"engine dead","type":"InternalServerError","param":null,"code":500}"#,
            #"{"object":"error","choices":[]}"#,
            #"{"id":"c","choices":[],"x":\#(tooDeep)}"#,
            #"{"id":"c","choices":[],\#(many)}"#,
            #"{"id":"c","choices":[],\#(many),"k7":1}"#,
            #"{"id":"c","choices":[],"x":{"a":1,"a":2}}"#,
            #"{"id":"c","object":"a","object":"b","choices":[]}"#,
            #"{"id":"c","object":"a","\u006fbject":"b","choices":[]}"#,
            #"{"id":"c","\u006fbject":"a","object":"b","choices":[]}"#,
            #"{"id":"c","choices":[],"object":{"a":[1,{"b":null}]}}"#,
            #"{"id":"c","choices":[],"object":}"#,
            #"{"choices":[]} x"#,
            #"{"id":"c","choices":[]}{"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"a","con\u0074ent":"b"}}]}"#,
            #"{"id":"c","choices":[{"index":2147483647}]}"#,
            #"{"id":"c","choices":[{"index":2147483648}]}"#,
            #"{"id":"c","choices":[{"index":-0}]}"#,
            #"{"id":"c","choices":[{"index":1.0}]}"#,
            #"{"id":"c","choices":[{"index":0}],"created":9223372036854775808}"#,
            #"{"id":"c","choices":[{"index":0}],"created":-9223372036854775809}"#,
            #"{"id":"c","choices":[],"created":99999999999999999999999}"#,
            #"{"id":"c","choices":[],"created":9.3e18}"#,
            #"{"id":"c","choices":[],"created":-9.2e18}"#,
            #"{"id":"c","choices":[],"created":1e400}"#,
            #"{"id":"c","choices":[],"created":-0.5}"#,
            #"{"id":"c","choices":[],"created":1.}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":-1}}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":11,"total_tokens":11}}"#,
            #"{"id":"c","choices":[],"usage":{"completion_tokens":2,"total_tokens":5}}"#,
            #"{"id":"c","choices":[],"usage":{}}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":null}}"#,
            #"{"id":"c","choices":[],"x":"\ud83d"}"#,
            #"{"id":"c","choices":[],"x":"\ude00"}"#,
            #"{"id":"c","choices":[],"x":"\ud83d\u0041"}"#,
            #"{"id":"\ud83d\ude00","choices":[]}"#,
            #"{"id":null,"choices":[]}"#,
            #"{"id":"c","choices":null}"#,
            #"{"id":"c","choices":[null]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":null,"finish_reason":null}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":[]}]}"#,
            #"{"id":5,"choices":[],"error":{"message":"m"}}"#,
            #"{"id":"c","choices":[],"error":null}"#,
            #"{"id":"c","choices":[],"\u0065rror":{"message":"m"}}"#,
            #"[1,2]"#,
            #""just text""#,
            "\u{FEFF}{\"id\":\"c\",\"choices\":[]}",
            #"{"id":"c","choices":[]} x"#,
            #"{"id":"c","choices":[],}"#,
            #"{"id":"c","choices":[1,]}"#,
            #"{"\u0069d":"c","id":"c","choices":[]}"#,
            #"{"id":"c","choices":[],"\u0069d":"c"}"#,
            #"{"id":"c","choices":[{"index":0,"index":1}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"reasoning":"a","reasoning":"b"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning_content":"b"}}]}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"total_tokens":3}}"#,
            #"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"completion_tokens":2}}"#,
            #"{"id":"c","choices":[],"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"a":10}"#,
            #"{"id":"c","choices":[],"ab":1,"ba":2,"ab":3}"#,
            #"{"id":"c","choices":[],"object":1,"objecT":2}"#,
            #"{"id" : "c", "choices" : [ { "index" : 0 , "delta" : { "content" : "x" } } ] }"#,
            #"{"id":"c","choices":[{"index":00}]}"#,
            #"{"id":"c","choices":[{"index":01}]}"#,
            #"{"id":"c","choices":[{"index":1e2}]}"#,
            #"{"id":"c","choices":[{"index":1E2}]}"#,
            #"{"id":"c","choices":[{"index":7.}]}"#,
            #"{"id":"c","choices":[{"index":123456789012345678}]}"#,
            #"{"id":"c","choices":[{"index":1234567890123456789012}]}"#,
            #"{"id":"c","choices":[{"index":0 }]}"#,
            #"{"id":"c","choices":[{"index":0"#,
            #"{"id":"c","choices":[{"index":7}],"created":1733000000}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"a\nb\u00e9\u0041"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"plain ascii that runs past eight bytes"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"tab\tand é"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ude00"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"a\ud83db\ude00c\uDBFF\uDFFF\uD800"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d\uZZ12"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d\u00"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d\"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\\ud83d"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"\ud83d","reasoning":"\ude00"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":"\ud83d"}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"arguments":"\ude00x\ud83d"}}]}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"function":{"\u0061rguments":"\ud83d"}},1,{"function":"\ud83d"}]}}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"},"finish_reason":"stop"}]}"#,
            #"{"id":"c","choices":[{"index":0,"delta":{"content":"\ud83d"}}],"x":"\ud83d\x"}"#,
            #"{"id":"c","choices":[],"\ud800":1,"\udbff":2}"#,
        ]
        for text in cases { differential(Array(text.utf8), text) }
        differential([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xC0, 0xAF, 0x22, 0x7D], "overlong")
        differential([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D], "encoded surrogate")
    }

    /// One decoder for a whole stream, as the transport keeps one: what it remembers from
    /// chunk to chunk (the last `id` and `model`, its buffers) never changes what it decodes.
    @Test func aDecoderKeptForAStreamAgreesWithTheTreeOnEveryChunk() {
        var texts = Self.shapes
        for id in [
            "chatcmpl-AAAA", "chatcmpl-AAAB", "chatcmpl-AAAB", "chatcmpl-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d", "x", "c",
        ] {
            for model in ["gpt-4o", "gpt-4o-mini-2024-07-18", "gpt-4o-mini-2024-07-19", "m"] {
                texts.append(#"{"id":"\#(id)","model":"\#(model)","choices":[{"index":0,"delta":{"content":"w"}}]}"#)
                texts.append(#"{"id":"\#(id)","model":null,"choices":[]}"#)
            }
        }
        texts.append(#"{"id":"c\u0061","model":"gpt-4o","choices":[]}"#)
        texts.append(#"{"id":"ca","model":"gpt-4\u006f","choices":[]}"#)
        texts.append(#"{"id":"é","model":"gpt-4o","choices":[]}"#)
        var decoder = ChatCompletionChunkDecoder()
        for text in texts {
            for bytes in [Array(text.utf8), Array(text.utf8.dropLast())] {
                let event = ServerSentEvent(dataBytes: bytes)
                let tree = Result { () throws(JSONError) in try OpenAIStreamEvent.decodeWithTree(event) }
                let stream = Result { () throws(JSONError) in try OpenAIStreamEvent.decode(event, using: &decoder) }
                #expect(stream == tree, "\(text)")
            }
        }
    }

    @Test func errorsNameThePath() {
        var decoder = ChatCompletionChunkDecoder()
        func failure(_ text: String) -> String {
            do {
                let outcome = try decoder.decode(Array(text.utf8))
                return "decoded \(outcome)"
            } catch {
                return error.description
            }
        }
        #expect(
            failure(#"{"id":"c","choices":[{"index":0,"delta":{"content":5}}]}"#)
                == "choices[0].delta.content: expected a string, got a number")
        #expect(
            failure(#"{"id":"c","choices":[{"index":0},{"index":0,"delta":{"content":"a\x"}}]}"#)
                .hasPrefix("choices[1].delta.content: invalid escape '\\x' in a string"))
        #expect(
            failure(#"{"id":"c","choices":[{"index":0,"logprobs":{"content":[1,2,}}]}"#)
                .hasPrefix("choices[0].logprobs.content[2]: unexpected '}'"))
        #expect(
            failure(#"{"id":"c","choices":[{"index":0,"delta":{"role":"a","role":"b"}}]}"#)
                == "choices[0].delta.role: duplicate key 'role'")
        #expect(
            failure(#"{"id":"c","choices":[{"index":4294967296}]}"#)
                == "choices[0].index: integer 4294967296 is outside 0…2147483647")
        #expect(failure(#"{"id":5,"choices":[]}"#) == "id: expected a string, got a number")
        #expect(
            failure(#"{"id":"c","choices":[],"usage":{"prompt_tokens":11,"total_tokens":11}}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "c", choices: [], usage: .init(promptTokens: 11, completionTokens: 0))))"
        )
        #expect(
            failure(#"{"id":"c","choices":[],"usage":{"completion_tokens":2,"total_tokens":5}}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "c", choices: [], usage: .init(promptTokens: 3, completionTokens: 2))))"
        )
        #expect(
            failure(#"{"id":"c","choices":[],"usage":{}}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "c", choices: [])))")
        #expect(
            failure(#"{"id":"c","created":1744857525.9,"choices":[]}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "c", created: 1_744_857_525, choices: [])))"
        )
        #expect(
            failure(#"{"choices":[]}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "", choices: [])))")
        #expect(
            failure(#"{"choices":[{"delta":{"content":"a"}},{"delta":{}}]}"#)
                == "decoded \(ChatCompletionChunkDecoder.Outcome.chunk(.init(id: "", choices: [.init(index: 0, content: "a"), .init(index: 1)])))"
        )
        #expect(
            failure(#"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1.5,"total_tokens":2}}"#)
                == "usage.completion_tokens: expected an integer literal without fraction or exponent, got 1.5")
    }

    @Test func escapesAndUnknownMembersAreReadAsTheTreeReadsThem() throws {
        var decoder = ChatCompletionChunkDecoder()
        let outcome = try decoder.decode(
            Array(
                #"{"x":{"y":[{"z":"}"}]},"\u0069d":"c","choices":[{"index":0,"delta":{"content":"\ud83d\ude00\u00e9\n","tool_calls":[{"function":{"arguments":"{\"a\":[1]}"}}]}}]}"#
                    .utf8))
        #expect(
            outcome
                == .chunk(
                    ChatCompletionChunk(
                        id: "c",
                        choices: [
                            .init(
                                index: 0, content: "😀é\n",
                                toolCalls: [ChatToolCallDelta(index: 0, arguments: #"{"a":[1]}"#)])
                        ])))
        #expect(try decoder.decode(Array(#"{"error":{"message":"m"}}"#.utf8)) == .errorMember)
    }
}
