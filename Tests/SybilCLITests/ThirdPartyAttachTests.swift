#if canImport(Glibc)
    import Foundation
    import Glibc
    import SybilCore
    import SybilTesting
    import Testing

    @testable import SybilCLI

    /// `sybil ask --attach` and tool calls against fakellm (from PyPI, installed by
    /// scripts/test): it reads the text part of a message whose content is an array of parts,
    /// and answers with streamed `tool_calls` only, which `sybil ask` notes and keeps as a whole
    /// reply. Skips, saying why, when the package is not installed.
    @Suite("sybil ask --attach and tool calls against fakellm", .timeLimit(.minutes(2)))
    struct ThirdPartyAttachTests {
        @Test func fakellmReadsTheAttachedTextBesideAnImageAndAnswersWithAToolCall() async throws {
            let rules = """
                version: 1
                rules:
                  - name: weather
                    when:
                      messages_contain: "Wetterdatei"
                    respond:
                      tool_calls:
                        - name: get_weather
                          arguments: {city: Paris}
                """
            guard let (server, port) = try ThirdPartyPeer.fakellm(rules: rules) else { return }
            defer { server.stop() }
            let home = server.directory + "/home"
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            let notes = home + "/notes.txt"
            try Data("Wetterdatei: Paris\n".utf8).write(to: URL(fileURLWithPath: notes))
            let picture = home + "/sky.gif"
            try Data("GIF89a\u{1}\u{0}\u{1}\u{0}".utf8).write(to: URL(fileURLWithPath: picture))
            let environment = ["XDG_DATA_HOME": home + "/data", "HOME": "/nonexistent"]
            let ask = TestIO(environment: environment)
            let status = await ask.run(
                "ask", "--api-url", "http://127.0.0.1:\(port)/v1", "--model", "mock-1", "--attach", notes, "--attach",
                picture, "--json", "Wie wird das Wetter?")
            #expect(status == 0, "stderr: \(ask.stderr)")
            #expect(
                ask.stderr.contains(
                    #"sybil ask: the model called the tool get_weather({"city": "Paris"}) (Sybil does not run tools)"#))
            let result = try AskResult.decode(try JSONReader().parse(Array(ask.stdout.utf8)))
            #expect(result.text == "")
            #expect(result.finishReason == "tool_calls")
            #expect(result.toolCalls.map(\.name) == ["get_weather"])
            #expect(result.toolCalls.first?.id?.hasPrefix("call_") == true)
        }
    }
#endif
