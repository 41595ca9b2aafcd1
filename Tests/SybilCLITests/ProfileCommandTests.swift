#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilClient
    import SybilCore
    import SybilTesting
    import Testing

    /// Connecting a model: profiles in config.toml, base URLs with or without /v1, no key where
    /// none is needed, and the server's first model when none is named.
    @Suite("sybil profile and models against an OpenAI-compatible server", .timeLimit(.minutes(2)))
    struct ProfileCommandTests {
        /// A keyless OpenAI-compatible server: two models, and a streamed reply naming the model.
        private func openAIServer() throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /v1/models ") {
                    let body =
                        #"{"object":"list","data":[{"id":"llama3.2","object":"model","owned_by":"library"},{"id":"qwen","object":"model","created":1}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                } else if request.requestLine.hasPrefix("POST /v1/chat/completions ") {
                    var model = "?"
                    if case .object(let object)? = try? JSONReader().parse(request.body),
                        case .string(let name)? = object["model"]
                    {
                        model = name
                    }
                    let chunk =
                        #"{"id":"c1","object":"chat.completion.chunk","model":"\#(model)","choices":[{"index":0,"delta":{"content":"Hallo from \#(model)"},"finish_reason":null}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: \(chunk)\n\ndata: [DONE]\n\n")
                } else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                }
            }
        }

        private func withConfigHome(_ body: (String) async throws -> Void) async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-profile-\(UUID())").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await body(home)
        }

        @Test func aProfileWithoutAKeyAsksTheServersFirstModelWithoutAuthorization() async throws {
            let server = try openAIServer()
            try await withConfigHome { home in
                let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"]
                let add = TestIO(environment: environment)
                #expect(
                    await add.run("profile", "add", "local", "--base-url", "http://127.0.0.1:\(server.port)/v1/") == 0)
                let config = try String(contentsOfFile: home + "/config/sybil/config.toml", encoding: .utf8)
                #expect(config.contains("default_profile = \"local\""))
                #expect(config.contains("base_url = \"http://127.0.0.1:\(server.port)\""), "the /v1/ is dropped")
                let ask = TestIO(environment: environment)
                #expect(await ask.run("ask", "--no-save", "Hallo") == 0)
                #expect(ask.stdout == "Hallo from llama3.2\n")
                #expect(ask.stderr.contains("asking llama3.2, the server's first model"))
                let posted = try #require(
                    server.received.first { $0.requestLine.hasPrefix("POST /v1/chat/completions ") })
                #expect(posted.header("Authorization") == nil, "a profile without a key sends none")
                let models = TestIO(environment: environment)
                #expect(await models.run("models") == 0)
                #expect(models.stdout == "llama3.2\nqwen\n")
                let json = TestIO(environment: environment)
                #expect(await json.run("models", "--json") == 0)
                #expect(
                    json.stdout
                        == #"{"models":[{"id":"llama3.2","created":null,"ownedBy":"library"},{"id":"qwen","created":1,"ownedBy":null}]}"#
                        + "\n")
            }
        }

        @Test func profilesAreListedUsedAndRemoved() async throws {
            try await withConfigHome { home in
                let environment = ["XDG_CONFIG_HOME": home]
                #expect(
                    await TestIO(environment: environment).run(
                        "profile", "add", "a", "--base-url", "http://127.0.0.1:11434", "--model", "llama3.2") == 0)
                #expect(
                    await TestIO(environment: environment).run(
                        "profile", "add", "b", "--base-url", "https://api.openai.com/v1", "--key", "openai") == 0)
                let list = TestIO(environment: environment)
                #expect(await list.run("profile", "list") == 0)
                #expect(
                    list.stdout == "* a  http://127.0.0.1:11434  llama3.2  no key\n"
                        + "  b  https://api.openai.com  (the server's first model)  key openai\n")
                #expect(await TestIO(environment: environment).run("profile", "use", "b") == 0)
                let after = TestIO(environment: environment)
                _ = await after.run("profile", "list")
                #expect(after.stdout.hasPrefix("  a"))
                let missing = TestIO(environment: environment)
                #expect(await missing.run("profile", "use", "nope") == 66)
                #expect(await TestIO(environment: environment).run("profile", "remove", "b") == 0)
                let config = try ClientConfiguration(
                    parsing: try String(contentsOfFile: home + "/sybil/config.toml", encoding: .utf8))
                #expect(config.profiles.map(\.name) == ["a"])
                #expect(config.defaultProfile == nil, "the default went with its profile")
                let unknown = TestIO(environment: environment)
                #expect(await unknown.run("ask", "--profile", "zzz", "q") == 64)
                #expect(unknown.stderr.contains("the profile 'zzz', which does not exist (profiles: a)"))
            }
        }

        @Test func aBrokenConfigurationNamesItsLineAndColumn() async throws {
            try await withConfigHome { home in
                try FileManager.default.createDirectory(atPath: home + "/sybil", withIntermediateDirectories: true)
                try "[profiles.x]\nbase_url = \"http://h\"\nmodel = oops\n".write(
                    toFile: home + "/sybil/config.toml", atomically: true, encoding: .utf8)
                let test = TestIO(environment: ["XDG_CONFIG_HOME": home])
                #expect(await test.run("ask", "q") == 64)
                #expect(test.stderr.contains("config.toml: line 3, column 9: expected a value"))
            }
        }
    }
#endif
