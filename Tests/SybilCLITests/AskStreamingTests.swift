#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilNet
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` against a server that streams reasoning, then content, then a length finish
    /// and a usage chunk: `--json`, `--show-reasoning`, the note on a cut reply, the spinner.
    @Suite("sybil ask streaming reasoning and finish", .timeLimit(.minutes(2)))
    struct AskStreamingTests {
        static let events = [
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"Let me "},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"think."},"finish_reason":null}],"obfuscation":"x1"}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Blue "},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"sky."},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"length"}],"timings":{"predicted_n":2}}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}"#,
            "[DONE]",
        ]

        /// A server streaming ``events``; each chat request first waits for `before` (a
        /// test's signal), when given.
        static func server(before: (@Sendable () -> Void)? = nil) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /healthz") {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                    return
                }
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                before?()
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                for event in events.map({ "data: \($0)\n\n" }) {
                    connection.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                }
                connection.write("0\r\n\r\n")
            }
        }

        private func ask(_ server: LoopbackHTTPServer, _ options: String..., test: TestIO = TestIO()) async -> Int32 {
            await test.run(
                ["ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m"] + options + ["Why?"])
        }

        @Test func jsonWritesOneObjectWithTextReasoningFinishAndUsageAndNothingElse() async throws {
            let server = try Self.server()
            let test = TestIO()
            #expect(await ask(server, "--json", test: test) == 0)
            #expect(test.stdout.hasSuffix("}\n") && test.stdout.filter { $0 == "\n" }.count == 1)
            let result = try AskResult.decode(JSONReader().parse(Array(test.stdout.utf8)))
            #expect(result.model == "m" && result.text == "Blue sky." && result.reasoning == "Let me think.")
            #expect(result.finishReason == "length")
            #expect(result.usage == ChatDelta.Usage(promptTokens: 5, completionTokens: 2, totalTokens: 7))
            #expect(result.conversationId != nil)
            #expect(test.stderr.contains("sybil ask: the reply was cut at the model's token limit\n"))
        }

        @Test func showReasoningPrintsItPlainBeforeTheAnswerThroughAPipe() async throws {
            let server = try Self.server()
            let test = TestIO()
            #expect(await ask(server, "--show-reasoning", test: test) == 0)
            #expect(test.stdout == "Let me think.\n\nBlue sky.\n")
            #expect(test.stderr.contains("the reply was cut at the model's token limit"))
        }

        @Test func withoutOptionsAPipeGetsOnlyTheAnswerAndTheLengthNoteGoesToStandardError() async throws {
            let server = try Self.server()
            let test = TestIO()
            #expect(await ask(server, test: test) == 0)
            #expect(test.stdout == "Blue sky.\n")
            #expect(test.stderr.contains("sybil ask: the reply was cut at the model's token limit\n"))
        }

        @Test func jsonExcludesShowReasoningAndRaw() async throws {
            for other in ["--show-reasoning", "--raw"] {
                let test = TestIO()
                #expect(await test.run("ask", "--json", other, "Why?") == 64)
                #expect(test.stderr.contains("--json and \(other) exclude each other"))
                #expect(test.stdout.isEmpty)
            }
        }

        @Test func onATerminalTheSpinnerDrawsUntilTheReasoningArrivesThenThinkingGivesWayToTheAnswer() async throws {
            let status = Locked<[String]>([])
            let drawn = DispatchSemaphore(value: 0)
            // The server answers only once the spinner has drawn a frame, so the test does not
            // race the first frame against the first token.
            let server = try Self.server(before: { _ = drawn.wait(timeout: .now() + 30) })
            let test = TestIO(environment: ["NO_COLOR": "1"], terminal: (40, 20))
            let line = TerminalOutput.StatusLine { text in
                let first = status.withLock { lines in
                    lines.append(text)
                    return lines.count == 1
                }
                if first { drawn.signal() }
            }
            let exit = await TerminalOutput.$statusLine.withValue(line) { await ask(server, test: test) }
            #expect(exit == 0)
            let lines = status.withLock { $0 }
            let first = try #require(lines.first)
            #expect(first.hasPrefix("\r") && first.hasSuffix("s\u{1B}[K"))
            #expect(WaitingSpinner.frames.contains { first.hasPrefix("\r\($0) ") })
            #expect(lines.last == "\r\u{1B}[K", "erased when the first reasoning arrived")
            #expect(test.stdout.hasPrefix("thinking…"))
            #expect(VirtualTerminal.screen(test.stdout, columns: 40).text == "Blue sky.\n")
        }

        @Test func whileTheWarmUpGateWaitsTheSpinnerSaysTheServiceIsWaking() async throws {
            let status = Locked<[String]>([])
            let waking = DispatchSemaphore(value: 0)
            // The health check is answered only once the spinner said "waking the service".
            let server = try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /healthz") || request.requestLine.hasPrefix("GET /v1/models") {
                    _ = waking.wait(timeout: .now() + 30)
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
                    return
                }
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                let event = "data: " + Self.events[3] + "\n\n" + "data: [DONE]\n\n"
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: \(event.utf8.count)\r\n\r\n"
                        + event)
            }
            let line = TerminalOutput.StatusLine { text in
                status.withLock { $0.append(text) }
                if text.contains(WaitingSpinner.wakingText) { waking.signal() }
            }
            let test = TestIO(environment: ["NO_COLOR": "1"], terminal: (40, 20))
            let exit = await TerminalOutput.$statusLine.withValue(line) { await ask(server, test: test) }
            #expect(exit == 0)
            #expect(status.withLock { $0 }.contains { $0.contains("waking the service") })
            #expect(status.withLock { $0.last } == "\r\u{1B}[K")
        }

        @Test func theDocumentedExampleDecodes() throws {
            let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../docs/cli-json.md").standardized
            let document = try String(contentsOf: url, encoding: .utf8)
            let section = try #require(document.components(separatedBy: "## sybil ask --json").dropFirst().first)
            let block = try #require(section.components(separatedBy: "```json\n").dropFirst().first)
            let example = try #require(block.components(separatedBy: "```").first)
            let value = try JSONReader().parse(Array(example.utf8))
            let result = try AskResult.decode(value)
            #expect(result.finishReason == "length" && result.usage?.totalTokens == 78)
            #expect(result.jsonValue == value, "the example is the shape written, member for member")
        }

        @Test func theObjectIsStrict() throws {
            let good = AskResult(
                conversationId: nil, model: "m", text: "", reasoning: nil, finishReason: nil, usage: nil)
            #expect(try AskResult.decode(good.jsonValue) == good)
            guard case .object(let object) = good.jsonValue else { return }
            let extra = JSONValue.object(JSONObject(object.members + [JSONMember("more", .null)]))
            #expect(throws: JSONError.self) { try AskResult.decode(extra) }
            let missing = JSONValue.object(JSONObject(object.members.dropLast()))
            #expect(throws: JSONError.self) { try AskResult.decode(missing) }
        }
    }
#endif
