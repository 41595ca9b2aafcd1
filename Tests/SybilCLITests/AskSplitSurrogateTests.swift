#if canImport(Glibc)
    import Foundation
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` against a server behind a JavaScript gateway that cut the reply by UTF-16
    /// code unit: over a real loopback connection, each emoji's surrogate pair arrives split
    /// between two chunks (`\ud83d` ends one delta, `\ude00` starts the next), in the reasoning
    /// and in the answer. The person sees every emoji whole.
    @Suite("sybil ask: surrogate pairs split between chunks", .timeLimit(.minutes(2)))
    struct AskSplitSurrogateTests {
        static let events = [
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"Hmm \ud83e"},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"\udd14"},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi \ud83d"},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\ude00 there \ud83c"},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"\udf0d"},"finish_reason":null}]}"#,
            #"{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            "[DONE]",
        ]

        @Test func theEmojiArriveWholeInTheReasoningAndTheAnswer() async throws {
            let server = try LoopbackHTTPServer { request, connection in
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                for event in Self.events.map({ "data: \($0)\n\n" }) {
                    connection.write(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
                }
                connection.write("0\r\n\r\n")
            }
            let test = TestIO()
            let status = await test.run([
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "--show-reasoning", "Why?",
            ])
            #expect(status == 0, "\(test.stderr)")
            #expect(test.stdout == "Hmm 🤔\n\nHi 😀 there 🌍\n")
            #expect(!test.stdout.contains("\u{FFFD}"))
        }
    }
#endif
