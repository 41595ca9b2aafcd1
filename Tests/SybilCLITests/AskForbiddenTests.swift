#if canImport(Glibc)
    import Foundation
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask` against a server that answers the chat route with 403 (a key without access
    /// to the model or project, as OpenAI and its proxies answer): the key was refused, exit 77
    /// as for a 401, with the server's message; not 76, which says the reply broke off.
    @Suite("sybil ask: a 403 is a refused key", .timeLimit(.minutes(2)))
    struct AskForbiddenTests {
        @Test func aForbiddenChatRouteExits77WithTheServersMessage() async throws {
            let server = try LoopbackHTTPServer { request, connection in
                let body =
                    #"{"error":{"message":"You are not allowed to sample from this model","type":"invalid_request_error","code":"model_not_allowed"}}"#
                connection.write(
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n" + body)
            }
            let test = TestIO()
            let status = await test.run([
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "Hi",
            ])
            #expect(status == 77, "\(test.stderr)")
            #expect(test.stderr.contains("You are not allowed to sample from this model"), "\(test.stderr)")
        }
    }
#endif
