#if canImport(Glibc) && canImport(COpenSSL)
    import Foundation
    import SybilClient
    import SybilCore
    import SybilHTTP
    import SybilStore
    import SybilTesting
    import Testing

    /// Against a server that speaks only OpenAI (`/v1/models`, `/v1/chat/completions`): what it
    /// does not offer is refused in one line (exit 69) instead of retried, warm-up sends no
    /// `/healthz`, a refused key is named with the server's own message (exit 77), and a
    /// profile's `key_command` renews a refused key once.
    @Suite("Commands against a server that offers chats only", .timeLimit(.minutes(2)))
    struct ServerCapabilityCommandTests {
        /// Only OpenAI's routes; a chat is answered when its key is `acceptedKey` (or always
        /// when that is `nil`), else 401 with OpenAI's own message.
        private func openAIOnlyServer(acceptedKey: String? = nil) throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                if request.requestLine.hasPrefix("GET /v1/models ") {
                    let body = #"{"object":"list","data":[{"id":"m1","object":"model","owned_by":"me"}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                } else if request.requestLine.hasPrefix("POST /v1/chat/completions ") {
                    if let acceptedKey, request.header("Authorization") != "Bearer \(acceptedKey)" {
                        let body =
                            #"{"error":{"message":"Incorrect API key provided: sk-old.","type":"invalid_request_error","code":"invalid_api_key"}}"#
                        connection.write(
                            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                        )
                        return
                    }
                    let chunk =
                        #"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hallo"},"finish_reason":"stop"}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: \(chunk)\n\ndata: [DONE]\n\n")
                } else {
                    let body = #"{"error":{"message":"not found"}}"#
                    connection.write(
                        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                }
            }
        }

        private func withHome(_ body: ([String: String]) async throws -> Void) async throws {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-offer-\(UUID())").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: home) }
            try await body([
                "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "PATH": "/usr/bin:/bin",
            ])
        }

        @Test func theAgentRoomWorkspacesAndRecordsSyncAreRefusedInOneLine() async throws {
            let server = try openAIOnlyServer()
            try await withHome { environment in
                let url = server.url.absoluteString
                let tail = TestIO(environment: environment)
                #expect(await tail.run("agent", "tail", "--no-follow", "--api-url", url) == 69)
                #expect(
                    tail.stderr
                        == "sybil agent tail: Sybil Agent is not offered by \(url) (--api-url), a plain"
                        + " OpenAI-compatible server; use a Sybil server (`sybil serve`) for it\n")
                #expect(tail.stdout.isEmpty)
                let probes = server.received.map(\.requestLine)
                #expect(probes == ["GET /agent/descriptor HTTP/1.1"], "one probe, no reconnect loop")
                let workspaces = TestIO(environment: environment)
                #expect(await workspaces.run("workspaces", "list", "--api-url", url) == 69)
                #expect(workspaces.stderr.hasPrefix("sybil workspaces list: Workspaces is not offered by \(url)"))
                let sync = TestIO(environment: environment)
                #expect(await sync.run("records", "sync", "--api-url", url) == 69)
                #expect(sync.stderr.hasPrefix("sybil records sync: Records sync is not offered by \(url)"))
                #expect(sync.stderr.split(separator: "\n").count == 1)
                #expect(server.received.count == 1, "the answer is remembered: asked once")
            }
        }

        @Test func aServerRememberedAsSybilButAnsweringFourOhFourIsAskedAgain() async throws {
            let server = try openAIOnlyServer()
            try await withHome { environment in
                let url = server.url
                // Remembered as a Sybil server (it was one at this address until it was replaced).
                let discovery = CapabilityDiscovery(
                    http: RefusingHTTP(), store: try FileKeyValueStore.standard(environment: environment),
                    now: WallClock.milliseconds)
                try FileKeyValueStore.standard(environment: environment).set(
                    Array(
                        #"{"baseURL":"\#(url.absoluteString)","kind":"sybil","learnedAt":\#(WallClock.milliseconds())}"#
                            .utf8), forKey: CapabilityDiscovery.storageKey(for: url))
                #expect(discovery.remembered(url) == .sybil)
                let first = TestIO(environment: environment)
                #expect(await first.run("agent", "tail", "--no-follow", "--api-url", url.absoluteString) == 69)
                #expect(!first.stderr.contains("not offered"), "the remembered answer was trusted once")
                #expect(discovery.remembered(url) == nil, "the failure made it forget")
                let second = TestIO(environment: environment)
                #expect(await second.run("agent", "tail", "--no-follow", "--api-url", url.absoluteString) == 69)
                #expect(second.stderr.contains("Sybil Agent is not offered by"))
                #expect(discovery.remembered(url) == .openAICompatible)
            }
        }

        /// An HTTP client for a discovery that only reads what is remembered.
        private struct RefusingHTTP: HTTPClient {
            func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
                Issue.record("unexpected request \(request.url)")
                throw HTTPTransportError("unexpected")
            }
        }

        @Test func askSendsNoHealthCheckToAPlainServer() async throws {
            let server = try openAIOnlyServer()
            try await withHome { environment in
                let ask = TestIO(environment: environment)
                #expect(await ask.run("ask", "--no-save", "--api-url", server.url.absoluteString, "Hi") == 0)
                #expect(ask.stdout.hasPrefix("Hallo"))
                let paths = server.received.map(\.requestLine)
                #expect(!paths.contains { $0.contains("/healthz") }, "sent: \(paths)")
                #expect(paths.contains("POST /v1/chat/completions HTTP/1.1"))
            }
        }

        @Test func aRefusedKeyIsNamedWithTheServersMessage() async throws {
            let server = try openAIOnlyServer(acceptedKey: "sk-new")
            try await withHome { environment in
                let ask = TestIO(environment: environment)
                let status = await ask.run(
                    "ask", "--no-save", "--api-url", server.url.absoluteString, "--token", "sk-old", "Hi")
                #expect(status == 77)
                #expect(ask.stderr.contains("the server refused the key: Incorrect API key provided: sk-old."))
                #expect(!ask.stderr.contains("sign in"))
                let posts = server.received.filter { $0.requestLine.hasPrefix("POST") }
                #expect(posts.count == 1, "a key nothing can renew is not sent twice")
            }
        }

        @Test func aKeyCommandRenewsARefusedKeyOnce() async throws {
            let server = try openAIOnlyServer(acceptedKey: "sk-new")
            try await withHome { environment in
                var environment = environment
                environment["WORK_KEY"] = "sk-old"
                let add = TestIO(environment: environment)
                #expect(
                    await add.run(
                        "profile", "add", "work", "--base-url", server.url.absoluteString, "--model", "m1",
                        "--key-env", "WORK_KEY", "--key-command", "echo sk-new") == 0)
                let config = try String(
                    contentsOfFile: environment["XDG_CONFIG_HOME"]! + "/sybil/config.toml", encoding: .utf8)
                #expect(config.contains(#"key_command = "echo sk-new""#))
                let ask = TestIO(environment: environment)
                #expect(await ask.run("ask", "--no-save", "Hi") == 0, "stderr: \(ask.stderr)")
                #expect(ask.stdout.hasPrefix("Hallo"))
                let keys = server.received.filter { $0.requestLine.hasPrefix("POST") }.map {
                    $0.header("Authorization") ?? ""
                }
                #expect(keys == ["Bearer sk-old", "Bearer sk-new"])
            }
        }

        @Test func aKeyCommandThatFailsIsNamedAndRefused() async throws {
            let server = try openAIOnlyServer(acceptedKey: "sk-new")
            try await withHome { environment in
                var environment = environment
                environment["WORK_KEY"] = "sk-old"
                let add = TestIO(environment: environment)
                #expect(
                    await add.run(
                        "profile", "add", "work", "--base-url", server.url.absoluteString, "--model", "m1",
                        "--key-env", "WORK_KEY", "--key-command", "exit 3") == 0)
                let ask = TestIO(environment: environment)
                #expect(await ask.run("ask", "--no-save", "Hi") == 77)
                #expect(ask.stderr.contains("the key command 'exit 3' failed with status 3"))
                #expect(ask.stderr.hasSuffix(" (profile work)\n"), "the refused key's profile is named")
            }
        }
    }
#endif
