#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilNet
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` against the exact bytes OpenAI-compatible servers this project did not write
    /// send: each test's loopback server answers a chat request the way one of them does.
    @Suite("sybil ask against third-party reply shapes", .timeLimit(.minutes(2)))
    struct ThirdPartyShapesTests {
        /// A server answering every chat request with `status`, `contentType` (none when `nil`) and
        /// `body`.
        private static func server(status: String = "200 OK", contentType: String? = "text/event-stream", body: String)
            throws -> LoopbackHTTPServer
        {
            let typeField = contentType.map { "Content-Type: \($0)\r\n" } ?? ""
            return try LoopbackHTTPServer { request, connection in
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 \(status)\r\n\(typeField)Content-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n" + body)
            }
        }

        private func ask(_ server: LoopbackHTTPServer, test: TestIO) async -> Int32 {
            await test.run("ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "Hallo?")
        }

        /// Gemini's OpenAI-compatible endpoint streamed chunks without a top-level `id`; the
        /// openai SDKs read them (several had to make `id` optional to do so).
        @Test func chunksWithoutAnIdAsGeminiSendsThemAreRead() async throws {
            let server = try Self.server(
                body: """
                    data: {"choices":[{"delta":{"content":"Hallo","role":"assistant"},"index":0}],"created":1747469284,"model":"gemini-2.0-flash","object":"chat.completion.chunk"}

                    data: {"choices":[{"delta":{"content":" Welt","role":"assistant"},"finish_reason":"stop","index":0}],"created":1747469284,"model":"gemini-2.0-flash","object":"chat.completion.chunk","usage":{"completion_tokens":2,"prompt_tokens":3,"total_tokens":5}}

                    data: [DONE]


                    """)
            let test = TestIO()
            #expect(await ask(server, test: test) == 0, "stderr: \(test.stderr)")
            #expect(test.stdout == "Hallo Welt\n")
        }

        /// SambaNova and Parasail (and LiteLLM 1.41.15) send `created` with a fraction of a second.
        @Test func aCreatedTimeWithAFractionAsSambaNovaSendsItIsRead() async throws {
            let server = try Self.server(
                body: """
                    data: {"choices":[{"delta":{"content":"Bruchteil","role":"assistant"},"finish_reason":null,"index":0,"logprobs":null}],"created":1744857525.254391,"id":"7ab7172c","model":"Meta-Llama-3.3-70B-Instruct","object":"chat.completion.chunk","system_fingerprint":"fastcoe"}

                    data: {"choices":[{"delta":{},"finish_reason":"stop","index":0,"logprobs":null}],"created":1744857525.3,"id":"7ab7172c","model":"Meta-Llama-3.3-70B-Instruct","object":"chat.completion.chunk","system_fingerprint":"fastcoe"}

                    data: [DONE]


                    """)
            let test = TestIO()
            #expect(await ask(server, test: test) == 0, "stderr: \(test.stderr)")
            #expect(test.stdout == "Bruchteil\n")
        }

        /// `sybil models --json` escapes the C1 controls in a server's model ids (U+009B is a
        /// terminal's CSI) as it escapes ESC: no server's text reaches a terminal raw.
        @Test func modelsJSONEscapesC1ControlsInAModelID() async throws {
            let body = #"{"object":"list","data":[{"id":"gut\u001b[2J\u009b2Jrot","object":"model","owned_by":"x"}]}"#
            let server = try LoopbackHTTPServer { _, connection in
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n" + body)
            }
            let test = TestIO()
            #expect(await test.run("models", "--api-url", server.url.absoluteString, "--json") == 0, "\(test.stderr)")
            #expect(test.stdout.contains(#""id":"gut\u001b[2J\u009b2Jrot""#), "\(test.stdout)")
            #expect(!test.stdout.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x1B })
        }

        /// Databricks leaves `total_tokens` out of a chunk's usage: the last chunk, with the
        /// finish reason, is still read, and the total is the sum.
        @Test func aUsageWithoutItsTotalAsDatabricksSendsItIsRead() async throws {
            let server = try Self.server(
                body: """
                    data: {"id":"d","choices":[{"index":0,"delta":{"role":"assistant","content":"Summe"}}]}

                    data: {"id":"d","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}

                    data: [DONE]


                    """)
            let test = TestIO()
            #expect(
                await test.run(
                    "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "--json", "Hallo?")
                    == 0,
                "stderr: \(test.stderr)")
            let result = try AskResult.decode(try JSONReader().parse(Array(test.stdout.utf8)))
            #expect(result.text == "Summe")
            #expect(result.usage == ChatDelta.Usage(promptTokens: 3, completionTokens: 1, totalTokens: 4))
        }

        /// A choice without `index` (one choice, as small servers and proxies send it) is the
        /// choice at its position.
        @Test func aChoiceWithoutAnIndexIsRead() async throws {
            let server = try Self.server(
                body: """
                    data: {"id":"a","choices":[{"delta":{"content":"Ohne Index"}}]}

                    data: {"id":"a","choices":[{"delta":{},"finish_reason":"stop"}]}

                    data: [DONE]


                    """)
            let test = TestIO()
            #expect(await ask(server, test: test) == 0, "stderr: \(test.stderr)")
            #expect(test.stdout == "Ohne Index\n")
        }

        /// A 404 from a base URL with a path of its own (`--api-url`, where nothing states the
        /// prefix) says where the routes were asked and how a profile finds them; a 404 from a
        /// root base URL says nothing more.
        @Test func a404UnderABaseURLWithAPathSaysWhereTheRoutesWereAsked() async throws {
            let server = try Self.server(
                status: "404 Not Found", contentType: "application/json",
                body: #"[{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}]"#)
            let prefixed = TestIO()
            let base = server.url.absoluteString + "/v1beta/openai/"
            #expect(await prefixed.run("ask", "--no-save", "--api-url", base, "--model", "m", "Hallo?") != 0)
            #expect(
                prefixed.stderr.contains(
                    "The routes were asked under \(server.url.absoluteString)/v1beta/openai/v1/; if the base URL is"
                        + " their whole prefix, as the OpenAI SDKs take it (Gemini's …/v1beta/openai/), add it with"
                        + " `sybil profile add NAME --base-url URL`, which finds where they are."),
                "\(prefixed.stderr)")
            let root = TestIO()
            #expect(await ask(server, test: root) != 0)
            #expect(root.stderr.contains("(404)"), "\(root.stderr)")
            #expect(!root.stderr.contains("The routes were asked under"), "\(root.stderr)")
        }

        /// vLLM before 0.10 (and FastChat, SGLang) answer a failed request with a top-level
        /// `{"object": "error", "message": …}`: its message is the reason the person needs.
        @Test func vLLMsTopLevelErrorMessageIsShown() async throws {
            let server = try Self.server(
                status: "400 Bad Request", contentType: "application/json",
                body:
                    #"{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","param":null,"code":400}"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(
                test.stderr
                    == "sybil ask: The request was not accepted (400): This model's maximum context length is 4096 tokens."
                    + " Check the server address and model, then retry.\n")
        }

        /// Gemini's OpenAI-compatible endpoint sends its error as the one element of an array,
        /// with Google's `status` and a `details` array: its message is the reason shown.
        @Test func geminisErrorInAnArrayIsShown() async throws {
            let server = try Self.server(
                status: "400 Bad Request", contentType: "application/json",
                body:
                    #"[{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"reasoning\": Cannot find field.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"Unknown name"}]}]}}]"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(
                test.stderr.contains(
                    #"(400): Invalid JSON payload received. Unknown name "reasoning": Cannot find field."#),
                "\(test.stderr)")
        }

        /// Google's error object with a `details` array, not in an array (its native API and some
        /// gateways): the message is shown.
        @Test func anErrorObjectWithADetailsArrayIsShown() async throws {
            let server = try Self.server(
                status: "429 Too Many Requests", contentType: "application/json",
                body:
                    #"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[]}}"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(
                test.stderr.contains("answered 429: Resource has been exhausted (e.g. check quota)."), "\(test.stderr)")
        }

        /// Hugging Face TGI answers `{"error": "text", "error_type": …}`, with 422 for a request
        /// it refuses: the text is shown, and the advice is not to wait and send it again.
        @Test func tgisStringErrorIsShownAndA422IsNotToBeRetriedUnchanged() async throws {
            let server = try Self.server(
                status: "422 Unprocessable Entity", contentType: "application/json",
                body:
                    #"{"error":"Input validation error: `inputs` must have less than 4096 tokens","error_type":"validation"}"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(
                test.stderr
                    == "sybil ask: The chat service answered 422: Input validation error: `inputs` must have less than 4096"
                    + " tokens. Check the server address and model, then retry.\n")
        }

        /// FastAPI servers refuse a body's fields with `{"detail": [{"loc": …, "msg": …}]}`.
        @Test func fastAPIsDetailListIsShown() async throws {
            let server = try Self.server(
                status: "422 Unprocessable Entity", contentType: "application/json",
                body:
                    #"{"detail":[{"loc":["body","messages",0,"content"],"msg":"field required","type":"value_error.missing"}]}"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(test.stderr.contains("answered 422: body.messages.0.content: field required."), "\(test.stderr)")
        }

        /// TGI reports a failure during generation as a data frame `{"error": "text"}`.
        @Test func tgisErrorFrameMidStreamIsShownAsTheServersError() async throws {
            let server = try Self.server(
                body: """
                    data: {"id":"a","choices":[{"index":0,"delta":{"content":"Hal"}}]}

                    data:{"error":"Request failed during generation: CUDA out of memory","error_type":"generation"}


                    """)
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(test.stdout == "Hal\n")
            #expect(
                test.stderr
                    == "sybil ask: The reply stopped with an error: Request failed during generation: CUDA out of memory."
                    + " Retry to ask again.\n")
        }

        /// Servers that ignore `"stream": true` (or proxies that buffer and re-encode) answer
        /// with the whole `chat.completion`: the answer is shown, not "did not stream".
        @Test func aWholeCompletionForAStreamedRequestIsShown() async throws {
            let server = try Self.server(
                contentType: "application/json",
                body:
                    #"{"id":"chatcmpl-1","object":"chat.completion","created":1733000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Ganz auf einmal"},"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"completion_tokens":3,"total_tokens":7}}"#
            )
            let test = TestIO()
            #expect(await ask(server, test: test) == 0, "stderr: \(test.stderr)")
            #expect(test.stdout == "Ganz auf einmal\n")
        }

        /// A hand-written server that streams events without a `Content-Type` is read as a stream.
        @Test func eventsWithoutAContentTypeAreRead() async throws {
            let server = try Self.server(
                contentType: nil,
                body: """
                    data: {"id":"a","choices":[{"index":0,"delta":{"content":"Ohne"}}]}

                    data: {"id":"a","choices":[{"index":0,"delta":{"content":" Typ"},"finish_reason":"stop"}]}

                    data: [DONE]


                    """)
            let test = TestIO()
            #expect(await ask(server, test: test) == 0, "stderr: \(test.stderr)")
            #expect(test.stdout == "Ohne Typ\n")
        }

        /// A proxy's HTML page in a 200 is still refused, naming its type.
        @Test func anHTMLPageInA200IsRefusedNamingItsType() async throws {
            let server = try Self.server(contentType: "text/html", body: "<html><body>Login</body></html>")
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(test.stderr.contains("content type text/html"), "\(test.stderr)")
        }

        /// A 413 is not cured by waiting: the advice says to send less.
        @Test func a413AdvisesSendingLess() async throws {
            let server = try Self.server(
                status: "413 Payload Too Large", contentType: "application/json",
                body: #"{"error":{"message":"Request too large","type":"invalid_request_error"}}"#)
            let test = TestIO()
            #expect(await ask(server, test: test) == 76)
            #expect(
                test.stderr
                    == "sybil ask: The chat service answered 413: Request too large. Send less (a shorter question or"
                    + " fewer attachments), then retry.\n")
        }
    }
#endif
