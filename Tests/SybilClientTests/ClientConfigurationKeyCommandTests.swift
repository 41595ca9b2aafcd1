import SybilClient
import Testing

/// `key_command` in `config.toml`: read, written back, and refused when blank or multi-line.
@Suite("config.toml key_command")
struct ClientConfigurationKeyCommandTests {
    @Test func aKeyCommandIsReadAndWrittenBack() throws {
        let text = """
            [profiles.work]
            base_url = "https://api.example.test/v1"
            key_env = "WORK_KEY"
            key_command = "pass show work/api-key"
            """
        let configuration = try ClientConfiguration(parsing: text)
        let profile = try #require(configuration.profile(named: "work"))
        #expect(profile.keyCommand == "pass show work/api-key")
        #expect(profile.keyEnvironment == "WORK_KEY")
        let written = configuration.formatted()
        #expect(written.contains(#"key_command = "pass show work/api-key""#))
        #expect(try ClientConfiguration(parsing: written) == configuration)
    }

    @Test func aBlankKeyCommandIsRefused() {
        #expect(throws: ClientConfigurationError("profiles.a.key_command must be one non-blank line")) {
            try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\nkey_command = \"  \"\n")
        }
        #expect(throws: ClientConfigurationError("profiles.a.key_command must be one non-blank line")) {
            try ClientConfiguration(parsing: "[profiles.a]\nbase_url = \"http://h\"\nkey_command = \"a\\nb\"\n")
        }
    }
}
