#if canImport(Glibc)
    import Foundation
    import Glibc
    @testable import SybilServer
    import SybilTesting
    import Testing

    /// `sybil` through a real LiteLLM proxy (PyPI `litellm[proxy]`, installed by scripts/test),
    /// the gateway many people put in front of their models: sybil → LiteLLM → the reference
    /// server, with a master key. Skips, saying why, when the proxy is not installed. One proxy
    /// serves every step: importing it alone takes several seconds.
    @Suite("sybil through a LiteLLM proxy", .timeLimit(.minutes(2)))
    struct LiteLLMProxyTests {
        static let masterKey = "sk-sybil-master"

        /// LiteLLM's proxy on a free loopback port with `config` (its YAML), or `nil` when
        /// `litellm[proxy]` is not installed. Its cost map is read from the package, not fetched
        /// (a fetch without a network retries for seconds).
        private static func startProxy(config: String) throws -> (server: ThirdPartyPeer.Server, port: Int)? {
            guard let python = PythonPeer.python3(importing: "litellm_proxy_extras") else {
                print("skipped: the Python package litellm[proxy] is not installed (scripts/test installs it)")
                return nil
            }
            let port = try ThirdPartyPeer.freePort()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-litellm-\(UUID())")
                .path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try config.write(toFile: directory + "/litellm.yaml", atomically: true, encoding: .utf8)
            var environment = ProcessInfo.processInfo.environment
            environment["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            environment["NO_COLOR"] = "1"
            // The test's proxy has no database and only the config's master key.
            for name in ["DATABASE_URL", "LITELLM_MASTER_KEY", "LITELLM_CONFIG_BUCKET_NAME"] {
                environment[name] = nil
            }
            let script =
                "import os, sys; os.chdir(sys.argv[1]); sys.argv = ['litellm'] + sys.argv[2:];"
                + " from litellm.proxy.proxy_cli import run_server; run_server()"
            let child = try ChildProcess.spawn(
                python,
                [
                    "-c", script, directory, "--config", "litellm.yaml", "--host", "127.0.0.1", "--port",
                    String(port), "--telemetry", "False",
                ], environment: environment)
            var seen: [String] = []
            while let line = child.readLine() {
                seen.append(line)
                // uvicorn says the application started before it binds the port; this line
                // comes once it listens.
                if line.contains("Uvicorn running on") {
                    Thread.detachNewThread { _ = child.readToEnd() }
                    return (ThirdPartyPeer.Server(child: child, directory: directory), port)
                }
            }
            _ = child.wait()
            Issue.record("litellm did not start: \(seen.suffix(5).joined(separator: " | "))")
            return nil
        }

        @Test func askModelsAndProfilesWorkThroughTheProxy() async throws {
            var options = SybilServerOptions(token: "upstream-token")
            options.pace = .zero
            let upstream = try ReferenceServer(options: options)
            let config = """
                model_list:
                  - model_name: mock-gpt
                    litellm_params:
                      model: openai/gpt-4o
                      mock_response: "Hallo von LiteLLM, Wort für Wort."
                  - model_name: sybil-upstream
                    litellm_params:
                      model: openai/\(SybilServerOptions.scriptedModel)
                      api_base: \(upstream.baseURL.absoluteString)/v1
                      api_key: upstream-token
                general_settings:
                  master_key: \(Self.masterKey)
                """
            guard let (proxy, port) = try Self.startProxy(config: config) else {
                await upstream.shutdown()
                return
            }
            defer { proxy.stop() }
            let url = "http://127.0.0.1:\(port)"
            let home = proxy.directory + "/home"
            let environment = [
                "XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data", "LITELLM_KEY": Self.masterKey,
                "WRONG_KEY": "sk-wrong",
            ]

            let models = TestIO(environment: environment)
            #expect(await models.run("models", "--api-url", url, "--token", Self.masterKey) == 0, "\(models.stderr)")
            #expect(models.stdout == "mock-gpt\nsybil-upstream\n")

            // A profile with the key in an environment variable, then a streamed answer saved in
            // the history.
            let add = TestIO(environment: environment)
            #expect(
                await add.run(
                    "profile", "add", "proxy", "--base-url", url, "--model", "mock-gpt", "--key-env", "LITELLM_KEY")
                    == 0, "\(add.stderr)")
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "Hallo?") == 0, "\(ask.stderr)")
            #expect(ask.stdout == "Hallo von LiteLLM, Wort für Wort.\n")
            let history = TestIO(environment: environment)
            #expect(await history.run("history", "list") == 0)
            #expect(history.stdout.contains("Hallo?"))

            // Through the proxy to the reference server, as one JSON object.
            let chained = TestIO(environment: environment)
            #expect(
                await chained.run("ask", "--no-save", "--json", "--model", "sybil-upstream", "Was ist ein Kaltstart?")
                    == 0)
            #expect(chained.stdout.contains(#""model":"sybil-upstream""#), "\(chained.stdout) \(chained.stderr)")
            #expect(chained.stdout.contains(#""finishReason":"stop""#), "\(chained.stdout)")
            #expect(chained.stdout.contains("Kaltstart"), "\(chained.stdout)")

            // A key other than the master key (LiteLLM has no database to look it up in).
            let wrong = TestIO(environment: environment)
            #expect(
                await wrong.run(
                    "ask", "--no-save", "--api-url", url, "--token", "sk-wrong", "--model", "mock-gpt", "Hallo?") == 77)
            #expect(wrong.stderr.contains("the server refused the key: No connected db."), "\(wrong.stderr)")
            let wrongModels = TestIO(environment: environment)
            #expect(await wrongModels.run("models", "--api-url", url, "--token", "sk-wrong") == 77)

            // A model the proxy does not know: its message, naming the model, on one line.
            let unknown = TestIO(environment: environment)
            #expect(await unknown.run("ask", "--no-save", "--model", "nope", "Hallo?") == 76)
            #expect(unknown.stderr.contains("Invalid model name passed in model=nope"), "\(unknown.stderr)")
            #expect(unknown.stderr.split(separator: "\n").count == 1, "\(unknown.stderr)")

            await upstream.shutdown()
        }
    }
#endif
