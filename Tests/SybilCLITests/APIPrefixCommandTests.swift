#if canImport(Glibc)
    import Foundation
    import SybilClient
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// A base URL that is the whole prefix of the OpenAI routes, as the OpenAI SDKs take
    /// `base_url` (Gemini's `…/v1beta/openai/`): `sybil profile add` asks `<base>/models` and
    /// `<base>/v1/models` once, keeps the prefix that answered as `api_prefix` and prints it;
    /// `--api-prefix` says it instead; root and `…/v1` base URLs are not asked and work as before.
    @Suite("sybil profile add: where a base URL's routes are", .timeLimit(.minutes(2)))
    struct APIPrefixCommandTests {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-prefix-\(UUID().uuidString)"
        ).path
        var environment: [String: String] {
            [
                "XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "HOME": "/nonexistent",
                "GEMINI_API_KEY": "g-key",
            ]
        }
        var configPath: String { home + "/config/sybil/config.toml" }

        /// A server whose OpenAI routes are under `prefix` (`/v1beta/openai` as Gemini's, or
        /// `/ollama/v1` behind a proxy): a model list there, a streamed reply, 404 elsewhere.
        private static func server(routesUnder prefix: String) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                func answer(_ status: String, _ type: String, _ body: String) {
                    connection.write(
                        "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n"
                            + "Connection: close\r\n\r\n" + body)
                }
                switch request.requestLine {
                case "GET \(prefix)/models HTTP/1.1":
                    answer("200 OK", "application/json", #"{"object":"list","data":[{"id":"gemini-2.0-flash"}]}"#)
                case "POST \(prefix)/chat/completions HTTP/1.1":
                    answer(
                        "200 OK", "text/event-stream",
                        #"data: {"choices":[{"delta":{"content":"Hallo Welt"},"finish_reason":"stop","index":0}]}"#
                            + "\n\ndata: [DONE]\n\n")
                default:
                    answer("404 Not Found", "application/json", #"[{"error":{"code":404,"status":"NOT_FOUND"}}]"#)
                }
            }
        }

        @Test func geminisBaseURLIsTheWholePrefix() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.server(routesUnder: "/v1beta/openai")
            let base = server.url.absoluteString + "/v1beta/openai/"
            let add = TestIO(environment: environment)
            #expect(
                await add.run(
                    "profile", "add", "gemini", "--base-url", base, "--key-env", "GEMINI_API_KEY", "--model",
                    "gemini-2.0-flash") == 0, Comment(rawValue: add.stderr))
            #expect(
                add.stderr.hasPrefix(
                    "sybil profile add: \(base)models answered (HTTP 200): the routes are under \(base)"
                        + " (api_prefix = \"/\")\n"), "\(add.stderr)")
            #expect(
                server.received.map(\.requestLine) == [
                    "GET /v1beta/openai/models HTTP/1.1", "GET /v1beta/openai/v1/models HTTP/1.1",
                ])
            #expect(server.received.allSatisfy { $0.header("Authorization") == "Bearer g-key" }, "asked with the key")
            let probes = server.received.count
            let text = try String(contentsOfFile: configPath, encoding: .utf8)
            #expect(text.contains("api_prefix = \"/\"\n"), "\(text)")
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "--no-save", "Hallo?") == 0, Comment(rawValue: ask.stderr))
            #expect(ask.stdout == "Hallo Welt\n")
            let models = TestIO(environment: environment)
            #expect(await models.run("models") == 0, Comment(rawValue: models.stderr))
            #expect(models.stdout == "gemini-2.0-flash\n")
            #expect(server.received.contains { $0.requestLine == "POST /v1beta/openai/chat/completions HTTP/1.1" })
            #expect(
                !server.received.dropFirst(probes).contains { $0.requestLine.contains("/openai/v1/") },
                "once asked, never guessed")
        }

        @Test func aServerBehindAPathWithRoutesUnderV1KeepsV1() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.server(routesUnder: "/ollama/v1")
            let add = TestIO(environment: environment)
            #expect(
                await add.run("profile", "add", "proxied", "--base-url", server.url.absoluteString + "/ollama")
                    == 0, Comment(rawValue: add.stderr))
            #expect(add.stderr.contains("(api_prefix = \"/v1\")"), "\(add.stderr)")
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "--no-save", "--model", "m", "Hallo?") == 0, Comment(rawValue: ask.stderr))
            #expect(ask.stdout == "Hallo Welt\n")
        }

        /// The probe takes a route's status from its head and does not read the body: a server
        /// that answers `200` and then trickles its body a byte at a time does not hold the
        /// command (each byte would restart the read's silence timeout). Here the body would take
        /// 3,000 bytes, a minute at the trickle's pace; the command's end closes the connection
        /// long before the server has sent them, however busy the machine.
        @Test func aTricklingBodyDoesNotHoldTheProbe() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let (ended, ending) = AsyncStream.makeStream(of: Int.self)
            let server = try LoopbackHTTPServer { request, connection in
                guard request.requestLine == "GET /x/v1/models HTTP/1.1" else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 3000\r\n\r\n")
                var sent = 0
                while sent < 3000, connection.write(" ") {
                    sent += 1
                    usleep(20_000)  // the peer's trickle, not a wait of the test
                }
                ending.yield(sent)
            }
            let add = TestIO(environment: environment)
            #expect(
                await add.run("profile", "add", "t", "--base-url", server.url.absoluteString + "/x") == 0,
                Comment(rawValue: add.stderr))
            #expect(add.stderr.contains("(api_prefix = \"/v1\")"), "\(add.stderr)")
            // The server's answer ends once the client has gone or the whole body is out.
            var answers = ended.makeAsyncIterator()
            let sent = await answers.next()
            #expect(sent.map { $0 < 3000 } == true, "the whole body was read: \(String(describing: sent))")
        }

        @Test func neitherPrefixAnsweringIsAnErrorNamingBothURLs() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.server(routesUnder: "/elsewhere")
            let base = server.url.absoluteString + "/api"
            let add = TestIO(environment: environment)
            #expect(await add.run("profile", "add", "wrong", "--base-url", base + "/") == 69)
            #expect(
                add.stderr
                    == "sybil profile add: neither \(base)/models (HTTP 404) nor \(base)/v1/models (HTTP 404)"
                    + " lists models; check the base URL, or say where the routes are with --api-prefix / (under the"
                    + " base URL, as the OpenAI SDKs take it) or --api-prefix /v1; nothing saved\n")
            #expect(!FileManager.default.fileExists(atPath: configPath))
        }

        @Test func aGivenPrefixIsKeptWithoutAsking() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.server(routesUnder: "/v1")
            let add = TestIO(environment: environment)
            #expect(
                await add.run(
                    "profile", "add", "sdk", "--base-url", server.url.absoluteString + "/v1/", "--api-prefix", "/")
                    == 0, Comment(rawValue: add.stderr))
            #expect(server.received.isEmpty, "nothing asked")
            let root = TestIO(environment: environment)
            #expect(await root.run("profile", "add", "root", "--base-url", server.url.absoluteString) == 0)
            #expect(server.received.isEmpty, "a root base URL is not asked either")
            let configuration = try ClientConfiguration(parsing: String(contentsOfFile: configPath, encoding: .utf8))
            #expect(configuration.profile(named: "sdk")?.baseURL.absoluteString == server.url.absoluteString + "/v1")
            #expect(configuration.profile(named: "sdk")?.apiPrefix == .root)
            #expect(configuration.profile(named: "root")?.apiPrefix == nil)
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "--no-save", "--profile", "sdk", "--model", "m", "Hallo?") == 0)
            #expect(ask.stdout == "Hallo Welt\n", "\(ask.stderr)")
            let list = TestIO(environment: environment)
            #expect(await list.run("profile", "list") == 0)
            #expect(list.stdout.contains("  no key  api_prefix /\n"), "\(list.stdout)")
        }

        @Test func aBadPrefixIsAUsageErrorNamingTheOption() async {
            let bad = TestIO(environment: environment)
            #expect(await bad.run("profile", "add", "p", "--base-url", "http://h/x", "--api-prefix", "v1") == 64)
            #expect(bad.stderr.contains("--api-prefix must be a path such as / or /v1"), "\(bad.stderr)")
            let alone = TestIO(environment: environment)
            #expect(await alone.run("profile", "add", "p", "--api-prefix", "/") == 64)
            #expect(alone.stderr.contains("--api-prefix needs --base-url URL"), "\(alone.stderr)")
        }

        /// A prefix the base URL already ends in would be said twice (`…/v1/v1/chat/completions`):
        /// refused, saying what to give instead; nothing is saved.
        @Test func aPrefixTheBaseURLEndsInIsRefused() async {
            let twice = TestIO(environment: environment)
            #expect(
                await twice.run("profile", "add", "p", "--base-url", "http://h:8000/V1/", "--api-prefix", "/v1") == 64)
            #expect(
                twice.stderr.contains(
                    "--base-url ends in /v1 and --api-prefix /v1 would ask http://h:8000/V1/v1/chat/completions;"
                        + " give --api-prefix / (the base URL is the whole prefix) or the base URL without /v1"),
                "\(twice.stderr)")
            #expect(!FileManager.default.fileExists(atPath: configPath))
            let nested = TestIO(environment: environment)
            #expect(
                await nested.run(
                    "profile", "add", "q", "--base-url", "http://h/api/openai/v1", "--api-prefix", "/openai/v1") == 64)
            #expect(nested.stderr.contains("would ask http://h/api/openai/v1/openai/v1/chat/completions"))
        }
    }
#endif
