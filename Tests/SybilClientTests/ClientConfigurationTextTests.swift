import Foundation
import SybilClient
import Testing

/// `config.toml` edited in place: only changed lines change, comments stay, and a file that
/// cannot be edited line by line is written whole, never wrong.
@Suite("config.toml edited in place")
struct ClientConfigurationTextTests {
    static let text = """
        # mine
        default_profile = "a"

        [profiles.a]
          base_url = "http://127.0.0.1:1"   # indented, with a comment
          model = "m # not a comment"

        # about b
        [profiles.b]
        base_url = "http://127.0.0.1:2"

        # about c
        [profiles.c]
        base_url = "http://127.0.0.1:3"

        """

    func edited(_ change: (inout ClientConfiguration) -> Void) throws -> (String, ClientConfiguration) {
        var configuration = try ClientConfiguration(parsing: Self.text)
        change(&configuration)
        let result = ClientConfigurationText.edit(Self.text, to: configuration)
        #expect(try ClientConfiguration(parsing: result) == configuration, "it always reads as what was wanted")
        return (result, configuration)
    }

    @Test func aChangedValueKeepsItsIndentAndComment() throws {
        let (result, _) = try edited { configuration in
            var a = configuration.profile(named: "a")!
            a.baseURL = URL(string: "http://127.0.0.1:9")!
            a.model = nil
            a.system = "Be brief."
            configuration.set(a)
        }
        #expect(
            result
                == Self.text.replacingOccurrences(
                    of:
                        "  base_url = \"http://127.0.0.1:1\"   # indented, with a comment\n  model = \"m # not a comment\"\n",
                    with: "  base_url = \"http://127.0.0.1:9\"   # indented, with a comment\n  system = \"Be brief.\"\n"
                ))
    }

    @Test func removingAProfileTakesItsTableAndLeavesTheNextOnesComment() throws {
        let (result, _) = try edited { configuration in
            configuration.remove(named: "b")
            configuration.defaultProfile = nil
            configuration.remove(named: "a")
        }
        #expect(result == "# mine\n\n# about c\n[profiles.c]\nbase_url = \"http://127.0.0.1:3\"\n")
    }

    @Test func aFileThatCannotBeEditedLineByLineIsWrittenWhole() throws {
        let inline = "profiles.a = { base_url = \"http://127.0.0.1:1\" }\n"
        var configuration = try ClientConfiguration(parsing: inline)
        var a = configuration.profile(named: "a")!
        a.model = "m"
        configuration.set(a)
        let result = ClientConfigurationText.edit(inline, to: configuration)
        #expect(result == configuration.formatted())
        #expect(ClientConfigurationText.edit("not toml [", to: configuration) == configuration.formatted())
    }
}
