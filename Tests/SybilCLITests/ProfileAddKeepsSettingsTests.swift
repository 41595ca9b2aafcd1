import Foundation
import SybilClient
import Testing

/// `sybil profile add NAME` on an existing profile changes only the fields given: what was
/// written by hand (headers, max_input_bytes, system, key_command) and the file's comments stay.
@Suite("sybil profile add keeps what was written by hand", .timeLimit(.minutes(2)))
struct ProfileAddKeepsSettingsTests {
    static let handWritten = """
        # My models. Keys live in the OS store.
        default_profile = "local"   # the one I use most

        [profiles.local]
        base_url = "http://127.0.0.1:11434"
        model = "llama3.2"            # small and quick
        system = "Answer briefly."
        key_command = "pass show local"
        max_input_bytes = 65536       # a small model
        headers = { "X-Team" = "blue" }

        # The cloud one.
        [profiles.cloud]
        base_url = "https://api.openai.com"
        key = "openai"

        """

    @Test func addingAnExistingProfileChangesOnlyTheGivenFields() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-profile-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let path = home + "/sybil/config.toml"
        try FileManager.default.createDirectory(atPath: home + "/sybil", withIntermediateDirectories: true)
        try Self.handWritten.write(toFile: path, atomically: true, encoding: .utf8)
        let environment = ["XDG_CONFIG_HOME": home]
        let add = TestIO(environment: environment)
        #expect(await add.run("profile", "add", "local", "--model", "qwen3") == 0, "\(add.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let profile = try #require(try ClientConfiguration(parsing: text).profile(named: "local"))
        #expect(profile.model == "qwen3")
        #expect(profile.baseURL.absoluteString == "http://127.0.0.1:11434")
        #expect(profile.system == "Answer briefly.")
        #expect(profile.keyCommand == "pass show local")
        #expect(profile.maxInputBytes == 65536)
        #expect(profile.headers == [ClientProfile.Header(name: "X-Team", value: "blue")])
        #expect(text == Self.handWritten.replacingOccurrences(of: "\"llama3.2\"", with: "\"qwen3\""))
        // A key given replaces the stored-key choice; the rest stays; a new profile is appended.
        #expect(await TestIO(environment: environment).run("profile", "add", "cloud", "--key-env", "OPENAI_KEY") == 0)
        #expect(
            await TestIO(environment: environment).run(
                "profile", "add", "lab", "--base-url", "http://10.0.0.5:8000/v1", "--model", "m") == 0)
        #expect(await TestIO(environment: environment).run("profile", "use", "cloud") == 0)
        let after = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            after.hasPrefix(
                "# My models. Keys live in the OS store.\ndefault_profile = \"cloud\"   # the one I use most\n"))
        #expect(
            after.contains(
                "# The cloud one.\n[profiles.cloud]\nbase_url = \"https://api.openai.com\"\nkey_env = \"OPENAI_KEY\"\n")
        )
        #expect(after.hasSuffix("\n\n[profiles.lab]\nbase_url = \"http://10.0.0.5:8000\"\nmodel = \"m\"\n"))
        let configuration = try ClientConfiguration(parsing: after)
        #expect(configuration.profile(named: "cloud")?.key == nil)
        #expect(configuration.profile(named: "local")?.maxInputBytes == 65536)
        // A new profile still needs its base URL.
        let missing = TestIO(environment: environment)
        #expect(await missing.run("profile", "add", "new", "--model", "m") == 64)
        #expect(missing.stderr.contains("needs --base-url URL for a new profile"))
    }
}
