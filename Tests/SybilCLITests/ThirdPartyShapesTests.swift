#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    /// `sybil ask` against the exact bytes OpenAI-compatible servers this project did not write
    /// send: each test's loopback server answers a chat request the way one of them does.
    @Suite("sybil ask against third-party reply shapes", .timeLimit(.minutes(2)))
    struct ThirdPartyShapesTests {
        /// A server answering every chat request with `status`, `contentType` and `body`.
        private static func server(status: String = "200 OK", contentType: String = "text/event-stream", body: String)
            throws -> LoopbackHTTPServer
        {
            try LoopbackHTTPServer { request, connection in
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 \(status)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.utf8.count)\r\n"
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
    }
#endif
