#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilCore
    import SybilTesting
    import Testing

    /// `sybil ask` and `sybil profile` against OpenAI-compatible servers this project did not
    /// write, installed from PyPI by scripts/test (fakellm and mockllm, both mock servers
    /// built on FastAPI and uvicorn). Each test starts its server on a free loopback port and
    /// skips, saying why, when the package is not installed.
    @Suite("sybil against third-party OpenAI-compatible servers", .timeLimit(.minutes(2)))
    struct ThirdPartyServerTests {
        @Test func fakellmAnswersAskThroughAProfileWithV1AndNoKey() async throws {
            let rules = """
                version: 1
                rules:
                  - name: kaltstart
                    when:
                      messages_contain: "Kaltstart"
                    respond:
                      content: "Ein Kaltstart ist der erste Start nach einer Pause."
                """
            guard let (server, port) = try ThirdPartyPeer.fakellm(rules: rules) else { return }
            defer { server.stop() }
            let home = server.directory + "/home"
            let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"]
            #expect(
                await TestIO(environment: environment).run(
                    "profile", "add", "fake", "--base-url", "http://127.0.0.1:\(port)/v1", "--model", "mock-1") == 0)
            let ask = TestIO(environment: environment)
            #expect(await ask.run("ask", "Was ist ein Kaltstart?") == 0)
            #expect(ask.stdout == "Ein Kaltstart ist der erste Start nach einer Pause.\n", "stderr: \(ask.stderr)")
            let history = TestIO(environment: environment)
            #expect(await history.run("history", "list") == 0)
            #expect(history.stdout.contains("Was ist ein Kaltstart?"))
        }

        @Test func mockllmAnswersAskWithAModelAndTheApiURL() async throws {
            let port = try ThirdPartyPeer.freePort()
            let responses = """
                responses:
                  "unused": "unused"
                defaults:
                  unknown_response: "Antwort von mockllm, Wort für Wort."
                """
            guard
                let server = try ThirdPartyPeer.start(
                    "mockllm", ["start", "-r", "responses.yml", "-p", String(port), "-h", "127.0.0.1"],
                    files: ["responses.yml": responses])
            else {
                print("skipped: the Python package mockllm is not installed (scripts/test installs it)")
                return
            }
            defer { server.stop() }
            let home = server.directory + "/home"
            let ask = TestIO(environment: ["XDG_CONFIG_HOME": home + "/config", "XDG_DATA_HOME": home + "/data"])
            #expect(
                await ask.run("ask", "--no-save", "--api-url", "http://127.0.0.1:\(port)", "--model", "gpt-4", "Hallo")
                    == 0)
            #expect(ask.stdout == "Antwort von mockllm, Wort für Wort.\n", "stderr: \(ask.stderr)")
        }
    }
#endif
