import Foundation
import SybilClient
import Testing

@testable import SybilCLI

/// `[profiles.NAME] max_input_bytes = N`: read range-checked from config.toml (an error at its
/// line and column), and the most `sybil ask` sends with that profile, at the boundary.
@Suite("sybil ask: a profile's max_input_bytes", .timeLimit(.minutes(2)))
struct AskProfileLimitTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-cli-limit-\(UUID().uuidString)")
        .path
    var environment: [String: String] {
        ["XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config", "HOME": "/nonexistent"]
    }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: home + "/config/sybil", withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: home + "/config/sybil/config.toml"))
    }

    @Test func theLimitIsReadAndWrittenBack() throws {
        let configuration = try ClientConfiguration(
            parsing: "[profiles.tiny]\nbase_url = \"http://h\"\nmax_input_bytes = 16_777_216\n")
        #expect(configuration.profile(named: "tiny")?.maxInputBytes == 16 << 20)
        #expect(try ClientConfiguration(parsing: configuration.formatted()) == configuration)
        #expect(
            try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\n").profiles[0].maxInputBytes == nil
        )
    }

    @Test(
        arguments: [
            ("max_input_bytes = 0", ", got 0"), ("max_input_bytes = 16777217", ", got 16777217"),
            ("max_input_bytes = -5", ", got -5"), ("max_input_bytes = \"1 KiB\"", ""),
        ])
    func outOfRangeIsAnErrorAtItsLineAndColumn(line: String, got: String) {
        let text = "default_profile = \"tiny\"\n\n[profiles.tiny]\nbase_url = \"http://h\"\n\(line)\n"
        #expect(
            throws: ClientConfigurationError(
                "line 5, column 19: profiles.tiny.max_input_bytes must be a whole number of bytes from 1 to 16777216"
                    + " (16 MiB)\(got)")
        ) { try ClientConfiguration(parsing: text) }
    }

    @Test func askSendsExactlyTheLimitAndRefusesOneByteMore() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        try writeConfig(
            "[profiles.tiny]\nbase_url = \"\(peer.url.absoluteString)\"\nmodel = \"m\"\nmax_input_bytes = 10\n")
        let fits = TestIO(environment: environment)
        #expect(await fits.run("ask", "--profile", "tiny", "0123456789") == 0, Comment(rawValue: fits.stderr))
        #expect(peer.chatRequests.last?.messages.last?.content == "0123456789")
        let over = TestIO(environment: environment)
        #expect(await over.run("ask", "--profile", "tiny", "0123456789a") == 65)
        #expect(
            over.stderr
                == "sybil ask: the question is 11 bytes, over the limit of 10 bytes of profile tiny"
                + " (max_input_bytes in config.toml); send a shorter text\n")
        #expect(peer.chatRequests.count == 1, "nothing more was sent")
    }

    @Test func pipedInputCountsTowardsTheProfilesLimit() async throws {
        defer { try? FileManager.default.removeItem(atPath: home) }
        let peer = try OpenAIPeer()
        try writeConfig(
            "[profiles.tiny]\nbase_url = \"\(peer.url.absoluteString)\"\nmodel = \"m\"\nmax_input_bytes = 10\n")
        // "ab", a blank line and the piped text: 10 bytes, then 11.
        let fits = TestIO(stdin: Array("123456".utf8), environment: environment)
        #expect(await fits.run("ask", "--profile", "tiny", "ab") == 0, Comment(rawValue: fits.stderr))
        #expect(peer.chatRequests.last?.messages.last?.content == "ab\n\n123456")
        let over = TestIO(stdin: Array("1234567".utf8), environment: environment)
        #expect(await over.run("ask", "--profile", "tiny", "ab") == 65)
        #expect(over.stderr.contains("the question is 11 bytes, over the limit of 10 bytes of profile tiny"))
        #expect(peer.chatRequests.count == 1, "nothing more was sent")
    }
}
