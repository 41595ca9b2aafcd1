#if canImport(Glibc)
    import Foundation
    import SybilClient
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// A model on this machine that takes long to its first token (Ollama loading a model,
    /// llama.cpp reading a long prompt on a CPU): the wait is the person's to set, per profile
    /// (`timeout`, `sybil profile add --timeout`) and per command (`sybil ask --timeout`), and a
    /// local server that stays silent through it is asked once, not twice. The live tests make
    /// the wait 1 s through the option rather than waiting out the default.
    @Suite("sybil ask: the wait for a slow local model", .timeLimit(.minutes(2)))
    struct SlowLocalServerTests {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sybil-cli-timeout-\(UUID().uuidString)"
        ).path
        var environment: [String: String] {
            ["XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "HOME": "/nonexistent"]
        }

        /// A loopback server that lists one model and answers a chat request with an
        /// event-stream head and then nothing, until the client goes away: a model still thinking.
        private static func silentModel() throws -> LoopbackHTTPServer {
            try LoopbackHTTPServer { request, connection in
                guard request.requestLine.hasPrefix("POST /v1/chat/completions") else {
                    let body = #"{"object":"list","data":[{"id":"m","object":"model"}]}"#
                    connection.write(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                            + "Connection: close\r\n\r\n" + body)
                    return
                }
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
                while !connection.read().isEmpty {}  // until the client closes
            }
        }

        private static func chatRequests(_ server: LoopbackHTTPServer) -> Int {
            server.received.filter { $0.requestLine.hasPrefix("POST") }.count
        }

        @Test func askTimeoutEndsTheWaitAndALocalServerIsAskedOnce() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.silentModel()
            let ask = TestIO(environment: environment)
            let status = await ask.run(
                "ask", "--no-save", "--api-url", server.url.absoluteString, "--model", "m", "--timeout", "1", "Hallo")
            #expect(status == 76, Comment(rawValue: ask.stderr))
            #expect(
                ask.stderr.hasSuffix(
                    "sybil ask: The reply stalled (nothing for 1.0 seconds). Check the connection, then retry."
                        + " A slow model may need a longer --timeout SECONDS (or the profile's timeout).\n"),
                "\(ask.stderr)")
            #expect(Self.chatRequests(server) == 1, "the same generation is not started twice")
        }

        @Test func aProfilesTimeoutIsKeptAndUsed() async throws {
            defer { try? FileManager.default.removeItem(atPath: home) }
            let server = try Self.silentModel()
            let add = TestIO(environment: environment)
            #expect(
                await add.run(
                    "profile", "add", "slow", "--base-url", server.url.absoluteString, "--model", "m", "--timeout", "1")
                    == 0, Comment(rawValue: add.stderr))
            let text = try String(contentsOfFile: home + "/config/sybil/config.toml", encoding: .utf8)
            #expect(text.contains("timeout = 1\n"), "\(text)")
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "--no-save", "Hallo") == 76, Comment(rawValue: ask.stderr))
            #expect(ask.stderr.contains("nothing for 1.0 seconds"), "\(ask.stderr)")
            #expect(Self.chatRequests(server) == 1)
        }

        @Test func aTimeoutOutOfRangeIsAUsageErrorNamingTheOption() async {
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "--timeout", "0", "Hallo") == 64)
            #expect(ask.stderr.contains("--timeout needs a whole number from 1 to 3600, got '0'"), "\(ask.stderr)")
            let add = TestIO(environment: environment)
            #expect(await add.run("profile", "add", "p", "--base-url", "http://h", "--timeout", "3601") == 64)
            #expect(add.stderr.contains("--timeout needs a whole number from 1 to 3600, got '3601'"), "\(add.stderr)")
        }

        @Test func theProfilesTimeoutIsReadRangeCheckedAndOldFilesLoad() throws {
            let configuration = try ClientConfiguration(
                parsing: "[profiles.local]\nbase_url = \"http://127.0.0.1:11434\"\ntimeout = 900\n")
            #expect(configuration.profile(named: "local")?.timeoutSeconds == 900)
            #expect(try ClientConfiguration(parsing: configuration.formatted()) == configuration)
            let old = try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\nmodel = \"m\"\n")
            #expect(old.profiles[0].timeoutSeconds == nil)
            #expect(
                throws: ClientConfigurationError(
                    "line 3, column 11: profiles.local.timeout must be a whole number of seconds from 1 to 3600, got 0")
            ) {
                try ClientConfiguration(parsing: "[profiles.local]\nbase_url = \"http://127.0.0.1\"\ntimeout = 0\n")
            }
        }
    }
#endif
