import SybilCore
import Testing

@testable import SybilWire

/// The chunk decoder's quick way for the common chunk shape against its general way: what the
/// quick way reads, the general way reads the same (and the JSON tree too); everything else it
/// leaves to the general way, so malformed input still fails there, naming the path.
@Suite("Chat chunk decoder: the common shape", .timeLimit(.minutes(2)))
struct ChatChunkCommonShapeTests {
    /// Chunks in the common shape, as OpenAI, vLLM, Ollama and compatible servers stream them,
    /// with the strings the quick way must check (escapes, UTF-8) and the members it may skip.
    static let commonShapes: [String] = [
        #"{"id":"chatcmpl-42","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word5 "},"finish_reason":null}]}"#,
        #"{"id":"chatcmpl-B9","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"Hi \"there\"\n é 😀 \ud83d\ude00"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"k3Fq"}"#,
        #"{"id":"chatcmpl-9f","object":"chat.completion.chunk","created":1733000003,"model":"Qwen/Qwen3-0.6B","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"stop"}]}"#,
        #"{"id":"chatcmpl-512","object":"chat.completion.chunk","created":1733000001,"model":"qwen3:0.6b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"Rayleigh"},"finish_reason":null}]}"#,
        #"{"id":"c\u0061","choices":[{"index":12,"delta":{"role":null,"content":null},"finish_reason":"length"}]}"#,
        #"{"id":"x","object":"o","created":null,"model":null,"service_tier":null,"system_fingerprint":null,"choices":[{"index":2147483647,"delta":{},"finish_reason":"tool_calls"}]}"#,
        #"{"id":"x","created":-9223372036854775808,"model":"m","choices":[{"index":7,"delta":{"role":"assistant"}}]}"#,
        #"{"id":"chatcmpl-C1","object":"chat.completion.chunk","created":1733000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"content_filter"}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"plain ascii that runs well past eight bytes"},"finish_reason":"something new"}]}"#,
    ]

    /// Valid chunks just outside the shape: the general way reads them.
    static let otherShapes: [String] = [
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]} "#,
        #"{ "id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}"#,
        #"{"id":"x","choices":[{"delta":{"content":"a"},"index":0}]}"#,
        #"{"object":"o","id":"x","choices":[{"index":0,"delta":{"content":"a"}}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a","role":"assistant"}}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a","refusal":null}}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"reasoning_content":"a"}}]}"#,
        #"{"id":"x","choices":[],"usage":null}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
        #"{"id":"x","choices":[{"index":0,"delta":null}]}"#,
        #"{"id":"x","choices":[{"index":0}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null,"stop_reason":null}]}"#,
        #"{"id":"x","choices":[{"index":0,"delta":{"content":"a"}}],"x":1}"#,
        #"{"choices":[{"index":0,"delta":{"content":"a"}}],"id":"x"}"#,
    ]

    /// A scanner kept for a whole run, as a decoder keeps one for its stream.
    private struct Scanners {
        var quick = Self.make()
        var general = Self.make()

        static func make() -> ChatCompletionChunkScanner {
            ChatCompletionChunkScanner(
                bytes: UnsafeBufferPointer(start: nil, count: 0), maximumDepth: JSONReader.Limits.standard.maxDepth,
                ownedKeyBytes: [], scratch: [])
        }

        /// The quick way's chunk, or `nil` when it leaves the bytes to the general way.
        mutating func readQuickly(_ bytes: [UInt8]) -> ChatCompletionChunk? {
            bytes.withUnsafeBufferPointer { buffer in
                quick.begin(buffer)
                defer { quick.end() }
                return quick.scanCommonShape()
            }
        }

        /// The general way's chunk, `nil` for an error frame, or its failure as a `JSONError`.
        mutating func readGenerally(_ bytes: [UInt8]) -> Result<ChatCompletionChunk?, JSONError> {
            bytes.withUnsafeBufferPointer { buffer in
                general.begin(buffer)
                defer { general.end() }
                do throws(ChatChunkScanFailure) {
                    return .success(try general.scanDocumentGenerally())
                } catch {
                    return .failure(error.jsonError)
                }
            }
        }
    }

    /// Whether the quick way read `bytes`; when it did, the general way and the JSON tree
    /// read the same chunk.
    @discardableResult
    private func agrees(_ bytes: [UInt8], _ scanners: inout Scanners, _ label: String) -> Bool {
        guard let quick = scanners.readQuickly(bytes) else { return false }
        let general = scanners.readGenerally(bytes)
        #expect(general == .success(quick), "\(label)")
        let tree = Result { () throws(JSONError) in
            try OpenAIStreamEvent.decodeWithTree(ServerSentEvent(dataBytes: bytes))
        }
        #expect(tree == .success(.chunk(quick)), "\(label)")
        return true
    }

    @Test func theCommonShapesTakeTheQuickWayAndReadAsTheGeneralWayReadsThem() {
        var scanners = Scanners()
        for shape in Self.commonShapes {
            #expect(agrees(Array(shape.utf8), &scanners, shape), "not read the quick way: \(shape)")
        }
        // Twice, so that the id, model and members kept from chunk to chunk are used too.
        for shape in Self.commonShapes { agrees(Array(shape.utf8), &scanners, shape) }
    }

    @Test func otherShapesAreLeftToTheGeneralWay() throws {
        var scanners = Scanners()
        for shape in Self.otherShapes {
            #expect(scanners.readQuickly(Array(shape.utf8)) == nil, "\(shape)")
            var decoder = ChatCompletionChunkDecoder()
            let outcome = try decoder.decode(Array(shape.utf8))
            guard case .chunk = outcome else {
                Issue.record("not a chunk: \(shape)")
                continue
            }
        }
    }

    @Test func everyPrefixAndManyCorruptionsAreReadAlikeOrLeftAlone() {
        let replacements: [UInt8] = [
            0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x30, 0x31, 0x2D, 0x2E, 0x65, 0x6E, 0x75, 0x6C,
            0x00, 0x1F, 0x80, 0xC3, 0xED, 0xF4, 0xFF,
        ]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var scanners = Scanners()
        var quick = 0
        for shape in Self.commonShapes {
            let bytes = Array(shape.utf8)
            for end in 0..<bytes.count where agrees(Array(bytes[..<end]), &scanners, "prefix \(end) of \(shape)") {
                quick += 1
            }
            for position in bytes.indices {
                for _ in 0..<4 {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    var mutated = bytes
                    mutated[position] = replacements[Int(state >> 33) % replacements.count]
                    if agrees(mutated, &scanners, "byte \(position) of \(shape) set to \(mutated[position])") {
                        quick += 1
                    }
                }
                // A byte removed and one inserted, which shift every later member.
                var removed = bytes
                removed.remove(at: position)
                agrees(removed, &scanners, "byte \(position) of \(shape) removed")
                var inserted = bytes
                inserted.insert(replacements[position % replacements.count], at: position)
                agrees(inserted, &scanners, "\(replacements[position % replacements.count]) inserted at \(position)")
            }
        }
        // Some corruptions stay in the shape (a digit for a digit, a letter inside a string):
        // the comparison above ran on those too.
        #expect(quick > 0)
    }

    @Test func malformedCommonChunksFailTheGeneralWayNamingThePath() {
        var decoder = ChatCompletionChunkDecoder()
        func failure(_ text: String) -> String {
            do {
                return "decoded \(try decoder.decode(Array(text.utf8)))"
            } catch {
                return error.description
            }
        }
        #expect(
            failure(
                #"{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":5},"finish_reason":null}]}"#
            )
                == "choices[0].delta.content: expected a string, got a number")
        #expect(
            failure(#"{"id":"x","choices":[{"index":0,"delta":{"content":"a\x"},"finish_reason":null}]}"#)
                .hasPrefix("choices[0].delta.content: invalid escape '\\x' in a string"))
        #expect(
            failure(#"{"id":"x","choices":[{"index":-1,"delta":{"content":"a"},"finish_reason":null}]}"#)
                == "choices[0].index: integer -1 is outside 0…2147483647")
        #expect(
            failure(#"{"id":"x","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":7}]}"#)
                == "choices[0].finish_reason: expected a string, got a number")
        #expect(
            failure(#"{"id":"x","model":5,"choices":[{"index":0,"delta":{"content":"a"}}]}"#)
                == "model: expected a string, got a number")
    }
}
