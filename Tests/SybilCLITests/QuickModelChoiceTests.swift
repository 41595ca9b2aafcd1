#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilTesting
    import Testing

    /// `sybil quick` against a server that lists its models: Quick Question's model (chat-latest
    /// unless another is kept) is asked only when the server lists it; otherwise the profile's
    /// model, else the server's first, is asked, and standard error says which.
    @Suite("sybil quick: a model the server lists", .timeLimit(.minutes(2)))
    struct QuickModelChoiceTests {
        /// Lists `models`; answers every chat with one delta. Each answer closes its connection
        /// and says so, so that no request is sent on a connection the server is closing.
        private func server(listing models: [String]) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /v1/models ") {
                    let data = models.map { #"{"id":"\#($0)","object":"model","owned_by":"me"}"# }
                    let body = #"{"object":"list","data":["# + data.joined(separator: ",") + "]}"
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                            + "Connection: close\r\n\r\n\(body)"
                    )
                } else if request.requestLine.hasPrefix("POST /v1/chat/completions ") {
                    let chunk =
                        #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hallo"},"finish_reason":"stop"}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                            + "data: \(chunk)\n\ndata: [DONE]\n\n")
                } else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                }
            }
        }

        private func chatModels(_ server: LoopbackHTTPServer) -> [String] {
            server.received.filter { $0.requestLine.hasPrefix("POST") }.map { OpenAIPeer.model(in: $0.body) }
        }

        private func withHome(_ body: ([String: String]) async throws -> Void) async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-quick-\(UUID())").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await body(["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
        }

        @Test func aModelTheServerDoesNotListIsReplacedByItsFirstAndNamed() async throws {
            let server = try server(listing: ["llama3.2", "qwen3"])
            try await withHome { environment in
                let test = TestIO(environment: environment)
                #expect(await test.run("quick", "--api-url", server.url.absoluteString, "Hi") == 0, "\(test.stderr)")
                #expect(test.stdout.contains("Hallo"))
                #expect(chatModels(server) == ["llama3.2"])
                #expect(
                    test.stderr.contains(
                        "sybil quick: the server does not list chat-latest; asking llama3.2, the server's first model"
                    ))
            }
        }

        @Test func aProfilesModelIsPreferredToTheServersFirst() async throws {
            let server = try server(listing: ["llama3.2", "qwen3"])
            try await withHome { environment in
                let setup = TestIO(environment: environment)
                #expect(
                    await setup.run(
                        "profile", "add", "local", "--base-url", server.url.absoluteString, "--model", "qwen3") == 0)
                let test = TestIO(environment: environment)
                #expect(await test.run("quick", "Hi") == 0, "\(test.stderr)")
                #expect(chatModels(server) == ["qwen3"])
                #expect(test.stderr.contains("asking qwen3, the profile's model"))
            }
        }

        @Test func aListedOrGivenModelIsAskedAsItIs() async throws {
            let server = try server(listing: ["m1", "chat-latest"])
            try await withHome { environment in
                let listed = TestIO(environment: environment)
                #expect(
                    await listed.run("quick", "--api-url", server.url.absoluteString, "Hi") == 0, "\(listed.stderr)")
                let given = TestIO(environment: environment)
                #expect(
                    await given.run("quick", "--api-url", server.url.absoluteString, "--model", "other", "Hi") == 0,
                    "\(given.stderr)")
                #expect(chatModels(server) == ["chat-latest", "other"])
                #expect(!listed.stderr.contains("does not list") && !given.stderr.contains("does not list"))
            }
        }
    }
#endif
