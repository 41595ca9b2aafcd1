import Foundation
import SybilCore
import SybilWire
import Testing

@testable import SybilServer

@Suite("Chat completions: OpenAI parameters, usage and models", .timeLimit(.minutes(2)))
struct ChatParametersTests {
    private let prompt = "Was ist ein Kaltstart?"

    private func body(_ extra: String = "", stream: Bool = false) -> String {
        #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": "\#(prompt)"}], "stream": \#(stream)\#(extra)}"#
    }

    /// The scripted reply's tokens for the prompt.
    private var tokens: [String] { ScriptedAgent(seed: 1).reply(to: prompt).tokens }

    private func whole(_ extra: String = "") async throws -> JSONValue {
        let response = try await AppHarness().send("POST", "/v1/chat/completions", json: body(extra))
        #expect(response.status == 200)
        return try json(response)
    }

    @Test func aWholeReplyCarriesUsageByTheDocumentedRule() async throws {
        let reply = try await whole()
        // "Was ist ein Kaltstart?": 4 words and 1 for the message.
        #expect(
            reply["usage"] == [
                "prompt_tokens": 5, "completion_tokens": .number(JSONNumber(Int64(tokens.count))),
                "total_tokens": .number(JSONNumber(Int64(5 + tokens.count))),
            ])
    }

    @Test func aStreamWithIncludeUsageEndsWithAUsageChunkBeforeDone() async throws {
        let response = try await AppHarness().send(
            "POST", "/v1/chat/completions", json: body(#", "stream_options": {"include_usage": true}"#, stream: true))
        let decoded = try events(await collect(response)).map(OpenAIStreamEvent.decode)
        #expect(decoded.last == .done)
        guard case .chunk(let usage) = decoded.dropLast().last, case .chunk(let finish) = decoded.dropLast(2).last
        else {
            Issue.record("expected the finish and usage chunks before [DONE]")
            return
        }
        #expect(finish.choices.first?.finishReason == .stop)
        #expect(usage.choices.isEmpty)
        #expect(usage.usage == ChatCompletionUsage(promptTokens: 5, completionTokens: Int64(tokens.count)))
        let without = try events(
            await collect(try await AppHarness().send("POST", "/v1/chat/completions", json: body(stream: true)))
        ).map(OpenAIStreamEvent.decode)
        #expect(!without.contains { if case .chunk(let chunk) = $0 { chunk.usage != nil } else { false } })
    }

    @Test("max_tokens cuts the reply with finish_reason length", arguments: ["max_tokens", "max_completion_tokens"])
    func maxTokens(member: String) async throws {
        let cut = try await whole(#", "\#(member)": 3"#)
        #expect(cut["choices"][0]["message"]["content"].string == tokens.prefix(3).joined())
        #expect(cut["choices"][0]["finish_reason"].string == "length")
        #expect(cut["usage"]["completion_tokens"].int == 3)
        let exact = try await whole(#", "\#(member)": \#(tokens.count)"#)
        #expect(exact["choices"][0]["finish_reason"].string == "stop", "exactly enough tokens is not a cut")
        let oneShort = try await whole(#", "\#(member)": \#(tokens.count - 1)"#)
        #expect(oneShort["choices"][0]["finish_reason"].string == "length")
    }

    @Test func theSmallerOfBothTokenLimitsApplies() async throws {
        let reply = try await whole(#", "max_tokens": 5, "max_completion_tokens": 2"#)
        #expect(reply["usage"]["completion_tokens"].int == 2)
    }

    @Test func stopEndsTheReplyBeforeTheFirstStopSequence() async throws {
        let text = tokens.joined()
        let second = tokens[1].trimmingCharacters(in: .whitespaces)
        let reply = try await whole(#", "stop": ["zzz-never", \#(JSONWriter.quoted(second))]"#)
        let expected = String(text[..<text.firstRange(of: second)!.lowerBound])
        #expect(reply["choices"][0]["message"]["content"].string == expected)
        #expect(reply["choices"][0]["finish_reason"].string == "stop")
        let single = try await whole(#", "stop": \#(JSONWriter.quoted(second))"#)
        #expect(single["choices"][0]["message"]["content"].string == expected)
        // A stop sequence past the token limit does not apply: the limit cuts first.
        let limited = try await whole(#", "max_tokens": 1, "stop": \#(JSONWriter.quoted(second))"#)
        #expect(limited["choices"][0]["finish_reason"].string == "length")
    }

    @Test func aStreamHonoursTheLimitsToo() async throws {
        let response = try await AppHarness().send(
            "POST", "/v1/chat/completions", json: body(#", "max_tokens": 2"#, stream: true))
        let decoded = try events(await collect(response)).map(OpenAIStreamEvent.decode)
        var text = ""
        var finish: ChatCompletionChunk.FinishReason?
        for case .chunk(let chunk) in decoded {
            text += chunk.content
            finish = chunk.choices.first?.finishReason ?? finish
        }
        #expect(text == tokens.prefix(2).joined())
        #expect(finish == .length)
    }

    @Test(
        "accepted values at their bounds",
        arguments: [
            #""max_tokens": 1"#, #""max_tokens": 4096"#, #""temperature": 0"#, #""temperature": 2"#,
            #""temperature": 0.7"#, #""top_p": 0"#, #""top_p": 1"#, #""presence_penalty": -2"#,
            #""frequency_penalty": 2"#, #""seed": -5"#, #""n": 1"#, #""user": "u-1""#, #""stop": ["a", "b", "c", "d"]"#,
            #""stop": null"#, #""n": null"#, #""stream_options": null"#, #""logprobs": false"#,
        ])
    func acceptedBounds(member: String) async throws {
        let response = try await AppHarness().send("POST", "/v1/chat/completions", json: body(", " + member))
        #expect(response.status == 200, "\(member)")
    }

    @Test(
        "refused values name the member",
        arguments: [
            (#""max_tokens": 0"#, "max_tokens"), (#""max_tokens": 4097"#, "max_tokens"),
            (#""max_tokens": 2.5"#, "max_tokens"), (#""max_completion_tokens": -1"#, "max_completion_tokens"),
            (#""temperature": -0.01"#, "temperature"), (#""temperature": 2.01"#, "temperature"),
            (#""temperature": "hot""#, "temperature"), (#""top_p": 1.01"#, "top_p"), (#""top_p": -0.1"#, "top_p"),
            (#""presence_penalty": -2.1"#, "presence_penalty"), (#""frequency_penalty": 2.1"#, "frequency_penalty"),
            (#""seed": 1.5"#, "seed"), (#""n": 2"#, "n"), (#""n": 0"#, "n"), (#""n": "1""#, "n"),
            (#""user": 5"#, "user"), (#""stop": ["a", "b", "c", "d", "e"]"#, "stop"), (#""stop": [""]"#, "stop"),
            (#""stop": 7"#, "stop"), (#""stop": [7]"#, "stop"),
            (#""stream_options": {"include_usage": true}"#, "stream_options"),
        ])
    func refusedValues(member: String, param: String) async throws {
        let response = try await AppHarness().send("POST", "/v1/chat/completions", json: body(", " + member))
        #expect(response.status == 400, "\(member)")
        #expect(try APIErrorBody.decode(json(response), at: .root).param == param, "\(member)")
    }

    @Test func streamOptionsAreCheckedStrictlyWithStream() async throws {
        for (options, param) in [
            (#""stream_options": true"#, "stream_options"),
            (#""stream_options": {"include_usage": "yes"}"#, "stream_options.include_usage"),
        ] {
            let response = try await AppHarness().send(
                "POST", "/v1/chat/completions", json: body(", " + options, stream: true))
            #expect(response.status == 400)
            #expect(try APIErrorBody.decode(json(response), at: .root).param == param)
        }
    }

    @Test func longStopAndUserValuesAreRefusedPastTheirByteBound() async throws {
        let atBound = String(repeating: "x", count: 256)
        let over = atBound + "x"
        for (member, status) in [
            (#""stop": "\#(atBound)""#, 200), (#""stop": "\#(over)""#, 400), (#""user": "\#(atBound)""#, 200),
            (#""user": "\#(over)""#, 400),
        ] {
            let response = try await AppHarness().send("POST", "/v1/chat/completions", json: body(", " + member))
            #expect(response.status == status)
        }
    }

    @Test func textAndImagePartsAreAcceptedAndOtherPartsRefusedByName() async throws {
        let harness = try AppHarness()
        let parts =
            #"{"model": "chat-latest", "messages": [{"role": "user", "content": [{"type": "text", "text": "Was ist "}, {"type": "text", "text": "ein Kaltstart?"}]}]}"#
        let reply = try json(await harness.send("POST", "/v1/chat/completions", json: parts))
        let plain = try await whole()
        #expect(reply["choices"][0]["message"]["content"] == plain["choices"][0]["message"]["content"])
        #expect(reply["model"].string == "chat-latest")
        let image =
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]}"#
        #expect(await harness.send("POST", "/v1/chat/completions", json: image).status == 200)
        let brokenImage =
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}]}"#
        let broken = await harness.send("POST", "/v1/chat/completions", json: brokenImage)
        #expect(broken.status == 400)
        #expect(try APIErrorBody.decode(json(broken), at: .root).param == "messages[0].content[0].image_url")
        let audio =
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "input_audio", "input_audio": {"data": "x"}}]}]}"#
        let refused = await harness.send("POST", "/v1/chat/completions", json: audio)
        #expect(refused.status == 400)
        let error = try APIErrorBody.decode(json(refused), at: .root)
        #expect(error.param == "messages[0].content[1].type")
        #expect(error.code == "unsupported_content")
        let notText =
            #"{"model": "sybil-scripted", "messages": [{"role": "user", "content": [{"type": "text", "text": 1}]}]}"#
        #expect(
            try APIErrorBody.decode(json(await harness.send("POST", "/v1/chat/completions", json: notText)), at: .root)
                .param == "messages[0].content[0].text")
    }

    @Test func modelsListInOpenAIShapeAndEachModelByID() async throws {
        let harness = try AppHarness()
        let list = try json(await harness.send("GET", "/v1/models"))
        #expect(list["object"].string == "list")
        #expect(list["data"].array?.compactMap { $0["id"].string } == ["sybil-scripted", "chat-latest"])
        #expect(
            list["data"][1] == ["id": "chat-latest", "object": "model", "created": 1_735_689_600, "owned_by": "sybil"])
        let one = try json(await harness.send("GET", "/api/v1/models/chat-latest"))
        #expect(one["id"].string == "chat-latest")
        let missing = await harness.send("GET", "/v1/models/gpt-9")
        #expect(missing.status == 404)
        #expect(try APIErrorBody.decode(json(missing), at: .root).code == "model_not_found")
        #expect(await harness.send("GET", "/v1/models", authorization: nil).status == 401)
    }
}
