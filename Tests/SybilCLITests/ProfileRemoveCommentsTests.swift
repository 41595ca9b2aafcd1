import Foundation
import SybilClient
import Testing

/// `sybil profile remove NAME` takes the comment lines written directly above the profile's
/// `[profiles.NAME]` header with it (a block of comment lines with no blank line between it
/// and the header), and leaves every other line of `config.toml` byte for byte.
@Suite("sybil profile remove takes the profile's own comments", .timeLimit(.minutes(2)))
struct ProfileRemoveCommentsTests {
    static let kept =
        "# My models.\ndefault_profile = \"lab\"   # the one I use most\n\n"
        + "# Kept: a blank line parts this from the header below.\n\n"
    static let cloud =
        "# The cloud one.\n  #   Paid, so keep it short.\n[profiles.cloud]   # OpenAI\n"
        + "base_url = \"https://api.openai.com\"\nkey = \"openai\"\n"
    static let lab =
        "# About lab, written right under cloud: it stays with lab.\n[profiles.lab]\n"
        + "base_url = \"http://10.0.0.5:8000\"\nmodel = \"m\"    # a comment that stays\n\n# The end.\n"

    /// Writes `text` as the configuration of a fresh home, runs `sybil profile remove` for each
    /// of `names` and returns the file's text after each.
    func removing(_ names: [String], from text: String) async throws -> [String] {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sybil-profile-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let path = home + "/sybil/config.toml"
        try FileManager.default.createDirectory(atPath: home + "/sybil", withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        var after: [String] = []
        for name in names {
            let remove = TestIO(environment: ["XDG_CONFIG_HOME": home])
            #expect(await remove.run("profile", "remove", name) == 0, "\(remove.stderr)")
            after.append(try String(contentsOfFile: path, encoding: .utf8))
        }
        return after
    }

    @Test func theCommentsDirectlyAboveTheHeaderGoAndEveryOtherLineStays() async throws {
        let after = try await removing(["cloud"], from: Self.kept + Self.cloud + Self.lab)
        #expect(after == [Self.kept + Self.lab])
        #expect(try ClientConfiguration(parsing: after[0]).profiles.map(\.name) == ["lab"])
    }

    @Test func theLastProfileTakesItsCommentsAndTheDefaultGoesWithItsProfile() async throws {
        let after = try await removing(["cloud", "lab"], from: Self.kept + Self.lab + "\n" + Self.cloud)
        #expect(after.first == Self.kept + Self.lab)
        // The default line goes with lab, and so does all of lab's table (its last comment too);
        // a table at the end of the file takes the blank line that parted it from the rest.
        #expect(after.last == "# My models.\n\n# Kept: a blank line parts this from the header below.\n")
    }
}
