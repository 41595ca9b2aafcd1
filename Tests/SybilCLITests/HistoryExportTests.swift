import Foundation
import SybilStore
import Testing

@testable import SybilCLI

/// `sybil history show ID --markdown`, `sybil history export [--json] [-o FILE]` and
/// `sybil history delete ID` over the data of ``CLIJSONTests/Home``.
@Suite("sybil history export, delete and Markdown", .timeLimit(.minutes(2)))
struct HistoryExportTests {
    typealias Home = CLIJSONTests.Home

    static let kyoto = """
        # Trip to Kyoto

        `c1` · created 2025-12-01T00:00:00Z · updated 2025-12-01T00:00:01Z

        **System**

        Answer briefly.

        **You**

        Plan two days in Kyoto

        **Assistant**

        **Day 1**: temples
        **Day 2**: gardens

        """

    static let train = """
        # Kyoto by train

        `c2` · created 2025-11-30T23:59:00Z · updated 2025-11-30T23:59:01Z

        **You**

        Which train goes to Kyoto?

        **Assistant**

        _[failed: the server could not be reached]_

        """

    @Test func showMarkdownIsTheChatWithItsTextAsWritten() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let shown = await home.run("history", "show", "c1", "--markdown")
        #expect(shown.status == 0)
        #expect(shown.stdout == Self.kyoto)
        let plain = await home.run("history", "show", "c1")
        #expect(plain.stdout.contains("\nSystem prompt:\nAnswer briefly.\n"), "history show prints the system prompt")
        let both = await home.run("history", "show", "c1", "--markdown", "--json")
        #expect(both.status == 64)
        #expect(both.stderr.hasPrefix("sybil history show: --json and --markdown exclude each other\n"))
    }

    @Test func exportPrintsEveryChatNewestFirst() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let exported = await home.run("history", "export")
        #expect(exported.status == 0)
        #expect(exported.stdout == Self.kyoto + HistoryMarkdown.separator + Self.train)
        #expect(exported.stderr == "sybil history export: 2 conversations exported\n")
    }

    @Test func exportToAFileReplacesItWhole() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        let file = home.directory + "/export.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        let written = await home.run("history", "export", "--json", "-o", file)
        #expect(written.status == 0, Comment(rawValue: written.stderr))
        #expect(written.stdout == "")
        #expect(written.stderr == "sybil history export: 2 conversations written to '\(file)'\n")
        let printed = await home.run("history", "export", "--json")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout)
        #expect(!FileManager.default.fileExists(atPath: file + ".tmp"))
        let blocked = await home.run("history", "export", "-o", home.directory + "/no/such/dir/file.md")
        #expect(blocked.status == 73)
        #expect(blocked.stderr.hasPrefix("sybil history export: cannot write '\(home.directory)/no/such/dir/file.md'"))
    }

    @Test func deleteRemovesTheChatFromHistoryAndSearch() async throws {
        let home = Home()
        defer { home.remove() }
        try await home.seed()
        #expect(await home.run("search", "gardens").stdout.contains("Trip to Kyoto"))
        let deleted = await home.run("history", "delete", "c1")
        #expect(deleted.status == 0)
        #expect(deleted.stderr == "sybil history delete: deleted conversation 'c1'\n")
        #expect(await home.run("history", "show", "c1").status == 66)
        let search = await home.run("search", "kyoto")
        #expect(search.stdout == "Kyoto by train — Kyoto by train\nKyoto by train — Which train goes to Kyoto?\n")
        #expect(await home.run("search", "gardens").stdout == "")
        #expect(await home.run("history", "list").stdout.split(separator: "\n").count == 1)
        let again = await home.run("history", "delete", "c1")
        #expect(again.status == 66)
        #expect(again.stderr == "sybil history delete: no conversation 'c1'; see sybil history list\n")
    }

    @Test func deleteWithNothingSavedIs66AndUsageErrorsAre64() async throws {
        let home = Home()
        defer { home.remove() }
        let nothing = await home.run("history", "delete", "c1")
        #expect(nothing.status == 66)
        #expect(nothing.stderr == "sybil history delete: no conversation 'c1' (nothing is saved yet)\n")
        #expect(await home.run("history", "delete").status == 64)
        #expect(await home.run("history", "export", "extra").status == 64)
    }
}
